#!/bin/bash
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
tap_end
