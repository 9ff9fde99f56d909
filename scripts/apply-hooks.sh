#!/bin/bash
# Apply the hook patches of one kernel series to a pristine extracted
# source, all or nothing: into a copy that replaces DEST only when every
# hunk of every hook applied exactly (no fuzz).
#
# usage: apply-hooks.sh HOOKDIR PRISTINE DEST
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 3 ] || die "usage: $0 HOOKDIR PRISTINE DEST"
hookdir=$1
pristine=$2
dest=$3
series=$(basename "$hookdir")

tmp="$dest.tmp"
rm -rf "$tmp"
cp -a "$pristine" "$tmp"
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
hooks=("$hookdir"/*.patch)
[ ${#hooks[@]} -gt 0 ] || die "no hooks in $hookdir."
for hook in "${hooks[@]}"; do
	if ! out=$(patch -d "$tmp" -p1 --forward --batch --fuzz=0 \
		--no-backup-if-mismatch -r - <"$hook" 2>&1); then
		printf '%s\n' "$out" >&2
		die "hook $(basename "$hook") of kernel series $series does not apply to this source." \
		    "The kernel's xprtrdma code changed where the hook goes: the hooks in $hookdir" \
		    "need updating for it. Nothing was built; the stock rpcrdma module stays in place."
	fi
done

rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
