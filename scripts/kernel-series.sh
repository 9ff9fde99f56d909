#!/bin/bash
# Print the hook set (a directory under HOOKS_ROOT) that serves kernel
# VERSION: the one whose RANGE file's "serves FIRST LAST" holds VERSION's
# series (6.1.0-57-amd64 -> 6.1 -> the 6.1 set, 6.13.2 -> the 6.12 set),
# or refuse a series that no set serves. With --tested, print nothing and
# exit 0 when a "tested" line of that set names VERSION's series, else 1.
#
# usage: kernel-series.sh [--tested] HOOKS_ROOT VERSION
set -euo pipefail

tested=0
if [ "${1:-}" = --tested ]; then
	tested=1
	shift
fi
[ $# -eq 2 ] || {
	echo "usage: $0 [--tested] HOOKS_ROOT VERSION" >&2
	exit 1
}
root=$1
major=$(printf '%s\n' "$2" | cut -d. -f1 | sed 's/[^0-9].*//')
minor=$(printf '%s\n' "$2" | cut -d. -f2 | sed 's/[^0-9].*//')
series=$major.$minor
num() { # X.Y -> a number that sorts as the series do
	echo $((${1%%.*} * 1000 + ${1#*.}))
}

ranges=''
for range in "$root"/*/RANGE; do
	[ -f "$range" ] || continue
	set="$(basename "$(dirname "$range")")"
	read -r _ first last < <(grep -m 1 '^serves ' "$range")
	ranges="$ranges${ranges:+, }$first to $last ($set)"
	if [ -n "$major" ] && [ -n "$minor" ] &&
		[ "$(num "$series")" -ge "$(num "$first")" ] &&
		[ "$(num "$series")" -le "$(num "$last")" ]; then
		if [ "$tested" = 1 ]; then
			grep -q "^tested.* $series\( \|$\)" "$range"
			exit
		fi
		printf '%s\n' "$set"
		exit 0
	fi
done
printf 'rpcrdma-inline: kernel series %s is not supported: the hooks serve the series %s (src/hooks/*/RANGE). Nothing was built; the stock rpcrdma module stays in place.\n' \
	"$series" "$ranges" >&2
exit 1
