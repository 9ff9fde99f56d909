#!/bin/bash
# Print where the source of kernel KVER is: the KSRC tree or tarball when
# KSRC is set, else the linux-source tarball whose Debian package version
# equals the installed kernel package's. Refuse, naming the apt command
# that installs the right one, when there is none.
#
# usage: find-kernel-source.sh [--check] KVER
#        --check: say it in a sentence ("rpcrdma-inline: kernel KVER is
#        built from PATH"), for dkms.conf's PRE_BUILD, whose output, unlike
#        make's, dkms shows (in apt's output when a kernel is installed)
# env:   KSRC                                  a kernel tree or source tarball
#        RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 accept another version of
#                                              the same series (at your risk)
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

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

if [ -n "${KSRC:-}" ]; then
	[ -d "$KSRC" ] || [ -f "$KSRC" ] ||
		die "KSRC=$KSRC is neither a kernel source tree nor a source tarball."
	found "$KSRC"
fi

if ! command -v dpkg-query >/dev/null; then
	# DKMS's PRE_BUILD does not see a KSRC given on MAKE[0]'s line in
	# /etc/dkms/rpcrdma-inline.conf: leave the verdict to make
	if [ "$check" = 1 ]; then
		echo "rpcrdma-inline: no dpkg here: kernel $kver is built from the KSRC that make is given"
		exit 0
	fi
	die "cannot find the source of kernel $kver without dpkg." \
	    "Name it: make KSRC=/path/to/linux-source.tar.xz (or a kernel tree);" \
	    "for DKMS, on the MAKE[0] line of /etc/dkms/rpcrdma-inline.conf."
fi

pkgver=
for pkg in "linux-image-$kver" "linux-headers-$kver"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	# DKMS's hook in a new kernel's postinst runs while linux-image is
	# half-configured and the headers only unpacked: their files are there
	case $status in
	installed | half-configured | unpacked | triggers-awaited | triggers-pending) ;;
	*) status= ;;
	esac
	if [ -n "$status" ]; then
		pkgver=$(dpkg-query -W -f='${Version}' "$pkg")
		break
	fi
done
[ -n "$pkgver" ] ||
	die "cannot tell which source kernel $kver was built from: neither" \
	    "linux-image-$kver nor linux-headers-$kver is installed." \
	    "Install the headers (apt-get install linux-headers-$kver) or name the" \
	    "source: make KSRC=/path/to/linux-source.tar.xz (or a kernel tree)."

# 6.1.192-3 -> 6.1, 6.12.117-1~deb12u1 -> 6.12, 7.3.4-1~bpo13+1 -> 7.3
upstream=${pkgver%%-*}
series=$(printf '%s\n' "$upstream" | cut -d. -f1-2)
srcpkg="linux-source-$series"
install_cmd="apt-get install $srcpkg=$pkgver"

tarball=
for t in "/usr/src/$srcpkg.tar.xz" "/usr/src/$srcpkg.tar.bz2" "/usr/src/$srcpkg.tar.gz"; do
	if [ -f "$t" ]; then
		tarball=$t
		break
	fi
done
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || true)
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
