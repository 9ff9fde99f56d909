#!/bin/bash
# Install rpcrdma-inline with DKMS for the running kernel and load it:
# apt-get installs what the build needs (dkms, the kernel's headers, the
# linux-source package of exactly the running kernel's version), DKMS
# builds and installs the module, the files the packages ship beside it
# are installed too (the rpcrdma-inline command and its bench, the man
# page, /etc/modprobe.d/rpcrdma-inline.conf), each recorded in
# /var/lib/rpcrdma-inline/installed-files for scripts/uninstall.sh, and
# rpcrdma is reloaded if nothing uses it. Where the rpcrdma-inline-dkms
# package is installed, it owns all of that: this script stops.
#
# A host it cannot serve is refused before anything is installed: no
# dpkg, a kernel not from a Debian or Ubuntu package, an OFED RDMA stack,
# or a kernel source that no variant of a hook fits (the source package is
# downloaded and its xprtrdma read first; of the build's tools only patch
# and xz-utils, which that needs, may be installed before).
#
# usage: sudo scripts/install.sh      (from the top of the source tree)
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run me as root: sudo $0"
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
kver=$(uname -r)

# shellcheck source-path=SCRIPTDIR source=kernel-package.sh
. "$top/scripts/kernel-package.sh"
if ! command -v dpkg-query >/dev/null; then
	if on_rpm_system; then
		die "this script installs with apt; on an RPM system build and install the package:" \
		    "rpmbuild -bb $top/rpcrdma-inline.spec (README.md, Install). For the kernel source," \
		    "$(rpm_source_hint "$kver")"
	fi
	die "this script installs with apt, and there is no dpkg here: build it by hand," \
	    "make KSRC=/path/to/the/kernel/source (README.md, Install)"
fi
"$top/scripts/ofed-check.sh" "$kver"
dest="/usr/src/rpcrdma-inline-$version"
# A package owns what it installed: never overwrite or delete its files
if owner=$(dpkg-query -S "$dest" 2>/dev/null); then
	die "$dest belongs to the package ${owner%%:*}, which installs rpcrdma-inline already." \
	    "To use this tree instead: apt remove ${owner%%:*}, then run me again."
fi
kpkgver=$(kernel_package "$kver" installed | cut -d' ' -f2 || true)
[ -n "$kpkgver" ] ||
	die "the running kernel $kver is not from a Debian or Ubuntu package (linux-image-$kver):" \
	    "install with KSRC=/path/to/its/source dkms install rpcrdma-inline/$version"
srcpkg=$(kernel_source_package "$kpkgver")

