#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Take rpcrdma-inline out: purge the rpcrdma-inline-dkms package that
# scripts/install.sh installed (its prerm has DKMS remove the module for
# every kernel; the command, bench, man page and modprobe.d file go with
# it), or, for what an earlier install.sh installed without the package,
# remove it from DKMS and remove the files it recorded
# (/var/lib/rpcrdma-inline/installed-files). Then, if nothing uses
# rpcrdma, load the stock module in its place. An RPM package is the RPM
# tools' to remove: this script says which command does it.
#
# usage: sudo scripts/uninstall.sh
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run me as root: sudo $0"
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
pkg=rpcrdma-inline-dkms

dest="/usr/src/rpcrdma-inline-$version"
if command -v dpkg-query >/dev/null && dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | grep -q '^[ir][^n]'; then
	DEBIAN_FRONTEND=noninteractive apt-get purge -y "$pkg" ||
		die "apt-get purge $pkg failed (above)."
elif command -v dpkg-query >/dev/null && owner=$(dpkg-query -S "$dest" 2>/dev/null); then
	die "rpcrdma-inline was installed by the package ${owner%%:*}: remove it with apt remove ${owner%%:*}"
elif command -v rpm >/dev/null && owner=$(rpm -qf "$dest" 2>/dev/null); then
	die "rpcrdma-inline was installed by the package $owner: remove it with dnf remove ${owner%%-[0-9]*}"
fi
# What is left outside a package: an earlier install.sh's DKMS entry and
# tree, or one added by hand
if dkms status "rpcrdma-inline/$version" 2>/dev/null | grep -q .; then
	dkms remove "rpcrdma-inline/$version" --all
fi
rm -rf "$dest"
manifest=/var/lib/rpcrdma-inline/installed-files
if [ -f "$manifest" ]; then
	while IFS= read -r f; do
		case $f in
		/usr/sbin/rpcrdma-inline | /usr/libexec/rpcrdma-inline/* | /usr/share/man/man8/rpcrdma-inline.8.gz | \
			/etc/modprobe.d/rpcrdma-inline.conf) rm -f "$f" ;;
		*) echo "rpcrdma-inline: $manifest names $f, not one of ours: left alone" >&2 ;;
		esac
	done <"$manifest"
	rmdir /usr/libexec/rpcrdma-inline 2>/dev/null || true
	rm -f "$manifest"
	rmdir /var/lib/rpcrdma-inline 2>/dev/null || true
fi

if [ -f /sys/module/rpcrdma/parameters/inline_size ]; then
	modprobe -r rpcrdma 2>/dev/null ||
		die "removed; our rpcrdma stays loaded while it is in use (NFS/RDMA mounts or nfsd's rdma listener). Unmount and stop the listener, then: modprobe -r rpcrdma && modprobe rpcrdma"
	modprobe rpcrdma
fi
echo "rpcrdma-inline removed; rpcrdma is the stock module: $(modinfo -n rpcrdma)"
