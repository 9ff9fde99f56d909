#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# DKMS's POST_BUILD, from the top of the built tree: keep the pristine
# subset of the kernel's source that this build took (what
# scripts/extract-kernel-source.sh extracted: the Makefile,
# net/sunrpc/xprtrdma, svc_rdma.h; well under 1 MB) in
# /var/lib/rpcrdma-inline/KVER/source, stamped with the kernel package's
# version, so that later builds for this kernel (a package upgrade, a
# reinstall, dkms 3.2's build for every kernel) still find it once
# linux-source-X.Y has moved on to a newer kernel
# (scripts/dkms-pre-build.sh). The kernel's /etc/kernel/postrm.d hook and
# the package's purge remove it. Then say what was built
# (scripts/build-report.sh). Never fails the build.
#
# usage: dkms-post-build.sh KVER
# env:   RPCRDMA_INLINE_STATE  instead of /var/lib/rpcrdma-inline (tests)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kver=${1:?usage: dkms-post-build.sh KVER}
state=${RPCRDMA_INLINE_STATE:-/var/lib/rpcrdma-inline}

keep() {
	local pristine=build/$kver/pristine dest=$state/$kver pkgver
	# Built from the kept source itself, or not through dpkg: nothing new
	if [ -f "build/$kver/ksrc" ] || [ ! -d "$pristine" ] || ! command -v dpkg-query >/dev/null; then
		return 0
	fi
	# shellcheck source-path=SCRIPTDIR source=kernel-package.sh
	. "$here/kernel-package.sh"
	pkgver=$(kernel_package "$kver" installed half-configured unpacked triggers-awaited triggers-pending |
		cut -d' ' -f2) || return 0
	mkdir -p "$dest"
	rm -rf "$dest/source.new"
	cp -a "$pristine" "$dest/source.new"
	rm -rf "$dest/source"
	mv "$dest/source.new" "$dest/source"
	printf '%s\n' "$pkgver" >"$dest/version"
	echo "rpcrdma-inline: kept the source of kernel $kver ($pkgver) for its later builds in $dest"
}
if ! keep; then
	echo "rpcrdma-inline: warning: could not keep the source of kernel $kver in $state/$kver" >&2
fi
exec "$here/build-report.sh" "$kver"
