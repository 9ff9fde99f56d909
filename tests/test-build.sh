#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build rpcrdma.ko for one kernel series in that kernel's own userland (a
# chroot of its guest image, which has the headers and the linux-source
# package), from an export of the tree as DKMS would get it, with W=1 and
# sparse. Any compiler or sparse warning fails the test.
#
# usage: test-build.sh SERIES     (6.1, 6.12, 6.12+deb13, 7.2 or 7.3, or a
#                                 point release: 6.12.113)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:?usage: test-build.sh SERIES}
img=$(series_image "$series")
kver=$(image_kver "$img" "$series")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"

start=$SECONDS
rc=0
"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work/src:/src" -- \
	make -C /src KVER="$kver" W=1 C=1 >"$work/build.log" 2>&1 || rc=$?
secs=$((SECONDS - start))
echo "# build for $kver took ${secs}s"
if [ "$rc" -ne 0 ]; then
	tail -n 40 "$work/build.log"
	tap_fail "make KVER=$kver W=1 C=1 exits 0 (got $rc)"
	tap_end
	exit 1
fi
tap_ok "make KVER=$kver W=1 C=1 builds rpcrdma.ko (${secs}s)"
# Every kernel built here has its variants on a line of src/hooks/TESTED
expect "the build does not call this kernel untested" \
	bash -c "! grep -q UNTESTED '$work/build.log'"
nhooks=$(find "$REPO/src/hooks" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]-*' | wc -l)
nsaid=$(grep -c '^rpcrdma-inline: hook [0-9][0-9]-[a-z0-9-]*: variant ' "$work/build.log" || true)
grep '^rpcrdma-inline: hook ' "$work/build.log" | sed 's/^/# /'
expect "the build names the variant it used of each of the $nhooks hooks (said $nsaid)" \
	test "$nsaid" -eq "$nhooks" -a "$nhooks" -gt 0

# Every object compiled from a C file (not the generated *.mod.o or
# .module-common.o) must have been checked by sparse
compiled=$(grep '^  CC \[M\]' "$work/build.log" | awk '{ print $NF }' |
	{ grep -v -e '\.mod\.o$' -e 'module-common\.o$' || true; } |
	sed 's/\.o$/.c/' | sort)
checked=$({ grep '^  CHECK' "$work/build.log" || true; } | awk '{ print $NF }' | sort)
unchecked=$(comm -23 <(printf '%s\n' "$compiled") <(printf '%s\n' "$checked"))
warnings=$(grep -E 'warning:|error:' "$work/build.log" || true)
ncompiled=$(printf '%s\n' "$compiled" | grep -c . || true)
if [ -z "$warnings" ] && [ "$ncompiled" -gt 0 ]; then
	tap_ok "no compiler warning with W=1 ($ncompiled C files)"
else
	printf '%s\n' "$warnings" | head -n 40
	tap_fail "W=1: $(printf '%s' "$warnings" | grep -c . || true) warnings"
fi
# 7.x kbuild asks for a sparse that knows __typeof_unqual__ (newer than
# Debian's 0.6.4) and skips it otherwise: the same src/ is checked on 6.x
if grep -q 'sparse is not available or not up to date' "$work/build.log"; then
	echo "# sparse: skipped by this kernel's kbuild (Debian's sparse is too old for it)"
elif [ -z "$unchecked" ]; then
	tap_ok "sparse checked all $ncompiled C files, without a warning"
else
	printf 'not checked by sparse: %s\n' "$unchecked"
	tap_fail "sparse did not check $(printf '%s' "$unchecked" | grep -c . || true) C files"
fi

# The policy table's numbers for drivers that 6.1 does not name are
# checked by static_assert where this kernel's UAPI header names them
uapi="$img/rootfs/usr/src/linux-headers-${kver%-amd64}-common/include/uapi/rdma/ib_user_ioctl_verbs.h"
for drv in MANA IONIC; do
	if grep -qw "RDMA_DRIVER_$drv" "$uapi"; then
		expect "RDMA_DRIVER_$drv is in this kernel: its number is checked at build time" \
			grep -q -- "-DRPCRDMA_WQE_INLINE_HAVE_$drv" "$work/src/src/.wqe_inline.o.cmd"
	else
		expect "RDMA_DRIVER_$drv is not in this kernel: nothing to check" \
			bash -c "! grep -q -- -DRPCRDMA_WQE_INLINE_HAVE_$drv '$work/src/src/.wqe_inline.o.cmd'"
	fi
done

ko="$work/src/rpcrdma.ko"
info() { modinfo -F "$1" "$ko" 2>/dev/null; }
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
expect "vermagic names $kver" test "$(info vermagic | cut -d' ' -f1)" = "$kver"
expect "modinfo rpcrdma_inline: $version" test "$(info rpcrdma_inline)" = "$version"
expect "modinfo version: $version" test "$(info version)" = "$version"
# The build's variants, as the build log named them, and that a test covers them
said=$(sed -n 's/^rpcrdma-inline: hook [0-9][0-9]-[a-z0-9-]*: variant //p' "$work/build.log" | head -n "$nhooks" | paste -sd' ')
got=$(info rpcrdma_inline_hooks | cut -d' ' -f2- | sed 's/[0-9][0-9]-[a-z0-9-]*=//g')
expect "modinfo rpcrdma_inline_hooks names the variants the build did ($(info rpcrdma_inline_hooks))" \
	test -n "$said" -a "$got" = "$said"
expect "modinfo rpcrdma_inline_tested: tested" test "$(info rpcrdma_inline_tested)" = tested
expect "modinfo -p lists inline_size" \
	bash -c "modinfo -p '$ko' | grep -q '^inline_size:.*(uint)'"
expect "modinfo -p lists server_inline and client_inline" \
	bash -c "modinfo -p '$ko' | grep -q '^server_inline:' && modinfo -p '$ko' | grep -q '^client_inline:'"
expect "depends: sunrpc,ib_core,rdma_cm (as the stock module)" \
	bash -c "info() { modinfo -F depends '$ko'; }; [ \"\$(info | tr , '\n' | sort | tr '\n' ,)\" = ib_core,rdma_cm,sunrpc, ]"
expect "aliases svcrdma, xprtrdma, rpcrdma6 kept" \
	bash -c "a=\$(modinfo -F alias '$ko'); for x in svcrdma xprtrdma rpcrdma6; do grep -qx \$x <<<\"\$a\" || exit 1; done"
xdir="$work/src/build/$kver/linux/net/sunrpc/xprtrdma"
# shellcheck disable=SC2016 # $(rpcrdma-y) is for make
objs=$(printf 'print:\n\t@echo $(rpcrdma-y)\n' |
	make -s -f "$xdir/Makefile" -f - CONFIG_SUNRPC_BACKCHANNEL=y print)
expect "every object of the kernel's xprtrdma Makefile is linked" \
	bash -c "for o in $objs; do [ -f '$xdir/'\$o ] || { echo missing \$o; exit 1; }; done"
tap_end
