#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Choose, for each hook point of HOOKS_ROOT (a directory NN-name), the one
# variant (NN-name/VARIANT.patch) whose expectations the pristine
# extracted source PRISTINE meets, and print "NN-name VARIANT PATH" for
# each, in hook order. Refuse, naming the hook and what each of its
# variants looked for, when no variant or more than one matches; and
# first, naming the kernels and what differs, a shape that
# HOOKS_ROOT/REFUSED lists (one no variant is written for).
#
# A variant's expectations are lines of its header (before the diff):
#   expect FILE has STRING     some line of PRISTINE/FILE contains STRING
#   expect FILE lacks STRING   no line of PRISTINE/FILE contains STRING
# STRING is the rest of the line, compared as a fixed string (a missing
# FILE has nothing). src/hooks/README says how to add a hook or variant.
#
# usage: select-hooks.sh HOOKS_ROOT PRISTINE
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 HOOKS_ROOT PRISTINE"
root=$1
pristine=$2

# expectations PATCH: its "expect" lines, without the keyword
expectations() {
	sed -n '/^--- /q; s/^expect //p' "$1"
}

# meets PATCH: 0 when PRISTINE meets every expectation of PATCH; the
# first one it does not meet is left in $unmet
meets() {
	local file verb string found
	unmet=
	while read -r file verb string; do
		found=0
		if [ -f "$pristine/$file" ] && grep -qF -- "$string" "$pristine/$file"; then
			found=1
		fi
		case $verb in
		has) [ "$found" = 1 ] || { unmet="$file has $string"; return 1; } ;;
		lacks) [ "$found" = 0 ] || { unmet="$file lacks $string"; return 1; } ;;
		*) die "$PATCH_NAME: 'expect $file $verb ...': the verb must be has or lacks." ;;
		esac
	done < <(expectations "$1")
}

# Shapes refused by name (HOOKS_ROOT/REFUSED: a "shape" line, then its
# expect lines): the first whose expectations all hold stops here
if [ -f "$root/REFUSED" ]; then
	entry=$(mktemp)
	trap 'rm -f "$entry"' EXIT
	while IFS= read -r -d '' shape; do
		awk -v s="shape $shape" '$0 == s { on = 1; next } /^shape / { on = 0 } on && /^expect /' \
			"$root/REFUSED" >"$entry"
		PATCH_NAME="REFUSED ($shape)"
		[ -s "$entry" ] || die "src/hooks/REFUSED: shape '$shape' expects nothing."
		if meets "$entry"; then
			die "this kernel's xprtrdma has the shape of $shape." \
			    "Nothing was built; the stock rpcrdma module stays in place."
		fi
	done < <(sed -n 's/^shape //p' "$root/REFUSED" | tr '\n' '\0')
fi

shopt -s nullglob
hooks=("$root"/[0-9][0-9]-*/)
[ ${#hooks[@]} -gt 0 ] || die "no hooks in $root."
for dir in "${hooks[@]}"; do
	hook=$(basename "$dir")
	matched=()
	report=()
	variants=("$dir"*.patch)
	[ ${#variants[@]} -gt 0 ] || die "hook $hook has no variant ($dir*.patch)."
	for patch in "${variants[@]}"; do
		variant=$(basename "$patch" .patch)
		PATCH_NAME="$hook/$variant"
		[ -n "$(expectations "$patch")" ] ||
			die "variant $hook/$variant expects nothing: give it expect lines (src/hooks/README)."
		if meets "$patch"; then
			matched+=("$variant")
			report+=("  $variant: matches (it expects $(expectations "$patch" | awk 'NR > 1 { printf " and " } { printf "%s", $0 }'))")
		else
			report+=("  $variant: no: it expects $unmet")
		fi
	done
	if [ ${#matched[@]} -ne 1 ]; then
		if [ ${#matched[@]} -eq 0 ]; then
			what="no variant of hook $hook fits this source. The kernel's xprtrdma has a shape the hooks do not know: src/hooks/$hook needs a variant for it"
		else
			what="${#matched[@]} variants of hook $hook fit this source (${matched[*]}), where one must: their expect lines in src/hooks/$hook must tell them apart"
		fi
		printf '%s\n' "${report[@]}" >&2
		die "$what (src/hooks/README)." \
		    "Nothing was built; the stock rpcrdma module stays in place."
	fi
	printf '%s %s %s\n' "$hook" "${matched[0]}" "$dir${matched[0]}.patch"
done