installed() {
	dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null
}
missing() { # PACKAGE...: those not installed
	local p
	for p in "$@"; do
		installed "$p" | grep -q '^installed ' || echo "$p"
	done
}
updated=0
apt_install() { # PACKAGE...
	echo "rpcrdma-inline: installing $*" >&2
	# A fresh machine may have no or stale package lists
	if [ "$updated" = 0 ]; then
		apt-get update -qq || die "apt-get update failed: check your apt sources."
		updated=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" ||
		die "could not install $*. $srcpkg $kpkgver must come" \
		    "from the same suite as the running kernel (Debian's 7.x: trixie-backports;" \
		    "Ubuntu: the -updates or -security pocket of the kernel's release)."
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Does a variant of every hook fit this kernel's source? Read it before
# installing the rest: the installed source package, or the one apt would
# install, downloaded (and installed from that file below)
mapfile -t need < <(missing patch xz-utils)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
srcdeb=
if [ "$(installed "$srcpkg")" = "installed $kpkgver" ]; then
	ksrc=$("$top/scripts/find-kernel-source.sh" "$kver")
else
	[ "$updated" = 1 ] || apt-get update -qq || die "apt-get update failed: check your apt sources."
	updated=1
	(cd "$work" && apt-get download "$srcpkg=$kpkgver" >/dev/null 2>&1) ||
		die "could not download $srcpkg $kpkgver: it must come from the same suite as the" \
		    "running kernel (Debian's 7.x: trixie-backports; Ubuntu: the -updates or -security" \
		    "pocket of the kernel's release). Nothing else was installed."
	srcdeb=$(ls "$work"/*.deb)
	dpkg-deb --fsys-tarfile "$srcdeb" | tar -x -C "$work" --wildcards 'usr/src/*.tar.*'
	ksrc=$(ls "$work"/usr/src/*.tar.*)
fi
KSRC=$ksrc "$top/scripts/prepare-source.sh" "$kver" "$work/shape" >"$work/shape.log" 2>&1 || {
	cat "$work/shape.log" >&2
	die "the source of kernel $kver ($srcpkg $kpkgver) does not take the hooks:" \
	    "see above. Nothing else was installed; the stock rpcrdma stays in place."
}

mapfile -t need < <(missing dkms make gcc "linux-headers-$kver")
[ -z "$srcdeb" ] || need+=("$srcdeb")
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

if dkms status "rpcrdma-inline/$version" 2>/dev/null | grep -q .; then
	dkms remove "rpcrdma-inline/$version" --all >/dev/null
fi
rm -rf "$dest"
mkdir -p "$dest"
(cd "$top" && tar -cf - dkms.conf Makefile Kbuild src include scripts) | tar -xf - -C "$dest"
dkms add "rpcrdma-inline/$version"
dkms install "rpcrdma-inline/$version" -k "$kver" ||
	die "the DKMS build failed; the stock rpcrdma stays in place." \
	    "See /var/lib/dkms/rpcrdma-inline/$version/build/make.log."

# What the packages install beside the module, recorded for uninstall.sh
# (a modprobe.d file the admin changed is kept, as a conffile would be)
manifest=/var/lib/rpcrdma-inline/installed-files
mkdir -p "${manifest%/*}"
: >"$manifest.new"
put() { # MODE SOURCE DEST
	install -D -p -m "$1" "$top/$2" "$3"
	echo "$3" >>"$manifest.new"
}
put 0755 scripts/rpcrdma-inline /usr/sbin/rpcrdma-inline
put 0755 scripts/rpcrdma-inline-bench /usr/libexec/rpcrdma-inline/rpcrdma-inline-bench
put 0755 scripts/rpcrdma-inline-bench-report /usr/libexec/rpcrdma-inline/rpcrdma-inline-bench-report
mkdir -p /usr/share/man/man8
gzip -9nc "$top/scripts/rpcrdma-inline.8" >/usr/share/man/man8/rpcrdma-inline.8.gz
echo /usr/share/man/man8/rpcrdma-inline.8.gz >>"$manifest.new"
conf=/etc/modprobe.d/rpcrdma-inline.conf
if [ ! -e "$conf" ]; then
	put 0644 scripts/rpcrdma-inline.modprobe.conf "$conf"
elif cmp -s "$conf" "$top/scripts/rpcrdma-inline.modprobe.conf"; then
	echo "$conf" >>"$manifest.new"
else
	echo "rpcrdma-inline: $conf was changed; kept as it is" >&2
fi
mv "$manifest.new" "$manifest"

if [ -e /sys/module/rpcrdma ]; then
	if ! modprobe -r rpcrdma 2>/dev/null; then
		echo "rpcrdma-inline: installed; rpcrdma is in use (NFS/RDMA mounts or nfsd's rdma listener), so the stock module stays loaded until it is free: then run 'modprobe -r rpcrdma && modprobe rpcrdma', or reboot." >&2
		exit 0
	fi
fi
modprobe rpcrdma
[ -f /sys/module/rpcrdma/parameters/inline_size ] ||
	die "rpcrdma loaded, but it is not rpcrdma-inline: see 'modinfo -n rpcrdma'."
echo "rpcrdma-inline $version loaded: inline_size=$(cat /sys/module/rpcrdma/parameters/inline_size)"
