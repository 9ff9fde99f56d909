#!/bin/bash
# Helpers for the packaging tests (source this file; it sources ../lib.sh
# for REPO, export_tree and the TAP helpers).
#
#   pkg_version              PACKAGE_VERSION of dkms.conf
#   pkg_export TREE          export_tree, but skipping files deleted from
#                            the work tree and not yet from git
#   build_scripts TREE       the scripts/*.sh that 'make' (DKMS's MAKE line,
#                            default target) runs in TREE: those in its
#                            commands (make -n), and those they name, in turn
#   expected_dkms_files TREE the files, relative to /usr/src/NAME-VERSION,
#                            that the DKMS source tree must hold, sorted
#   expect_eq NAME WANT GOT  tap_ok when equal, else tap_fail showing both
#   expect_grep NAME RE TEXT tap_ok when a line of TEXT matches the ERE
#   diff_lists NAME WANT GOT tap_ok when the two sorted lists are equal
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# shellcheck disable=SC2034 # used by the tests that source this
NAME=rpcrdma-inline
# shellcheck disable=SC2034
BIN_PKG=rpcrdma-inline-dkms

pkg_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf"
}

pkg_export() {
	mkdir -p "$1"
	(cd "$REPO" && git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | tar --null -T - -cf -) | tar -xf - -C "$1"
}

build_scripts() {
	local tree=$1 s n
	local -a todo seen=()
	mapfile -t todo < <(make -s -C "$tree" -n MAKE=true KVER=0.0.0-test \
		KDIR=/nonexistent 2>/dev/null | grep -oE 'scripts/[A-Za-z0-9_.-]+\.sh' |
		sed 's,^scripts/,,' | sort -u)
	while [ ${#todo[@]} -gt 0 ]; do
		s=${todo[0]}
		todo=("${todo[@]:1}")
		if [[ " ${seen[*]} " == *" $s "* ]] || [ ! -f "$tree/scripts/$s" ]; then
			continue
		fi
		seen+=("$s")
		while read -r n; do
			if [ -f "$tree/scripts/$n" ]; then
				todo+=("$n")
			fi
		done < <(grep -oE '[A-Za-z0-9_.-]+\.sh' "$tree/scripts/$s" | sort -u)
	done
	printf '%s\n' "${seen[@]}" | LC_ALL=C sort
}

expected_dkms_files() {
	local tree=$1
	{
		printf '%s\n' dkms.conf Makefile Kbuild
		(cd "$tree" && find src include -type f ! -name '*.o' ! -name '*.ko' \
			! -name '*.mod' ! -name '*.mod.c' ! -name '.*.cmd' ! -name '*.a' \
			! -name '*.orig' ! -name '*.rej')
		build_scripts "$tree" | sed 's,^,scripts/,'
	} | LC_ALL=C sort
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		printf '#   want: %s\n#   got:  %s\n' "$2" "$3"
	fi
}

expect_grep() {
	if grep -qE -- "$2" <<<"$3"; then
		tap_ok "$1"
	else
		tap_fail "$1"
		printf '#   no line matches: %s\n' "$2"
		printf '%s\n' "$3" | head -n 20 | sed 's/^/#   | /'
	fi
}

diff_lists() {
	local out
	if out=$(diff <(printf '%s\n' "$2") <(printf '%s\n' "$3")); then
		tap_ok "$1"
	else
		tap_fail "$1"
		printf '%s\n' "$out" | head -n 30 | sed 's/^/#   /'
	fi
}
