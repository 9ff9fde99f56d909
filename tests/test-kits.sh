#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Compile rpcrdma.ko against each vendor kernel build kit (RHEL 8.10, 9.6,
# 10.0, Ubuntu 22.04's 5.15 and its 6.8 HWE; ../shared/kernels/README.md),
# the project's own way: make KVER= KDIR= KSRC= W=1, from an export of
# the tree as DKMS would get it, each kit unpacked in a temp dir. A compile
# check, not a test of the module: the kits have no vmlinux, so modpost
# only warns about the kernel's symbols (KBUILD_MODPOST_WARN=1) and the
# .ko is never loaded. Any compiler warning or error in the project's
# files (src/, include/, and the hooked xprtrdma copy) fails; a kit that
# is not there is reported as not run, never as passed (exit 77 when
# none is). And a kit given for another kernel than its own is refused.
#
# usage: test-kits.sh [KIT...]   (file names in the kits directory;
#                                 default: every expected and found kit)
# env:   RPCRDMA_INLINE_KITS     the kits directory
#                                (default: the repo's ../shared/kernels)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

kits_dir=${RPCRDMA_INLINE_KITS:-$REPO/../shared/kernels}
# The vendor release lines docs/platforms.md says were compiled
expected=(
	rhel-8.10-4.18.0-553.66.1.el8_10.x86_64.tar.xz
	rhel-9.6-5.14.0-570.32.1.el9_6.x86_64.tar.xz
	rhel-10.0-6.12.0-55.24.1.el10_0.x86_64.tar.xz
	ubuntu-22.04-5.15.0-185-generic.tar.xz
	ubuntu-22.04-hwe-6.8.0-90-generic.tar.xz
)
if [ $# -gt 0 ]; then
	kits=("$@")
else
	kits=("${expected[@]}")
	if [ -d "$kits_dir" ]; then
		while IFS= read -r f; do
			[[ " ${kits[*]} " == *" $f "* ]] || kits+=("$f")
		done < <(find "$kits_dir" -maxdepth 1 -name '*.tar.xz' -printf '%f\n' | sort)
	fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
built=0
notrun=()
TIMEFORMAT='%U %S'
for kit in "${kits[@]}"; do
	name=${kit%.tar.xz}
	if [ ! -f "$kits_dir/$kit" ]; then
		echo "# kit $name: not run: $kits_dir/$kit is missing"
		notrun+=("$name")
		continue
	fi
	rm -rf "$work/kit" "$work/src"
	mkdir -p "$work/kit"
	tar -xJf "$kits_dir/$kit" -C "$work/kit"
	k=$work/kit/$name
	if [ ! -f "$k/include/config/kernel.release" ]; then
		tap_fail "$name: the kit unpacks to $name/ with include/config/kernel.release"
		continue
	fi
	kver=$(head -n 1 "$k/include/config/kernel.release")
	export_tree "$work/src"
	start=$SECONDS
	rc=0
	{ time make -C "$work/src" KVER="$kver" KDIR="$k" KSRC="$k" \
		KBUILD_MODPOST_WARN=1 W=1 >"$work/build.log" 2>&1 || rc=$?; } 2>"$work/time"
	read -r user sys <"$work/time"
	echo "# kit $name: build for $kver took $((SECONDS - start)) s ($user s user, $sys s system CPU)"
	grep '^rpcrdma-inline: hook ' "$work/build.log" | sed 's/^/# /' || true
	if [ "$rc" -ne 0 ]; then
		grep -E 'error|rpcrdma-inline:' "$work/build.log" | sed -n 1,20p || true
		tail -n 20 "$work/build.log"
		tap_fail "$name: make KVER=$kver W=1 exits 0 (got $rc)"
		continue
	fi
	built=$((built + 1))
	ko="$work/src/rpcrdma.ko"
	expect "$name: make KVER=$kver W=1 builds rpcrdma.ko for $kver" \
		test "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver"
	# A compile is not a test: no guest has run these kernels, so no line
	# of src/hooks/TESTED covers them (RHEL's are keyed SERIES-elN)
	echo "# kit $name: modinfo rpcrdma_inline_hooks: $(modinfo -F rpcrdma_inline_hooks "$ko" 2>/dev/null)"
	expect "$name: the build says built UNTESTED (no guest has run this kernel)" \
		test "$(modinfo -F rpcrdma_inline_tested "$ko" 2>/dev/null)" = UNTESTED
	# Compiler diagnostics: file:line:col: warning|error (modpost's
	# "WARNING: modpost: ... undefined" is the kits' empty Module.symvers)
	diags=$(grep -E '^[^ ]+:[0-9]+:([0-9]+:)? (warning|error):' "$work/build.log" || true)
	ours=$(printf '%s\n' "$diags" | grep -E "^($work/src/)?(src|include|build)/" || true)
	others=$(printf '%s\n' "$diags" | grep -vE "^($work/src/)?(src|include|build)/" | grep . || true)
	if [ -n "$others" ]; then
		printf '%s\n' "$others" | sed -n '1,10s/^/# the kernel'\''s own: /p'
	fi
	nc=$(grep -c '^  CC \[M\]' "$work/build.log" || true)
	if [ -z "$ours" ]; then
		tap_ok "$name: no compiler warning in our files with W=1 ($nc objects)"
	else
		printf '%s\n' "$ours" | sed -n 1,40p
		tap_fail "$name: W=1: $(printf '%s\n' "$ours" | grep -c .) warnings in our files"
	fi
	# A driver name the kernel lacks is probed, never guessed (Kbuild)
	uapi="$k/include/uapi/rdma/ib_user_ioctl_verbs.h"
	for drv in ERDMA MANA IONIC; do
		if grep -qw "RDMA_DRIVER_$drv" "$uapi"; then
			expect "$name: RDMA_DRIVER_$drv is in this kernel: its number is checked at build time" \
				grep -q -- "-DRPCRDMA_WQE_INLINE_HAVE_$drv" "$work/src/src/.wqe_inline.o.cmd"
		else
			expect "$name: RDMA_DRIVER_$drv is not in this kernel: the UAPI number stands alone" \
				bash -c "! grep -q -- -DRPCRDMA_WQE_INLINE_HAVE_$drv '$work/src/src/.wqe_inline.o.cmd'"
		fi
	done
done
# The last kit built, named for another kernel: refused, naming both,
# and nothing built
if [ "$built" -gt 0 ] && [ -f "$k/include/config/kernel.release" ]; then
	rm -f "$work/src/rpcrdma.ko"
	rc=0
	make -C "$work/src" KVER="$kver.other" KDIR="$k" KSRC="$k" \
		KBUILD_MODPOST_WARN=1 >"$work/other.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && [ ! -e "$work/src/rpcrdma.ko" ] &&
		grep -qF "is the source of kernel $kver, not of $kver.other" "$work/other.log"; then
		tap_ok "$name given as the source of kernel $kver.other: refused, naming both, nothing built"
	else
		sed -n 1,20p "$work/other.log"
		tap_fail "$name given as the source of kernel $kver.other: refused (exit $rc)"
	fi
fi
for n in "${notrun[@]}"; do
	echo "# not run: $n (kit missing)"
done
echo "# kits: $built built, ${#notrun[@]} not run"
if [ "$built" -eq 0 ] && [ "$TAP_FAILED" -eq 0 ]; then
	echo "1..0 # SKIP no kit in $kits_dir: nothing was compiled"
	exit 77
fi
tap_end
