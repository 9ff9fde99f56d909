#!/bin/bash
# Build rpcrdma.ko for one kernel series in that kernel's own userland (a
# chroot of its guest image, which has the headers and the linux-source
# package), from an export of the tree as DKMS would get it, with W=1 and
# sparse. Any compiler or sparse warning fails the test.
#
# usage: test-build.sh SERIES     (6.1, 6.12 or 7.3)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:?usage: test-build.sh SERIES}
img=$(image_dir "$(image_dist "$series")")
kver=$(image_kver "$img" "$series")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"

start=$SECONDS
rc=0
# Debian's 7.x headers lack scripts/checker-valid.sh, without which kbuild
# skips sparse: take it from the kernel's own source (in the throwaway chroot)
# shellcheck disable=SC2016 # expanded in the chroot
"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work/src:/src" \
	--env "K=$kver" -- bash -c '
	set -e
	for d in /usr/src/linux-headers-*; do
		if grep -qs checker-valid.sh "$d/Makefile" &&
			[ ! -e "$d/scripts/checker-valid.sh" ]; then
			tar -xf /usr/src/linux-source-*.tar.xz -C "$d" \
				--strip-components=1 --wildcards "*/scripts/checker-valid.sh"
		fi
	done
	make -C /src KVER="$K" W=1 C=1' >"$work/build.log" 2>&1 || rc=$?
secs=$((SECONDS - start))
echo "# build for $kver took ${secs}s"
if [ "$rc" -ne 0 ]; then
	tail -n 40 "$work/build.log"
	tap_fail "make KVER=$kver W=1 C=1 exits 0 (got $rc)"
	tap_end
	exit 1
fi
tap_ok "make KVER=$kver W=1 C=1 builds rpcrdma.ko (${secs}s)"

checked=$(grep -c '^  CHECK' "$work/build.log" || true)
compiled=$(grep -c '^  CC \[M\]' "$work/build.log" || true)
warnings=$(grep -E 'warning:|error:' "$work/build.log" || true)
if [ -z "$warnings" ] && [ "$checked" -gt 0 ] && [ "$checked" -ge "$((compiled - 1))" ]; then
	tap_ok "no compiler or sparse warning ($compiled objects, $checked checked by sparse)"
else
	printf '%s\n' "$warnings" | head -n 40
	tap_fail "warnings: $(printf '%s' "$warnings" | grep -c . || true), sparse checked $checked of $compiled"
fi

ko="$work/src/rpcrdma.ko"
info() { modinfo -F "$1" "$ko" 2>/dev/null; }
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
expect "vermagic names $kver" test "$(info vermagic | cut -d' ' -f1)" = "$kver"
expect "modinfo rpcrdma_inline: $version" test "$(info rpcrdma_inline)" = "$version"
expect "modinfo version: $version" test "$(info version)" = "$version"
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
