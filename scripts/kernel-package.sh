#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Sourced by find-kernel-source.sh and by the install script: which
# package a kernel came from, and the name of its source package, on
# Debian and on Ubuntu.
#
#   kernel_package KVER STATE...   "PACKAGE VERSION" of the first of the
#                                  kernel's packages (Debian's signed
#                                  linux-image-KVER or its
#                                  linux-image-KVER-unsigned, Ubuntu's
#                                  linux-image-unsigned-KVER, then
#                                  linux-headers-KVER) whose dpkg status is
#                                  one of STATE...; returns 1 if none is
#   kernel_source_package VERSION  the source package built with the kernel
#                                  package of VERSION:
#       Debian  6.1.192-3, 6.12.117-1~deb12u1, 7.3.4-1~bpo13+1
#               -> linux-source-6.1, linux-source-6.12, linux-source-7.3
#       Ubuntu  6.8.0-45.45 (ABI.upload)        -> linux-source-6.8.0
#       Ubuntu HWE 5.15.0-72.79~20.04.1         -> linux-hwe-5.15-source-5.15.0
#   on_rpm_system                  no dpkg, but rpm: the lookup is by KSRC
#                                  or the source RPM's tarball
#   rpm_source_hint KVER           what to run there to get the source:
#                                  RHEL, AlmaLinux, Rocky (KVER .elN), SUSE
#                                  (-default ...), else (Fedora) rpmbuild -bp
#   rpm_kernel_release KVER        KVER without its arch and flavour: the
#                                  release of linux-RELEASE.tar.xz

kernel_package() {
	local kver=$1 pkg status
	shift
	for pkg in "linux-image-$kver" "linux-image-$kver-unsigned" "linux-image-unsigned-$kver" \
		"linux-headers-$kver"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
		[ -n "$status" ] || continue
		case " $* " in
		*" $status "*)
			printf '%s %s\n' "$pkg" "$(dpkg-query -W -f='${Version}' "$pkg")"
			return 0
			;;
		esac
	done
	return 1
}

kernel_source_package() {
	local version=$1 upstream rev series
	upstream=${version%%-*}
	rev=${version#*-}
	series=$(printf '%s\n' "$upstream" | cut -d. -f1-2)
	if [[ $rev =~ ^[0-9]+\.[0-9]+~[0-9]+\.[0-9]+ ]]; then
		echo "linux-hwe-$series-source-$upstream"
	elif [[ $rev =~ ^[0-9]+\.[0-9]+ ]]; then
		echo "linux-source-$upstream"
	else
		echo "linux-source-$series"
	fi
}

on_rpm_system() {
	! command -v dpkg-query >/dev/null && command -v rpm >/dev/null
}

rpm_source_hint() {
	local kver=$1 pkg rel major arch vr
	pkg=$(rpm -qf "/lib/modules/$kver" 2>/dev/null | head -n 1 || true)
	rel=$(rpm_kernel_release "$kver")
	case $kver in
	*.el[0-9]*)
		# RHEL and its rebuilds: the source RPM holds the whole tree as
		# linux-RELEASE.tar.xz, which rpm -i puts in ~/rpmbuild/SOURCES
		major=$(printf '%s\n' "$kver" | sed -E 's/.*\.el([0-9]+).*/\1/')
		arch=${kver##*.}
		case $arch in x86_64 | aarch64 | ppc64le | s390x) ;; *) arch=x86_64 ;; esac
		echo "its source comes in the kernel's source RPM. Enable the source repository" \
		     "(RHEL: subscription-manager repos --enable rhel-$major-for-$arch-baseos-source-rpms;" \
		     "AlmaLinux, Rocky Linux: dnf install dnf-plugins-core && dnf config-manager --set-enabled baseos-source)," \
		     "then: dnf download --source ${pkg:-kernel-$kver} && rpm -i kernel-$rel.src.rpm" \
		     "(it puts ~/rpmbuild/SOURCES/linux-$rel.tar.xz, where the build looks for it; or name it: make KSRC=/path/to/linux-$rel.tar.xz)"
		;;
	*-default | *-azure | *-rt | *-64kb)
		# SUSE: kernel-source at the kernel package's version, which
		# /lib/modules/KVER/source then links to
		vr=
		[ -z "$pkg" ] || vr=$(rpm -q --qf '%{VERSION}-%{RELEASE}' "$pkg" 2>/dev/null) || vr=
		echo "install the kernel's source at its version: zypper install kernel-source=${vr:-VERSION-RELEASE}" \
		     "(the version of ${pkg:-the package that owns /lib/modules/$kver: rpm -qf /lib/modules/$kver});" \
		     "/lib/modules/$kver/source then holds it"
		;;
	*)
		echo "its source comes in the kernel's source RPM: dnf download --source ${pkg:-kernel}," \
		     "rpm -i the .src.rpm, rpmbuild -bp ~/rpmbuild/SPECS/kernel.spec, and name the tree" \
		     "it unpacks under ~/rpmbuild/BUILD: make KSRC=/path/to/it"
		;;
	esac
}
# "5.14.0-570.32.1.el9_6" of 5.14.0-570.32.1.el9_6.x86_64 (and of its
# +debug or +rt flavour): the release a RHEL source RPM is named by
rpm_kernel_release() {
	local r=${1%%+*}
	case $r in
	*.x86_64 | *.aarch64 | *.ppc64le | *.s390x | *.i686) r=${r%.*} ;;
	esac
	printf '%s\n' "$r"
}
