#!/bin/bash
# Install rpcrdma-inline with DKMS for the running kernel and load it:
# apt-get installs what the build needs (dkms, the kernel's headers, the
# linux-source package of exactly the running kernel's version), DKMS
# builds and installs the module, and rpcrdma is reloaded if nothing uses it.
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

# linux-image-KVER, or the same kernel unsigned (linux-image-KVER-unsigned)
kpkgver=
for kpkg in "linux-image-$kver" "linux-image-$kver-unsigned"; do
	kpkgver=$(dpkg-query -W -f='${Version}' "$kpkg" 2>/dev/null) && [ -n "$kpkgver" ] && break
	kpkgver=
done
[ -n "$kpkgver" ] ||
	die "the running kernel $kver is not from a Debian package (linux-image-$kver):" \
	    "install with KSRC=/path/to/its/source dkms install rpcrdma-inline/$version"
series=$(printf '%s\n' "${kpkgver%%-*}" | cut -d. -f1-2)

installed() {
	dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null
}
need=()
for p in dkms make gcc "linux-headers-$kver"; do
	installed "$p" | grep -q '^installed ' || need+=("$p")
done
srcpkg="linux-source-$series"
[ "$(installed "$srcpkg")" = "installed $kpkgver" ] || need+=("$srcpkg=$kpkgver")
if [ ${#need[@]} -gt 0 ]; then
	echo "rpcrdma-inline: installing ${need[*]}" >&2
	# A fresh machine may have no or stale package lists
	apt-get update -qq || die "apt-get update failed: check your apt sources."
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" ||
		die "could not install ${need[*]}. linux-source-$series $kpkgver must come" \
		    "from the same suite as the running kernel (for 7.x: trixie-backports)."
fi

dest="/usr/src/rpcrdma-inline-$version"
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
