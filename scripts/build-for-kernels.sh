#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Build and install rpcrdma-inline with DKMS for each kernel KVER that
# has its headers and lacks ours (default: every kernel in /lib/modules):
# what the Debian package's postinst, its dpkg trigger on /usr/src (a
# linux-source arrives) and its kernel hooks run, the same way on
# Debian 12's dkms 3.0 and Debian 13's 3.2.
#  - A kernel ours cannot be built for (scripts/dkms-pre-build.sh --check:
#    no source of its exact version, no CONFIG_SUNRPC_XPRT_RDMA) is
#    skipped and named, with the one command that makes it build.
#  - A build that fails shows make.log's end; the stock module serves
#    that kernel. With --strict (the package's configure) this exits 1
#    after trying every kernel; otherwise (kernel hooks, trigger) 0, so
#    a kernel's installation never fails because of us.
#
# usage: build-for-kernels.sh [--strict] [KVER...]
set -euo pipefail

name=rpcrdma-inline
strict=0
if [ "${1:-}" = --strict ]; then
	strict=1
	shift
fi

say() { printf 'rpcrdma-inline: %s\n' "$@" >&2; }

# The DKMS version this package ships (/usr/src/NAME-VERSION)
src=
for d in /usr/src/"$name"-*/; do
	if [ -f "$d/dkms.conf" ] && [ -x "$d/scripts/dkms-pre-build.sh" ]; then
		src=${d%/}
	fi
done
if [ -z "$src" ] || ! command -v dkms >/dev/null; then
	exit 0
fi
version=${src##*/"$name"-}

if [ -z "$(dkms status -m "$name" -v "$version" 2>/dev/null)" ]; then
	dkms add -m "$name" -v "$version" >/dev/null || {
		say "dkms add $name/$version failed."
		exit "$strict"
	}
fi

if [ $# -eq 0 ]; then
	set --
	for b in /lib/modules/*/build; do
		k=${b%/build}
		set -- "$@" "${k##*/}"
	done
fi

failed=()
for kver in "$@"; do
	# No headers: dkms's own hook says so; the headers' hook calls us again
	[ -e "/lib/modules/$kver/build/include" ] || continue
	if dkms status -m "$name" -v "$version" -k "$kver" 2>/dev/null | grep -q ': installed'; then
		continue
	fi
	rc=0
	why=$(cd "$src" && scripts/dkms-pre-build.sh --check "$kver" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$why" >&2
		continue
	fi
	# Which source it takes (dkms 3.2 writes PRE_BUILD's words to make.log only)
	printf '%s\n' "$why"
	say "building for kernel $kver"
	if dkms install -m "$name" -v "$version" -k "$kver"; then
		continue
	fi
	log=/var/lib/dkms/$name/$version/build/make.log
	say "the build for kernel $kver failed; the stock rpcrdma module serves it. The end of $log:"
	{ tail -n 25 "$log" 2>/dev/null || true; } | sed 's/^/  /' >&2
	failed+=("$kver")
done

if [ ${#failed[@]} -gt 0 ]; then
	say "not built for: ${failed[*]}. Please report the make.log above;" \
	    "after a fix: dkms install $name/$version -k KVER"
	exit "$strict"
fi
exit 0
