#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Install rpcrdma-inline for the running kernel on an RPM system (Fedora,
# RHEL and its rebuilds, SUSE) through the package system, and load it;
# scripts/install.sh runs this where there is rpm and no dpkg. Such a
# system has no package of exactly the running kernel's source: the source
# is the tree behind /lib/modules/KVER/source (SUSE's kernel-source), the
# source RPM's linux-RELEASE.tar.xz in ~/rpmbuild/SOURCES (RHEL and its
# rebuilds, after dnf download --source and rpm -i: the refusal says how),
# or the one named by KSRC. Its xprtrdma is read first: a host whose source no variant of a
# hook fits, or an OFED host, is refused before anything is installed
# (but patch, xz and tar, which reading it needs). Then dnf (or yum,
# zypper) installs what the build needs, rpmbuild builds the
# rpcrdma-inline-dkms RPM from this tree, and the package manager installs
# it: its %post has DKMS build the module (given KSRC here when it was
# set), and `dnf remove rpcrdma-inline-dkms` takes all of it away.
# rpcrdma is reloaded if nothing uses it.
#
# usage: sudo [KSRC=/path/to/the/kernel/source] scripts/install-rpm.sh
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run me as root: sudo $0"
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
kver=$(uname -r)
pkg=rpcrdma-inline-dkms
given=${KSRC:-}

# shellcheck source-path=SCRIPTDIR source=kernel-package.sh
. "$top/scripts/kernel-package.sh"
pm=
for p in dnf yum zypper; do
	if command -v "$p" >/dev/null; then
		pm=$p
		break
	fi
done
[ -n "$pm" ] ||
	die "no dnf, yum or zypper here: build the package by hand, rpmbuild -bb $top/rpcrdma-inline.spec" \
	    "(README.md, Install), and install it with your package tool."
"$top/scripts/ofed-check.sh" "$kver"

pm_install() { # PACKAGE...
	local rc=0
	echo "rpcrdma-inline: installing $* with $pm" >&2
	case $pm in
	zypper) zypper --non-interactive install "$@" || rc=$? ;;
	*) "$pm" install -y "$@" || rc=$? ;;
	esac
	[ "$rc" = 0 ] ||
		die "$pm could not install $* (exit $rc). dkms comes from EPEL on RHEL and its" \
		    "rebuilds (dnf install epel-release), from the main repositories on Fedora and SUSE."
}
# missing COMMAND=PACKAGE...: the packages of the commands not found
missing() {
	local c
	for c in "$@"; do
		command -v "${c%%=*}" >/dev/null || echo "${c#*=}"
	done
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Does a variant of every hook fit this kernel's source? Read it before
# installing the rest
mapfile -t need < <(missing patch=patch xz=xz tar=tar)
[ ${#need[@]} -eq 0 ] || pm_install "${need[@]}"
ksrc=$("$top/scripts/find-kernel-source.sh" "$kver" 2>"$work/find.log") || {
	cat "$work/find.log" >&2
	die "kernel $kver's own source is needed first (above), then run $0 again" \
	    "(or sudo KSRC=/path/to/it $0). Nothing was installed."
}
KSRC=$ksrc "$top/scripts/prepare-source.sh" "$kver" "$work/shape" >"$work/shape.log" 2>&1 || {
	cat "$work/shape.log" >&2
	die "the source of kernel $kver ($ksrc) does not take the hooks: see above." \
	    "Nothing else was installed; the stock rpcrdma stays in place."
}

# What the build needs: the kernel's headers, unless they are there
mapfile -t need < <(missing dkms=dkms make=make gcc=gcc rpmbuild=rpm-build)
if [ ! -e "${RPCRDMA_INLINE_MODULES_ROOT:-/lib/modules}/$kver/build/include" ]; then
	case $pm in
	zypper) need+=(kernel-default-devel) ;;
	*) need+=("kernel-devel-$kver") ;;
	esac
fi
[ ${#need[@]} -eq 0 ] || pm_install "${need[@]}"

# Build the package from this tree (nothing of the build lands in it)
mkdir -p "$work/rpm/SOURCES" "$work/tree/rpcrdma-inline-$version"
(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$work/tree/rpcrdma-inline-$version"
tar -C "$work/tree" -czf "$work/rpm/SOURCES/rpcrdma-inline-$version.tar.gz" "rpcrdma-inline-$version"
rpmbuild -bb --define "_topdir $work/rpm" "$top/rpcrdma-inline.spec" >"$work/rpm.log" 2>&1 || {
	tail -n 20 "$work/rpm.log" >&2
	die "building the $pkg RPM failed (above); nothing of rpcrdma-inline was installed."
}
rpms=("$work/rpm/RPMS/noarch/$pkg-$version"-*.noarch.rpm)
[ -f "${rpms[0]}" ] || die "rpmbuild made no $pkg-$version RPM (see above)."
# Its %post builds with DKMS: KSRC is passed on to it in the environment
export KSRC=$ksrc
pm_install "${rpms[0]}"
# A %post that could not build (the package manager did not pass KSRC on)
# leaves the module to build here
if ! dkms status "rpcrdma-inline/$version" -k "$kver" 2>/dev/null | grep -q ': installed'; then
	dkms install "rpcrdma-inline/$version" -k "$kver" --force ||
		die "$pkg is installed, but the DKMS build for $kver failed; the stock rpcrdma stays in place." \
		    "See /var/lib/dkms/rpcrdma-inline/$version/build/make.log; '$pm remove $pkg' takes the package out."
fi
[ -z "$given" ] ||
	echo "rpcrdma-inline: for a new kernel, DKMS needs its source too: add KSRC=/path/to/it" \
	     "to MAKE[0] in /etc/dkms/rpcrdma-inline.conf (rpcrdma-inline-dkms's description), or" \
	     "run 'KSRC=... dkms install rpcrdma-inline/$version -k KVER' for it." >&2
# Under enforced signatures with DKMS's key not trusted the kernel would
# refuse ours: the stock module stays loaded (install.sh, the same)
if ! "$top/scripts/check-module-signing.sh" trusted; then
	echo "rpcrdma-inline: $pkg $version is installed, but not loaded: the stock rpcrdma stays loaded" \
	     "until the kernel trusts the key (above)." >&2
	exit 0
fi
"$top/scripts/reload-rpcrdma.sh" "$version"
