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
#   rpm_source_hint KVER           what to run there to get the source

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
	local pkg
	pkg=$(rpm -qf "/lib/modules/$1" 2>/dev/null | head -n 1 || true)
	echo "its source comes in the kernel's source RPM: dnf download --source ${pkg:-kernel}," \
	     "rpm -i the .src.rpm, rpmbuild -bp ~/rpmbuild/SPECS/kernel.spec, and name the tree" \
	     "it unpacks under ~/rpmbuild/BUILD: make KSRC=/path/to/it"
}
