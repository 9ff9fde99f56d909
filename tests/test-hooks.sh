#!/bin/bash
# Each hook's variants, chosen by what a source holds, on the shapes no
# Debian package carries: for each fixture in tests/hooks/fixtures (only
# the lines the hooks need, read from public copies of xprtrdma, named in
# its EXPECT file; FILE.excerpt stands for FILE), scripts/select-hooks.sh picks exactly the variants
# that EXPECT lists, and scripts/apply-hooks.sh applies them all with no
# fuzz (no Debian kernel has these shapes: on a kernel whose series and
# variants no line of src/hooks/TESTED names, the build says UNTESTED,
# tests/test-bad-input.sh). And every variant is used by some fixture or Debian kernel (the
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
	used="$used
$(tr ' ' '\n' <<<"$want")"
	rc=0
	"$REPO/scripts/select-hooks.sh" "$REPO/src/hooks" "$fx" >"$work/chosen" 2>"$work/err" || rc=$?
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
done
for patch in "$REPO"/src/hooks/[0-9][0-9]-*/*.patch; do
	hv="$(basename "$(dirname "$patch")")=$(basename "$patch" .patch)"
	expect "variant $hv is chosen by a fixture or a tested Debian kernel" grep -qxF -- "$hv" <<<"$used"
done
tap_end
