#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Print where the source of kernel KVER is, looking where distributions
# put it: the KSRC tree or tarball when KSRC is set; else the tree behind
# /lib/modules/KVER/source or /lib/modules/KVER/build when it holds
# net/sunrpc/xprtrdma's sources, not only its Makefile as RHEL's
# kernel-devel (a self-built kernel after make modules_install, SUSE's
# kernel-source), if it is of exactly this kernel's version; on an RPM
# system, the source RPM's linux-RELEASE.tar.xz in ~/rpmbuild/SOURCES
# (RHEL, AlmaLinux, Rocky: after dnf download --source and rpm -i); else
# the tarball of an installed linux-source package whose version equals
# the kernel package's, whatever its name (Debian's linux-source-6.1,
# Ubuntu's linux-source-6.8.0 and linux-hwe-6.8-source-6.8.0). Refuse,
# naming the apt, dnf or zypper commands that install the right one (the
# package names are scripts/kernel-package.sh's), when there is none, and
# a tree or tarball of another release (kernel.release, or the source
# RPM's tarball name).
#
# usage: find-kernel-source.sh [--check] KVER
#        --check: say it in a sentence ("rpcrdma-inline: kernel KVER is
#        built from PATH"), for dkms.conf's PRE_BUILD, whose output, unlike
#        make's, dkms shows (in apt's output when a kernel is installed)
# env:   KSRC                                  a kernel tree or source tarball
#        RPCRDMA_INLINE_MODULES_ROOT           instead of /lib/modules (tests)
#        RPCRDMA_INLINE_RPM_SOURCES            where the source RPM's tarball
#                                              is looked for (default:
#                                              ~/rpmbuild/SOURCES, root's)
#        RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 accept another version of
#                                              the same series (at your risk)
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}
# shellcheck source-path=SCRIPTDIR source=kernel-package.sh
. "$(dirname "$0")/kernel-package.sh"

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
[ $# -eq 1 ] || die "usage: $0 [--check] KVER"
kver=$1

found() {
	if [ "$check" = 1 ]; then
		printf 'rpcrdma-inline: kernel %s is built from %s\n' "$kver" "$1"
	else
		printf '%s\n' "$1"
	fi
	exit 0
}

# has_sources TREE: TREE holds xprtrdma's sources, not only its Makefile
# (as RHEL's kernel-devel and other headers-only trees do)
has_sources() {
	[ -f "$1/net/sunrpc/xprtrdma/verbs.c" ] && [ -f "$1/net/sunrpc/xprtrdma/svc_rdma_transport.c" ]
}
# no_sources WHAT TREE: say what the headers-only TREE lacks, and how to
# get the source
no_sources() {
	local hint="name a tree or tarball of it: make KSRC=..."
	! on_rpm_system || hint="$(rpm_source_hint "$kver")"
	die "$1 ($(readlink -f "$2")) has net/sunrpc/xprtrdma/ without its sources (verbs.c," \
	    "svc_rdma_*.c): a headers-only tree (kernel-devel), which builds modules but lacks the" \
	    "source of the rpcrdma module built here. Kernel $kver's own source is needed: $hint."
}
# A RHEL source RPM's linux-RELEASE.tar.xz, or a tree of that name, or a
# tree whose kernel.release names another kernel: refused, naming both
same_release() { # PATH
	local name rel
	rel=$(rpm_kernel_release "$kver")
	if [ -d "$1" ] && [ -f "$1/include/config/kernel.release" ]; then
		name=$(head -n 1 "$1/include/config/kernel.release")
		[ "$name" = "$kver" ] ||
			die "$1 is the source of kernel $name, not of $kver:" \
			    "the source must be the kernel's own. Name the right one: make KSRC=/path/to/it."
		return 0
	fi
	name=$(basename "$1")
	name=${name%.tar.*}
	case $name in
	linux-[0-9]*.el[0-9]*)
		[ "$(rpm_kernel_release "${name#linux-}")" = "$rel" ] ||
			die "$1 is the source of kernel ${name#linux-}, not of $kver ($rel):" \
			    "the source must be the kernel's own; $(rpm_source_hint "$kver")."
		;;
	esac
}

if [ -n "${KSRC:-}" ]; then
	[ -d "$KSRC" ] || [ -f "$KSRC" ] ||
		die "KSRC=$KSRC is neither a kernel source tree nor a source tarball."
	[ ! -d "$KSRC" ] || has_sources "$KSRC" || no_sources "KSRC=$KSRC" "$KSRC"
	same_release "$KSRC"
	found "$KSRC"
fi

# "6.4.0" of 6.4.0-150600.21-default, "6.8.0" of 6.8-rc1
numeric_version() {
	printf '%s\n' "$1" | sed -E 's/^([0-9]+)\.([0-9]+)(\.([0-9]+))?.*/\1.\2.\4/; s/\.$/.0/'
}

# The tree linked from /lib/modules/KVER, if it has xprtrdma: it must be
# this kernel's own
modules_dir=${RPCRDMA_INLINE_MODULES_ROOT:-/lib/modules}/$kver
headers_only=
for link in source build; do
	tree=$modules_dir/$link
	if [ ! -d "$tree/net/sunrpc/xprtrdma" ] || [ ! -f "$tree/Makefile" ]; then
		continue
	fi
	if ! has_sources "$tree"; then
		headers_only=${headers_only:-$tree}
		continue
	fi
	tree=$(readlink -f "$tree")
	# Its own kernel.release; or the build directory's, if that names this
	# kernel (SUSE: the -obj directory); or else its Makefile's version
	release=
	if [ -f "$tree/include/config/kernel.release" ]; then
		release=$(head -n 1 "$tree/include/config/kernel.release")
	elif [ -f "$modules_dir/build/include/config/kernel.release" ] &&
		[ "$(head -n 1 "$modules_dir/build/include/config/kernel.release")" = "$kver" ]; then
		release=$kver
	fi
	if [ -n "$release" ]; then
		[ "$release" = "$kver" ] ||
			die "$modules_dir/$link is the source of kernel $release, not of $kver:" \
			    "the source must be the kernel's own. Name the right one: make KSRC=/path/to/it."
	else
		mk=$tree/Makefile
		treever="$(sed -n 's/^VERSION = //p' "$mk").$(sed -n 's/^PATCHLEVEL = //p' "$mk").$(sed -n 's/^SUBLEVEL = //p' "$mk")"
		[ "$treever" = "$(numeric_version "$kver")" ] ||
			die "$modules_dir/$link is Linux $treever, not the $(numeric_version "$kver") of kernel $kver:" \
			    "the source must be the kernel's own. Name the right one: make KSRC=/path/to/it."
	fi
	found "$tree"
done

if ! command -v dpkg-query >/dev/null; then
	# RHEL and its rebuilds: the source RPM's tarball of exactly this
	# release, where rpm -i of the source RPM puts it
	rel=$(rpm_kernel_release "$kver")
	for dir in ${RPCRDMA_INLINE_RPM_SOURCES:-${HOME:-/root}/rpmbuild/SOURCES /root/rpmbuild/SOURCES}; do
		if [ -f "$dir/linux-$rel.tar.xz" ]; then
			found "$dir/linux-$rel.tar.xz"
		fi
	done
	# DKMS's PRE_BUILD does not see a KSRC given on MAKE[0]'s line in
	# /etc/dkms/rpcrdma-inline.conf: leave the verdict to make
	if [ "$check" = 1 ]; then
		echo "rpcrdma-inline: no dpkg here: kernel $kver is built from the KSRC that make is given"
		exit 0
	fi
	[ -z "$headers_only" ] || no_sources "$modules_dir/source" "$headers_only"
	hint="Name it: make KSRC=/path/to/linux-source.tar.xz (or a kernel tree)"
	! on_rpm_system || hint="$(rpm_source_hint "$kver")"
	die "cannot find the source of kernel $kver without dpkg." \
	    "${hint^};" \
	    "for DKMS, on the MAKE[0] line of /etc/dkms/rpcrdma-inline.conf."
fi

# DKMS's hook in a new kernel's postinst runs while linux-image is
# half-configured and the headers only unpacked: their files are there
pkgver=$(kernel_package "$kver" installed half-configured unpacked triggers-awaited triggers-pending |
	cut -d' ' -f2 || true)
[ -n "$pkgver" ] ||
	die "cannot tell which source kernel $kver was built from: neither" \
	    "linux-image-$kver nor linux-headers-$kver is installed." \
	    "Install the headers (apt-get install linux-headers-$kver) or name the" \
	    "source: make KSRC=/path/to/linux-source.tar.xz (or a kernel tree)."

srcpkg=$(kernel_source_package "$pkgver")
install_cmd="apt-get install $srcpkg=$pkgver"

tarball=
for t in "/usr/src/$srcpkg.tar.xz" "/usr/src/$srcpkg.tar.bz2" "/usr/src/$srcpkg.tar.gz"; do
	if [ -f "$t" ]; then
		tarball=$t
		break
	fi
done
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || true)

# Another name, or a tarball elsewhere (Ubuntu: in a directory of its
# name): any installed linux-source-* or linux-hwe-*-source-* of exactly
# the kernel's version
if [ "$srcver" != "$pkgver" ] || [ -z "$tarball" ]; then
	while read -r pkg ver state; do
		if [ "$state" != installed ] || [ "$ver" != "$pkgver" ]; then
			continue
		fi
		t=$(dpkg-query -L "$pkg" 2>/dev/null | grep -E '^/usr/src/.*\.tar\.(xz|bz2|gz)$' | head -n 1 || true)
		if [ -n "$t" ] && [ -f "$t" ]; then
			found "$t"
		fi
	done < <(dpkg-query -W -f='${Package} ${Version} ${db:Status-Status}\n' 'linux-source-*' 'linux-hwe-*-source-*' \
		2>/dev/null || true)
fi
if [ -z "$tarball" ] || [ -z "$srcver" ]; then
	die "the source of kernel $kver ($pkgver) is not installed." \
	    "Install it with: $install_cmd" \
	    "(or name a tree or tarball: make KSRC=...)."
fi

if [ "$srcver" != "$pkgver" ]; then
	if [ "${RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH:-0}" != 1 ]; then
		die "$srcpkg is version $srcver, but kernel $kver is $pkgver." \
		    "Install the matching source with: $install_cmd" \
		    "(RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 accepts $srcver, at your own risk)."
	fi
	printf 'rpcrdma-inline: warning: building for %s (%s) from %s %s, as RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 asks\n' \
		"$kver" "$pkgver" "$srcpkg" "$srcver" >&2
fi
found "$tarball"
