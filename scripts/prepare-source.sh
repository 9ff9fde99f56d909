#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Produce the hooked xprtrdma source that Kbuild compiles for kernel
# KVER, in OUT/linux: find the kernel's own source, extract what the
# build needs, check it is the kernel's series, choose one variant of
# each hook by what the source holds (scripts/select-hooks.sh), apply
# them all or none (scripts/apply-hooks.sh), and say so when no test
# covers that series with those variants (src/hooks/TESTED). Reuses OUT
# when neither the source nor the hooks changed.
#
# usage: prepare-source.sh KVER OUT
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 KVER OUT"
kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
hooks_root="$here/../src/hooks"

# An OFED RDMA stack: refused before anything is built
"$here/ofed-check.sh" "$kver"

src=$("$here/find-kernel-source.sh" "$kver")

stamp_of() {
	{
		printf '%s\n' "$kver" "$(realpath "$src")"
		stat -c '%s %Y' "$src"
		cat "$hooks_root"/TESTED "$hooks_root"/*/*.patch "$0"
	} | sha256sum | cut -d' ' -f1
}
stamp=$(stamp_of)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] &&
	[ -d "$out/linux" ]; then
	exit 0
fi

mkdir -p "$out"
rm -f "$out/stamp"
echo "rpcrdma-inline: extracting xprtrdma from $src" >&2
"$here/extract-kernel-source.sh" "$src" "$out/pristine"

# Never another series: the source must be the kernel's own
mk="$out/pristine/Makefile"
srcseries="$(sed -n 's/^VERSION = //p' "$mk").$(sed -n 's/^PATCHLEVEL = //p' "$mk")"
kseries=$(printf '%s\n' "$kver" | cut -d. -f1-2 | sed 's/[^0-9.].*//')
[ "$srcseries" = "$kseries" ] ||
	die "$src is Linux $srcseries, but kernel $kver is $kseries: the source must be the kernel's own."
# RHEL's source says its release (Makefile.rhelver): exactly the kernel's.
# Its tests are its own: src/hooks/TESTED keys it SERIES-elN (6.12-el10),
# so that a Debian kernel's test of the same variants does not cover it
rhelver="$out/pristine/Makefile.rhelver"
tseries=$kseries
if [ -f "$rhelver" ]; then
	tseries="$kseries-el$(sed -n 's/^RHEL_MAJOR = //p' "$rhelver")"
	srcrel="$(sed -n 's/^VERSION = //p' "$mk").$(sed -n 's/^PATCHLEVEL = //p' "$mk").$(sed -n 's/^SUBLEVEL = //p' "$mk")-$(sed -n 's/^RHEL_RELEASE = //p' "$rhelver")"
	case $kver in
	"$srcrel".*) ;;
	*)
		[ "${RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH:-0}" = 1 ] ||
			die "$src is the source of RHEL kernel $srcrel (RHEL $(sed -n 's/^RHEL_MAJOR = //p' "$rhelver").$(sed -n 's/^RHEL_MINOR = //p' "$rhelver")), but kernel $kver is another release:" \
			    "the source must be the kernel's own (RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 accepts it, at your own risk)."
		echo "rpcrdma-inline: warning: building for $kver from the source of $srcrel, as RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 asks" >&2
		;;
	esac
fi

# One variant of each hook, chosen by what the source holds
mapfile -t chosen < <("$here/select-hooks.sh" "$hooks_root" "$out/pristine" || echo FAILED)
[ "${chosen[-1]:-FAILED}" != FAILED ] || die "kernel $kver ($src): not built, as said above."
patches=()
combination=$tseries
for line in "${chosen[@]}"; do
	read -r hook variant patch <<<"$line"
	echo "rpcrdma-inline: hook $hook: variant $variant" >&2
	patches+=("$patch")
	combination="$combination $hook=$variant"
done
"$here/apply-hooks.sh" "$out/pristine" "$out/linux" "${patches[@]}"
tested=tested
if ! grep -qxF -- "$combination" "$hooks_root/TESTED"; then
	echo "rpcrdma-inline: warning: every hook of kernel $kver ($tseries) applied without fuzz, but no test has covered this kernel series with these variants (src/hooks/TESTED has no line \"$combination\"): built UNTESTED" >&2
	tested=UNTESTED
fi
# What the build is, for modinfo, the load message, status and DKMS's
# POST_BUILD (scripts/build-report.sh)
cat >"$out/linux/include/rpcrdma_inline_build.h" <<EOF
/* Written by scripts/prepare-source.sh for kernel $kver */
#define RPCRDMA_INLINE_HOOKS "$combination"
#define RPCRDMA_INLINE_TESTED "$tested"
EOF
printf '%s\n' "$stamp" >"$out/stamp"
