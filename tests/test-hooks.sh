#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Each hook's variants, chosen by what a source holds, on the shapes no
# Debian package carries (OFED, DOCA, upstream, RHEL and Ubuntu 22.04
# kernels): for each fixture in tests/hooks/fixtures (only
# the lines the hooks need, read from public copies of xprtrdma, named in
# its EXPECT file; FILE.excerpt stands for FILE), scripts/select-hooks.sh picks exactly the variants
# that EXPECT lists, and scripts/apply-hooks.sh applies them all with no
# fuzz (no Debian kernel has these shapes: on a kernel whose series and
# variants no line of src/hooks/TESTED names, the build says UNTESTED,
# tests/test-bad-input.sh); a fixture whose EXPECT says "refused: SHAPE"
# is refused by that name of src/hooks/REFUSED, choosing nothing. And every variant is used by some fixture or Debian kernel (the
# variants of Debian's kernels are on the lines of src/hooks/TESTED).
# Runs on the host, in seconds.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
used=$(grep -v '^#' "$REPO/src/hooks/TESTED" | tr ' ' '\n' | grep -F '=' || true)
for fixture in "$REPO"/tests/hooks/fixtures/*/; do
	name=$(basename "$fixture")
	want=$(grep -v '^#' "$fixture/EXPECT")
	# The excerpts, under the names of the files they come from (kept as
	# NAME.excerpt in the repo: they are a few lines of each, not the file)
	fx=$work/pristine-$name
	mkdir -p "$fx"
	(cd "$fixture" && find . -name '*.excerpt') | while read -r f; do
		mkdir -p "$fx/$(dirname "$f")"
		cp "$fixture/$f" "$fx/${f%.excerpt}"
	done
	rc=0
	"$REPO/scripts/select-hooks.sh" "$REPO/src/hooks" "$fx" >"$work/chosen" 2>"$work/err" || rc=$?
	# A shape src/hooks/REFUSED names: refused by name, nothing chosen
	if [[ $want == refused:* ]]; then
		shape=${want#refused: }
		if [ "$rc" -ne 0 ] && [ ! -s "$work/chosen" ] &&
			grep -qF "has the shape of $shape " "$work/err" &&
			grep -qF "Nothing was built" "$work/err"; then
			tap_ok "$name: refused by name ($shape), before any hook is tried"
		else
			cat "$work/err" "$work/chosen"
			tap_fail "$name: refused as $shape (exit $rc)"
		fi
		continue
	fi
	used="$used
$(tr ' ' '\n' <<<"$want")"
	got=$(awk '{ print $1 "=" $2 }' "$work/chosen" | paste -sd' ')
	if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
		tap_ok "$name: one variant of each hook fits: $got"
	else
		cat "$work/err"
		tap_fail "$name: variants chosen (exit $rc): '$got', expected '$want'"
		continue
	fi
	rc=0
	mapfile -t patches < <(awk '{ print $3 }' "$work/chosen")
	"$REPO/scripts/apply-hooks.sh" "$fx" "$work/$name" "${patches[@]}" 2>"$work/err" || rc=$?
	if [ "$rc" -eq 0 ] && [ "$(diff -rq "$fx" "$work/$name" | grep -c ' differ$')" -eq \
		"$(awk '{ print $3 }' "$work/chosen" | xargs sed -n 's/^+++ b\///p' | sort -u | wc -l)" ]; then
		tap_ok "$name: every chosen variant applies with no fuzz, and every file it names is hooked"
	else
		cat "$work/err"
		tap_fail "$name: the chosen variants apply (exit $rc)"
	fi
	# Every line a hunk adds is in the hooked file: no hunk was skipped
	# (a separator that is not whitespace, so that read keeps the tabs)
	missing=$(awk '/^\+\+\+ b\// { f = substr($0, 7); next } /^\+/ { print f "\037" substr($0, 2) }' "${patches[@]}" |
		while IFS=$'\037' read -r f line; do
			grep -qxF -- "$line" "$work/$name/$f" 2>/dev/null || echo "$f: $line"
		done)
	if [ -z "$missing" ]; then
		tap_ok "$name: every line the chosen variants add is in the hooked files"
	else
		printf '%s\n' "$missing" | head -n 5 | sed 's/^/#   missing: /'
		tap_fail "$name: lines the chosen variants add are missing (a hunk skipped)"
	fi
done

# A hook with a line outside any hunk (patch(1) would skip every hunk
# after it and succeed) is refused before anything is applied
fx=$work/pristine-upstream-5.15
bad=$work/bad-hook/04-svc-post-send/6.1.patch
mkdir -p "$(dirname "$bad")"
awk '/^@@/ && ++h == 2 { next } { print }' "$REPO/src/hooks/04-svc-post-send/6.1.patch" >"$bad"
rc=0
"$REPO/scripts/apply-hooks.sh" "$fx" "$work/bad-applied" "$bad" 2>"$work/err" || rc=$?
if [ "$rc" -ne 0 ] && grep -q "is malformed: line [0-9]*, .* is in no hunk" "$work/err" && [ ! -e "$work/bad-applied" ]; then
	tap_ok "a hook with a line outside its hunks is refused, naming the line, and nothing is applied"
else
	cat "$work/err"
	tap_fail "a hook with a line outside its hunks is refused (exit $rc)"
fi
for patch in "$REPO"/src/hooks/[0-9][0-9]-*/*.patch; do
	hv="$(basename "$(dirname "$patch")")=$(basename "$patch" .patch)"
	expect "variant $hv is chosen by a fixture or a tested Debian kernel" grep -qxF -- "$hv" <<<"$used"
done
tap_end
