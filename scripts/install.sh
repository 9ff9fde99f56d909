#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Install rpcrdma-inline for the running kernel through the package
# system, and load it: apt-get installs what the build needs (dkms, the
# kernel's headers, the linux-source package of exactly the running
# kernel's version, and dpkg-dev, debhelper and dh-dkms to build the
# package), dpkg-buildpackage builds rpcrdma-inline-dkms from this tree,
# and apt installs it: DKMS builds and installs the module, and the
# package brings the rpcrdma-inline command and its bench, the man page
# and /etc/modprobe.d/rpcrdma-inline.conf. `apt purge rpcrdma-inline-dkms`
# (or scripts/uninstall.sh) takes all of it away. rpcrdma is reloaded if
# nothing uses it. Where the kernel enforces module signatures (Secure
# Boot, module.sig_enforce=1) and does not trust DKMS's signing key, it
# says how to enroll the key and leaves the stock module loaded. Kernels
# whose headers ship vmlinux with CONFIG_DEBUG_INFO_BTF_MODULES (Debian's
# 6.12 and later) get pahole, which their module builds run, if their
# headers did not bring it.
#
# On an RPM system (rpm, no dpkg) scripts/install-rpm.sh does the same
# with rpmbuild and dnf, yum or zypper.
#
# A host it cannot serve is refused before anything is installed: neither
# dpkg nor rpm, a kernel not from a Debian or Ubuntu package, an OFED RDMA stack,
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
	# An RPM system: the same, with rpmbuild and dnf, yum or zypper
	if on_rpm_system; then
		exec "$top/scripts/install-rpm.sh"
	fi
	die "this script installs with apt, and there is no dpkg here: build it by hand," \
	    "make KSRC=/path/to/the/kernel/source (README.md, Install)"
