#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The project's own C passes checkpatch --strict and kernel-doc (both from
# the kernel's source tarball in the guest image), the shell scripts pass
# the shell linter, and the Python compiles.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

img=$(image_dir bookworm)
tools="${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/checkpatch"
if [ ! -f "$tools/scripts/checkpatch.pl" ]; then
	mkdir -p "$tools"
	tar -xf "$img/rootfs/usr/src/linux-source-6.12.tar.xz" -C "$tools" \
		--strip-components=1 --wildcards '*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
if [ ! -f "$tools/scripts/kernel-doc" ]; then
	tar -xf "$img/rootfs/usr/src/linux-source-6.12.tar.xz" -C "$tools" \
		--strip-components=1 --wildcards '*/scripts/kernel-doc'
fi

cd "$REPO"
mapfile -t cfiles < <(git ls-files -co --exclude-standard -- \
	'src/*.c' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h' \
	':!tests/hooks/fixtures/*')
out=$(perl "$tools/scripts/checkpatch.pl" --no-tree --strict --terse -q \
	--show-types -f "${cfiles[@]}" || true)
bad=$(printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):' || true)
if [ -z "$bad" ]; then
	tap_ok "checkpatch --strict: ${#cfiles[@]} C files clean"
else
	printf '%s\n' "$bad"
	tap_fail "checkpatch --strict: $(printf '%s\n' "$bad" | wc -l) findings"
fi

# kernel-doc: every comment that says it is one is well formed
kdoc=$(perl "$tools/scripts/kernel-doc" -none -v "${cfiles[@]}" 2>&1 |
	grep -iE 'warning|error' || true)
if [ -z "$kdoc" ]; then
	tap_ok "kernel-doc: ${#cfiles[@]} C files clean"
else
	printf '%s\n' "$kdoc"
	tap_fail "kernel-doc: $(printf '%s\n' "$kdoc" | wc -l) findings"
fi

mapfile -t shfiles < <(git ls-files -co --exclude-standard |
	while read -r f; do
		case $f in
		*.sh | .ci/run | scripts/rpcrdma-inline | scripts/rpcrdma-inline-bench | scripts/load-rpcrdma | tests/package-names/*) echo "$f" ;;
		esac
	done)
if shellcheck -x "${shfiles[@]}"; then
	tap_ok "shellcheck: ${#shfiles[@]} scripts clean"
else
	tap_fail "shellcheck"
fi
if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' \
	scripts/rpcrdma-inline-bench-report; then
	tap_ok "scripts/rpcrdma-inline-bench-report compiles"
else
	tap_fail "scripts/rpcrdma-inline-bench-report compiles"
fi
# Licensing: every script and source file has the SPDX line; the rest
# (documentation, fixtures, patches, Debian packaging data) is covered by
# .reuse/dep5; the license texts it names are in LICENSES/
spdx='SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause'
mapfile -t lfiles < <(git ls-files -co --exclude-standard |
	while read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.md | *.json | *.patch | *.png | *.csv | *.tsv | *.txt | */.gitignore | .gitignore | \
			COPYING | .reuse/dep5 | tests/bench-input/* | tests/hooks/fixtures/* | \
			src/hooks/README | src/hooks/TESTED | debian/changelog | debian/control | \
			debian/copyright | debian/source/* | debian/README.Debian | debian/*.docs | \
			debian/*.install | debian/*.manpages | debian/*.dkms) ;;
		*) echo "$f" ;;
		esac
	done)
nospdx=$(for f in "${lfiles[@]}"; do head -n 3 "$f" | grep -qF "$spdx" || echo "$f"; done)
if [ -z "$nospdx" ]; then
	tap_ok "SPDX: ${#lfiles[@]} scripts and source files carry '$spdx' in their first 3 lines"
else
	printf '# no SPDX line: %s\n' "${nospdx//$'\n'/ }"
	tap_fail "SPDX: $(wc -l <<<"$nospdx") files lack '$spdx'"
fi
if [ -f LICENSES/GPL-2.0.txt ] && [ -f LICENSES/BSD-3-Clause.txt ] &&
	grep -q 'GNU GENERAL PUBLIC LICENSE' LICENSES/GPL-2.0.txt &&
	grep -q 'Version 2, June 1991' LICENSES/GPL-2.0.txt &&
	grep -q 'Neither the name of the copyright holder' LICENSES/BSD-3-Clause.txt &&
	grep -qF "$spdx" COPYING && grep -qF 'License: GPL-2.0 OR BSD-3-Clause' .reuse/dep5; then
	tap_ok "COPYING, LICENSES/GPL-2.0.txt and LICENSES/BSD-3-Clause.txt, and .reuse/dep5 names both"
else
	tap_fail "COPYING, LICENSES/GPL-2.0.txt, LICENSES/BSD-3-Clause.txt or .reuse/dep5 missing or wrong"
fi
# reuse lint (Debian package reuse), when installed: compliant but for
# SPDX's deprecation of the id GPL-2.0, which the kernel's own files use
if command -v reuse >/dev/null; then
	lint=$(reuse lint 2>&1 || true)
	nfiles=$(sed -n 's/^\* Files with license information: \([0-9]*\) \/ \([0-9]*\)$/\1 \2/p' <<<"$lint")
	others=$(grep -E '^\* (Bad licenses|Deprecated licenses|Licenses without file extension|Missing licenses|Unused licenses|Read errors):' <<<"$lint" |
		grep -vE '^\* (Bad licenses|Licenses without file extension|Missing licenses|Unused licenses):$' |
		grep -vxF -e '* Deprecated licenses: GPL-2.0' -e '* Read errors: 0' || true)
	if [ -n "$nfiles" ] && [ "${nfiles% *}" = "${nfiles#* }" ] && [ -z "$others" ]; then
		tap_ok "reuse lint: ${nfiles% *} files licensed; nothing but GPL-2.0's deprecation flagged"
	else
		printf '%s\n' "$lint" | tail -n 20 | sed 's/^/#   /'
		tap_fail "reuse lint: ${nfiles:-?} files licensed; flagged: ${others:-?}"
	fi
else
	echo "# reuse is not installed (apt-get install reuse): reuse lint skipped"
fi
tap_end
