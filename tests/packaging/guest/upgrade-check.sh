#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Guest half of tests/packaging/test-upgrade.sh: with NO install command,
# `modprobe rpcrdma` and check which module the booted kernel loaded.
#   EXPECT=ours  our DKMS module (updates/dkms), /sys/module/rpcrdma/version
#                is VERSION, inline_size exists, srcversion is that file's
#   EXPECT=stock the kernel's own module (kernel/...), no inline_size
# Prints TAP; exits non-zero when a check fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../vm/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/guest/lib.sh"

kver=$(uname -r)
expect=${EXPECT:?EXPECT=ours|stock}
echo "# uname -r: $kver, expect: $expect"
check "$kver: rpcrdma is not loaded before modprobe" test ! -e /sys/module/rpcrdma
check "$kver: modprobe rpcrdma" modprobe rpcrdma
file=$(modinfo -n rpcrdma 2>/dev/null || true)
echo "# modinfo -n rpcrdma: $file"
loaded_src=$(cat /sys/module/rpcrdma/srcversion 2>/dev/null || true)
file_src=$(modinfo -F srcversion "$file" 2>/dev/null || true)
echo "# srcversion loaded: $loaded_src, file: $file_src"
# under PREFIX: the file modinfo resolved rpcrdma to is PREFIX[.xz|.zst|...]
under() { [[ $file == "$1" || $file == "$1".* ]]; }
# no_file PREFIX: no file PREFIX or PREFIX.*
no_file() { ! compgen -G "$1*" >/dev/null; }
case $expect in
ours)
	check "$kver: /sys/module/rpcrdma/version is ${VERSION:?}" \
		test "$(cat /sys/module/rpcrdma/version 2>/dev/null)" = "$VERSION"
	check "$kver: /sys/module/rpcrdma/parameters/inline_size exists" \
		test -e /sys/module/rpcrdma/parameters/inline_size
	check "$kver: modinfo -n rpcrdma is updates/dkms/rpcrdma.ko" \
		under "/lib/modules/$kver/updates/dkms/rpcrdma.ko"
	check "$kver: the loaded srcversion is that file's" \
		test -n "$loaded_src" -a "$loaded_src" = "$file_src"
	;;
stock)
	check "$kver: no /sys/module/rpcrdma/parameters/inline_size" \
		test ! -e /sys/module/rpcrdma/parameters/inline_size
	check "$kver: no /sys/module/rpcrdma/version" test ! -e /sys/module/rpcrdma/version
	check "$kver: modinfo -n rpcrdma is under kernel/" \
		under "/lib/modules/$kver/kernel/net/sunrpc/xprtrdma/rpcrdma.ko"
	check "$kver: nothing left in updates/dkms" \
		no_file "/lib/modules/$kver/updates/dkms/rpcrdma.ko"
	check "$kver: the loaded srcversion is the stock file's" test "$loaded_src" = "$file_src"
	;;
*)
	check "EXPECT is ours or stock (got '$expect')" false
	;;
esac
tap_done
