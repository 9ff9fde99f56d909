#!/bin/bash
# Produce the hooked xprtrdma source that Kbuild compiles for kernel
# KVER, in OUT/linux: find the kernel's own source, extract what the
# build needs, check it is the kernel's series, apply the hook set whose
# range serves that series (scripts/kernel-series.sh), and say so when no
# test covers the series. Reuses OUT when neither the source nor the
# hooks changed.
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

# Refuse an unknown series before looking for any source
series=$("$here/kernel-series.sh" "$hooks_root" "$kver")
src=$("$here/find-kernel-source.sh" "$kver")

stamp_of() {
	{
		printf '%s\n' "$kver" "$(realpath "$src")"
		stat -c '%s %Y' "$src"
		cat "$hooks_root/$series"/*.patch
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

echo "rpcrdma-inline: applying the $series hooks" >&2
"$here/apply-hooks.sh" "$hooks_root/$series" "$out/pristine" "$out/linux"
if ! "$here/kernel-series.sh" --tested "$hooks_root" "$kver"; then
	echo "rpcrdma-inline: warning: kernel $kver ($kseries) is in the range of the $series hooks ($(sed -n 's/^serves //p' "$hooks_root/$series/RANGE" | tr ' ' '-')), and every hook applied without fuzz, but no test has covered the $kseries series: built UNTESTED" >&2
fi
printf '%s\n' "$stamp" >"$out/stamp"
