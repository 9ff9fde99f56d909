#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Can rpcrdma-inline be built for kernel KVER, and from which source?
# DKMS's PRE_BUILD, and the question the package's own scripts ask
# (build-for-kernels) before they ask DKMS to build:
#  - a kernel without CONFIG_SUNRPC_XPRT_RDMA has no rpcrdma to replace;
#  - the kernel's own source, as scripts/find-kernel-source.sh finds it
#    (linux-source-X.Y of exactly the kernel package's version);
#  - else the source kept when ours was last built for this kernel
#    (scripts/dkms-post-build.sh), if stamped with the kernel package's
#    version now installed: then the build takes it (written to
#    build/KVER/ksrc, which the Makefile passes on as KSRC).
# Exit 77 (dkms 3.1 and later: "skipped") when it cannot be built,
# saying why, the one command that makes it build, and that it then
# builds by itself (the package's dpkg trigger on /usr/src).
#
# usage: dkms-pre-build.sh [--check] KVER   (from the top of the tree)
#        --check: only say it, write nothing
# env:   RPCRDMA_INLINE_STATE  instead of /var/lib/rpcrdma-inline (tests)
#        RPCRDMA_INLINE_MODULES_ROOT  instead of /lib/modules (tests)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
if [ $# -ne 1 ]; then
	echo "usage: $0 [--check] KVER" >&2
	exit 2
fi
kver=$1
state=${RPCRDMA_INLINE_STATE:-/var/lib/rpcrdma-inline}
modules=${RPCRDMA_INLINE_MODULES_ROOT:-/lib/modules}

skip() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 77
}

# The kernel's configuration: in its headers, or in /boot
config=
for c in "$modules/$kver/build/.config" "/boot/config-$kver"; do
	if [ -f "$c" ]; then
		config=$c
		break
	fi
done
if [ -n "$config" ] && ! grep -qE '^CONFIG_SUNRPC_XPRT_RDMA=[ym]' "$config"; then
	skip "kernel $kver is built without NFS over RDMA (no CONFIG_SUNRPC_XPRT_RDMA in $config):" \
	     "it has no rpcrdma module to replace, and nothing is built for it."
fi

if msg=$("$here/find-kernel-source.sh" --check "$kver" 2>&1); then
	printf '%s\n' "$msg"
	if [ "$check" = 0 ]; then
		rm -f "build/$kver/ksrc"
	fi
	exit 0
fi

# The source kept at the last build for this kernel, if of the kernel
# package's version installed now (Debian and Ubuntu)
kept=$state/$kver
if [ -d "$kept/source" ] && [ -f "$kept/version" ] && command -v dpkg-query >/dev/null; then
	# shellcheck source-path=SCRIPTDIR source=kernel-package.sh
	. "$here/kernel-package.sh"
	pkgver=$(kernel_package "$kver" installed half-configured unpacked triggers-awaited triggers-pending |
		cut -d' ' -f2 || true)
	if [ -n "$pkgver" ] && [ "$(head -n 1 "$kept/version")" = "$pkgver" ]; then
		echo "rpcrdma-inline: kernel $kver ($pkgver) is built from the source kept at its last build, $kept/source"
		if [ "$check" = 0 ]; then
			mkdir -p "build/$kver"
			printf '%s\n' "$kept/source" >"build/$kver/ksrc"
		fi
		exit 0
	fi
fi

# An older kernel whose linux-source-X.Y has since moved on to a newer
# kernel's version: installing the older source would take it from the
# newer kernel, so nothing to run
if command -v dpkg-query >/dev/null; then
	# shellcheck source-path=SCRIPTDIR source=kernel-package.sh
	. "$here/kernel-package.sh"
	pkgver=$(kernel_package "$kver" installed half-configured unpacked triggers-awaited triggers-pending |
		cut -d' ' -f2 || true)
	srcpkg=
	srcver=
	if [ -n "$pkgver" ]; then
		srcpkg=$(kernel_source_package "$pkgver")
		srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || true)
	fi
	if [ -n "$srcver" ] && dpkg --compare-versions "$srcver" gt "$pkgver"; then
		skip "kernel $kver ($pkgver) is older than the installed $srcpkg ($srcver), the source of" \
		     "a newer kernel, and no source of its own was kept at a build of ours:" \
		     "ours is not built for kernel $kver, the stock rpcrdma module serves it." \
		     "Nothing to do: the newer kernels are built from $srcpkg."
	fi
fi

# find-kernel-source.sh's reason, with its apt-get command
printf '%s\n' "$msg" >&2
skip "ours is not built for kernel $kver: the stock rpcrdma module serves it." \
     "Once that source is installed, rpcrdma-inline builds for kernel $kver by itself."
