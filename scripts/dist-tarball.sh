#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Make the source tarball that rpcrdma-inline.spec's Source0 names,
# rpcrdma-inline-VERSION.tar.gz, in OUTDIR (default: the top directory):
# the tree under rpcrdma-inline-VERSION/, without build products. In a git
# checkout, the files git knows or would add (committed or not); in an
# unpacked tarball, every file but build/ and earlier tarballs.
# 'make dist' runs it; then 'rpmbuild -tb rpcrdma-inline-VERSION.tar.gz'
# builds the RPM (the spec is in the tarball).
#
# usage: dist-tarball.sh [OUTDIR]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ -n "$version" ] || {
	echo "dist-tarball.sh: no PACKAGE_VERSION in $top/dkms.conf" >&2
	exit 1
}
name=rpcrdma-inline-$version
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"

cd "$top"
if [ "$(git rev-parse --show-toplevel 2>/dev/null || true)" = "$top" ]; then
	git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done
else
	find . \( -path ./build -o -path ./.git -o -name 'rpcrdma-inline-*.tar.gz' \) -prune \
		-o \( -type f -o -type l \) -print0 | sed -z 's,^\./,,'
fi | tar --null -T - -cf - | tar -xf - -C "$stage/$name"

# Reproducible: sorted, fixed owner and times, gzip without a name
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime='2026-01-01 00:00Z' -cf - "$name" | gzip -9n >"$out/$name.tar.gz"
echo "$out/$name.tar.gz"
