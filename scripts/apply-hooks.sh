#!/bin/bash
# Apply hook variants (src/hooks/NN-name/VARIANT.patch, as chosen by
# scripts/select-hooks.sh) to a pristine extracted source, all or
# nothing: into a copy that replaces DEST only when every hunk of every
# hook applied exactly (no fuzz).
#
# usage: apply-hooks.sh PRISTINE DEST PATCH...
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -ge 3 ] || die "usage: $0 PRISTINE DEST PATCH..."
pristine=$1
dest=$2
shift 2

tmp="$dest.tmp"
rm -rf "$tmp"
cp -a "$pristine" "$tmp"
trap 'rm -rf "$tmp"' EXIT

for hook in "$@"; do
	name="$(basename "$(dirname "$hook")")"
	variant=$(basename "$hook" .patch)
	if ! out=$(patch -d "$tmp" -p1 --forward --batch --fuzz=0 \
		--no-backup-if-mismatch -r - <"$hook" 2>&1); then
		printf '%s\n' "$out" >&2
		die "hook $name (variant $variant, chosen by what it expects) does not apply to this source." \
		    "The kernel's xprtrdma code changed where the hook goes: $hook" \
		    "needs updating, or a new variant of $name (src/hooks/README)." \
		    "Nothing was built; the stock rpcrdma module stays in place."
	fi
done

rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
