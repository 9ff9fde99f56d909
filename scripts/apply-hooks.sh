#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
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

# check_hunks PATCH: after the patch's first "--- " line, every line is a
# file header, a blank line between hunks, or a line of a hunk of the
# size its "@@" line gives. patch(1) takes a stray line for the end of
# the patch and silently skips every hunk after it: that would build a
# half-hooked module
check_hunks() {
	awk '
	!started { if (/^--- /) started = 1; next }
	inhunk {
		c = substr($0, 1, 1)
		if ($0 == "" || c == " ") { o--; n-- }
		else if (c == "-") o--
		else if (c == "+") n--
		else if (c == "\\") next
		else { printf "line %d, \"%s\", inside a hunk is not a hunk line\n", NR, $0; bad = 1; exit }
		if (o < 0 || n < 0) { printf "line %d: the hunk is longer than its @@ line says\n", NR; bad = 1; exit }
		if (o == 0 && n == 0) inhunk = 0
		next
	}
	/^(---|\+\+\+) / { next }
	/^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@/ {
		split($2, a, ","); o = (a[2] == "") ? 1 : a[2] + 0
		split($3, b, ","); n = (b[2] == "") ? 1 : b[2] + 0
		inhunk = (o > 0 || n > 0)
		next
	}
	/^$/ { next }
	{ printf "line %d, \"%s\", is in no hunk: patch would skip every hunk after it\n", NR, $0; bad = 1; exit }
	END {
		if (!bad && inhunk) { print "its last hunk ends early"; bad = 1 }
		exit bad
	}' "$1"
}

for hook in "$@"; do
	name="$(basename "$(dirname "$hook")")"
	variant=$(basename "$hook" .patch)
	if ! out=$(check_hunks "$hook"); then
		die "hook $name (variant $variant) is malformed: $out." \
		    "Fix $hook; nothing was built, the stock rpcrdma module stays in place."
	fi
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