fi
"$top/scripts/ofed-check.sh" "$kver"
pkg=rpcrdma-inline-dkms
dest="/usr/src/rpcrdma-inline-$version"
# A package owns what it installed: ours is upgraded in place, another's
# is never overwritten
if owner=$(dpkg-query -S "$dest" 2>/dev/null) && [ "${owner%%:*}" != "$pkg" ]; then
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
apt_update() { # once: a fresh machine may have no or stale package lists
	[ "$updated" = 1 ] || apt-get update -qq || die "apt-get update failed: check your apt sources."
	updated=1
}
apt_install() { # PACKAGE...
	echo "rpcrdma-inline: installing $*" >&2
	apt_update
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
	apt_update
	(cd "$work" && apt-get download "$srcpkg=$kpkgver" >/dev/null 2>&1) ||
		die "could not download $srcpkg $kpkgver: it must come from the same suite as the" \
		    "running kernel (Debian's 7.x: trixie-backports; Ubuntu: the -updates or -security" \
		    "pocket of the kernel's release). Nothing else was installed."
	srcdeb=$(ls "$work"/*.deb)
	dpkg-deb --fsys-tarfile "$srcdeb" | tar -x -C "$work" --wildcards '*usr/src/*.tar.*'
	ksrc=$(ls "$work"/usr/src/*.tar.*)
fi
KSRC=$ksrc "$top/scripts/prepare-source.sh" "$kver" "$work/shape" >"$work/shape.log" 2>&1 || {
	cat "$work/shape.log" >&2
	die "the source of kernel $kver ($srcpkg $kpkgver) does not take the hooks:" \
	    "see above. Nothing else was installed; the stock rpcrdma stays in place."
}

# Module signatures: under Secure Boot or module.sig_enforce=1 the kernel
# loads ours only if it trusts the key DKMS signs with; DKMS makes and
# uses that key with openssl, mokutil enrolls it. Said now, checked below
# before the loaded rpcrdma is touched
sig_deps=()
if enforced=$("$top/scripts/check-module-signing.sh" enforced); then
	echo "rpcrdma-inline: the kernel enforces module signatures ($enforced): DKMS signs" \
	     "the module with its key, which the kernel must trust for ours to load." >&2
	sig_deps=(openssl)
	if [ -d /sys/firmware/efi ]; then sig_deps+=(mokutil); fi
fi

# What the build needs, then the package itself, in a second apt run:
# its postinst has DKMS build the module, which needs all of them
# unpacked. dh-dkms carries dh_dkms where it is not in dkms itself.
build_deps=(dkms make gcc "linux-headers-$kver" dpkg-dev debhelper)
apt_update
if apt-cache show dh-dkms >/dev/null 2>&1; then build_deps+=(dh-dkms); fi
mapfile -t need < <(missing "${build_deps[@]}" "${sig_deps[@]}")
[ -z "$srcdeb" ] || need+=("$srcdeb")
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

# A kernel with BTF for modules whose headers ship vmlinux (Debian's 6.12
# and later) has each module build generate BTF with pahole. Debian's
# linux-kbuild of those kernels depends on it; for headers that do not,
# install it here: Debian 12 and 13 package it as pahole (dwarves before
# 1.24-4, and on Ubuntu 22.04)
kbuild=/lib/modules/$kver/build
if [ -f "$kbuild/vmlinux" ] && grep -qsx 'CONFIG_DEBUG_INFO_BTF_MODULES=y' "$kbuild/.config" "$kbuild/include/config/auto.conf" &&
	! command -v pahole >/dev/null; then
	if apt-cache show pahole >/dev/null 2>&1; then apt_install pahole; else apt_install dwarves; fi
fi

# What an earlier install.sh installed without the package (it recorded
# its files) makes way for the package: uninstall.sh takes it out (and
# says so if rpcrdma stays loaded because it is in use)
if [ -f /var/lib/rpcrdma-inline/installed-files ]; then
	echo "rpcrdma-inline: taking out what an earlier scripts/install.sh installed" >&2
	"$top/scripts/uninstall.sh" >&2 || true
	[ ! -f /var/lib/rpcrdma-inline/installed-files ] ||
		die "could not take out what an earlier scripts/install.sh installed (above)."
fi

# Build the package from this tree (nothing of the build lands in it).
# It compiles nothing: -d spares the machine build-essential (g++ and
# all), which dpkg-checkbuilddeps would ask for; debhelper and dh-dkms,
# its real build dependencies, were installed above
mkdir -p "$work/pkg"
(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$work/pkg"
(cd "$work/pkg" && dpkg-buildpackage -us -uc -b -d) >"$work/deb.log" 2>&1 || {
	tail -n 20 "$work/deb.log" >&2
	die "building the $pkg package failed (above); nothing of rpcrdma-inline was installed."
}
deb=$(ls "$work"/"$pkg"_*_all.deb)
echo "rpcrdma-inline: installing $(basename "$deb")" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	-o Dpkg::Options::=--force-confold "$deb" || {
	dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | grep -q '^i' ||
		die "apt could not install $(basename "$deb"); nothing of rpcrdma-inline was installed."
	die "the DKMS build failed; the stock rpcrdma stays in place." \
	    "See /var/lib/dkms/rpcrdma-inline/$version/build/make.log; 'apt purge $pkg' takes the package out."
}
dkms status "rpcrdma-inline/$version" -k "$kver" 2>/dev/null | grep -q ': installed' ||
	die "$pkg is installed, but DKMS did not install the module for $kver." \
	    "See /var/lib/dkms/rpcrdma-inline/$version/build/make.log; 'apt purge $pkg' takes the package out."

# Under enforced signatures with DKMS's key not trusted, the kernel would
# refuse ours: the stock module stays loaded (and is what modprobe loads,
# through the package's install rule) until the key is enrolled
if ! "$top/scripts/check-module-signing.sh" trusted; then
	echo "rpcrdma-inline: $pkg $version is installed, but not loaded: the stock rpcrdma stays" \
	     "loaded, and 'modprobe rpcrdma' loads it in place of ours until the kernel trusts the key" \
	     "(above). 'rpcrdma-inline status' says which rpcrdma is loaded and why." >&2
	exit 0
fi
"$top/scripts/reload-rpcrdma.sh" "$version"
