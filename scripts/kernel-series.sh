#!/bin/bash
# Print the hook directory (under src/hooks/) for a kernel version
# (6.1.0-57-amd64 -> 6.1, 6.12.117+deb12-amd64 -> 6.12, 7.3.4+deb13-amd64 -> 7),
# or refuse a kernel series that has no hooks.
#
# usage: kernel-series.sh HOOKS_ROOT VERSION
set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 HOOKS_ROOT VERSION" >&2
	exit 1
}
root=$1
major=$(printf '%s\n' "$2" | cut -d. -f1)
minor=$(printf '%s\n' "$2" | cut -d. -f2 | sed 's/[^0-9].*//')

for dir in "$major.$minor" "$major"; do
	if [ -d "$root/$dir" ]; then
		printf '%s\n' "$dir"
		exit 0
	fi
done
supported=$(find "$root" -mindepth 1 -maxdepth 1 -type d -printf '%f ' | sort)
printf 'rpcrdma-inline: kernel series %s.%s is not supported: there are hooks for %s(a directory name without a dot covers the whole major version). Nothing was built; the stock rpcrdma module stays in place.\n' \
	"$major" "$minor" "$supported" >&2
exit 1
