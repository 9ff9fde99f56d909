#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The source package a message names is the one the platform has: Debian's
# linux-source-X.Y, Ubuntu's linux-source-X.Y.Z and, for an HWE kernel,
# linux-hwe-X.Y-source-X.Y.Z, each at the kernel package's version; on an
# RPM system, the source RPM and KSRC. scripts/find-kernel-source.sh runs
# on the host against a stand-in dpkg-query (tests/package-names) holding
# real package names and versions of those distributions: Debian's from
# its archive (apt), Ubuntu's from its pool (linux-source-6.8.0
# 6.8.0-45.45 in noble; linux-hwe-5.15-source-5.15.0
# 5.15.0-72.79~20.04.1, pool/main/l/linux-hwe-5.15 in focal). On the RPM
# host: RHEL's commands (the source repository, dnf download --source,
# rpm -i), SUSE's (zypper install kernel-source=VERSION-RELEASE), the
# source RPM's tarball found in ~/rpmbuild/SOURCES, a kernel-devel tree
# refused for what it lacks, and a tree or tarball of another release
# refused naming both. And scripts/dkms-pre-build.sh: skipped (77) without
# the source or CONFIG_SUNRPC_XPRT_RDMA, the kept source taken, no downgrade.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fake=$REPO/tests/package-names
find=$REPO/scripts/find-kernel-source.sh

# case NAME KVER WANT DBLINE...: with a dpkg database of DBLINEs, the
# lookup of KVER fails and its message holds WANT
case_dpkg() {
	local name=$1 kver=$2 want=$3 rc=0
	shift 3
	printf '%s\n' "$@" >"$work/db"
	FAKE_DPKG_DB=$work/db PATH="$fake:$PATH" RPCRDMA_INLINE_MODULES_ROOT=$work/none \
		"$find" "$kver" >"$work/out" 2>&1 || rc=$?
	expect "$name: refused (exit $rc)" test "$rc" -eq 1
	expect "$name: says $want" grep -qF -- "$want" "$work/out"
	grep -F 'Install it with' "$work/out" | sed 's/^/# /' || true
}

case_dpkg "Debian 12, 6.1" 6.1.0-57-amd64 "apt-get install linux-source-6.1=6.1.192-3" \
	"linux-image-6.1.0-57-amd64 6.1.192-3 installed"
case_dpkg "Debian 12, 6.12 (unsigned image)" 6.12.118+deb12-amd64 \
	"apt-get install linux-source-6.12=6.12.118-1~deb12u1" \
	"linux-image-6.12.118+deb12-amd64-unsigned 6.12.118-1~deb12u1 installed"
case_dpkg "Debian 13, 7.3 from trixie-backports" 7.3.4+deb13-amd64 \
	"apt-get install linux-source-7.3=7.3.4-1~bpo13+1" \
	"linux-image-7.3.4+deb13-amd64 7.3.4-1~bpo13+1 installed"
case_dpkg "Ubuntu 24.04, 6.8" 6.8.0-45-generic "apt-get install linux-source-6.8.0=6.8.0-45.45" \
	"linux-image-6.8.0-45-generic 6.8.0-45.45 installed"
case_dpkg "Ubuntu 24.04, 6.8, only the unsigned image" 6.8.0-45-generic \
	"apt-get install linux-source-6.8.0=6.8.0-45.45" \
	"linux-image-unsigned-6.8.0-45-generic 6.8.0-45.45 installed"
case_dpkg "Ubuntu 20.04 HWE, 5.15" 5.15.0-72-generic \
	"apt-get install linux-hwe-5.15-source-5.15.0=5.15.0-72.79~20.04.1" \
	"linux-image-5.15.0-72-generic 5.15.0-72.79~20.04.1 installed"
case_dpkg "Ubuntu 24.04, the source of another upload installed" 6.8.0-45-generic \
	"apt-get install linux-source-6.8.0=6.8.0-45.45" \
	"linux-image-6.8.0-45-generic 6.8.0-45.45 installed" "linux-source-6.8.0 6.8.0-44.44 installed"
case_dpkg "Ubuntu, headers only" 6.8.0-45-generic "apt-get install linux-source-6.8.0=6.8.0-45.45" \
	"linux-headers-6.8.0-45-generic 6.8.0-45.45 installed"
case_dpkg "no kernel package" 6.8.0-45-generic "apt-get install linux-headers-6.8.0-45-generic" \
	"linux-image-6.8.0-44-generic 6.8.0-44.44 installed"

# scripts/dkms-pre-build.sh, on the same stand-in: what DKMS's PRE_BUILD
# and the package's scripts say, and exit 77 ("skipped") where ours cannot
# be built. A kernel tree under $work/modules/KVER/build holds its .config.
pre=$REPO/scripts/dkms-pre-build.sh
# case_pre NAME KVER RC CONFIG-LINE KEPT-VERSION DBLINE...: run in $work/tree
case_pre() {
	local name=$1 kver=$2 want_rc=$3 cfg=$4 kept=$5 rc=0
	shift 5
	printf '%s\n' "$@" >"$work/db"
	rm -rf "$work/modules" "$work/state" "$work/tree"
	mkdir -p "$work/modules/$kver/build" "$work/tree"
	printf 'CONFIG_SUNRPC=m\n%s\n' "$cfg" >"$work/modules/$kver/build/.config"
	if [ -n "$kept" ]; then
		mkdir -p "$work/state/$kver/source"
		echo "$kept" >"$work/state/$kver/version"
	fi
	(cd "$work/tree" && FAKE_DPKG_DB=$work/db PATH="$fake:$PATH" RPCRDMA_INLINE_MODULES_ROOT=$work/modules \
		RPCRDMA_INLINE_STATE=$work/state "$pre" "$kver") >"$work/out" 2>&1 || rc=$?
	expect "pre-build, $name: exit $want_rc (got $rc)" test "$rc" -eq "$want_rc"
	sed 's/^/# /' "$work/out"
}
not_grep() { ! grep -qF -- "$1" "$2"; }
k73=7.3.4+deb13-amd64
img73="linux-image-$k73 7.3.4-1~bpo13+1 installed"
case_pre "no CONFIG_SUNRPC_XPRT_RDMA" "$k73" 77 "# CONFIG_SUNRPC_XPRT_RDMA is not set" "" "$img73"
expect "pre-build, no CONFIG_SUNRPC_XPRT_RDMA: says so" grep -qF "is built without NFS over RDMA" "$work/out"
case_pre "no source" "$k73" 77 CONFIG_SUNRPC_XPRT_RDMA=m "" "$img73"
expect "pre-build, no source: names the apt-get command" \
	grep -qF "Install it with: apt-get install linux-source-7.3=7.3.4-1~bpo13+1" "$work/out"
expect "pre-build, no source: says ours then builds by itself" \
	grep -qF "rpcrdma-inline builds for kernel $k73 by itself" "$work/out"
case_pre "no source, the kept one of this version" "$k73" 0 CONFIG_SUNRPC_XPRT_RDMA=m 7.3.4-1~bpo13+1 "$img73"
expect "pre-build, kept source: says so" grep -qF "is built from the source kept at its last build" "$work/out"
expect "pre-build, kept source: named to make in build/KVER/ksrc" \
	test "$(cat "$work/tree/build/$k73/ksrc" 2>/dev/null)" = "$work/state/$k73/source"
case_pre "no source, the kept one of another version" "$k73" 77 CONFIG_SUNRPC_XPRT_RDMA=m 7.3.4-1~bpo13+0 "$img73"
expect "pre-build, kept source of another version: not taken" test ! -e "$work/tree/build/$k73/ksrc"
case_pre "an older kernel, its linux-source moved on" 7.3.3+deb13-amd64 77 CONFIG_SUNRPC_XPRT_RDMA=y "" \
	"linux-image-7.3.3+deb13-amd64 7.3.3-1~bpo13+1 installed" "linux-source-7.3 7.3.4-1~bpo13+1 installed"
expect "pre-build, older kernel: says the newer kernels are built" grep -qF "the newer kernels are built from linux-source-7.3" "$work/out"
expect "pre-build, older kernel: advises no downgrade" not_grep 'apt-get install linux-source' "$work/out"

# An RPM system: no dpkg-query on PATH, an rpm that knows the kernel
mkdir -p "$work/bin"
for c in bash sed cut grep head readlink dirname cat tr sort; do
	ln -s "$(command -v "$c")" "$work/bin/$c"
done
ln -s "$fake/rpm" "$work/bin/rpm"
rc=0
PATH="$work/bin" RPCRDMA_INLINE_MODULES_ROOT=$work/none \
	"$find" 6.11.4-301.fc41.x86_64 >"$work/out" 2>&1 || rc=$?
expect "Fedora 41: refused (exit $rc)" test "$rc" -eq 1
expect "Fedora 41: names the kernel's source RPM" \
	grep -qF "dnf download --source kernel-core-6.11.4-301.fc41.x86_64" "$work/out"
expect "Fedora 41: says how to name the tree (KSRC)" grep -qF "make KSRC=" "$work/out"
sed 's/^/# /' "$work/out"

# rpm_case NAME KVER WANT... [-- ENV...]: find-kernel-source.sh KVER on the
# RPM host fails, saying each WANT
rpm_case() {
	local name=$1 kver=$2 rc=0 w
	shift 2
	local want=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		want+=("$1")
		shift
	done
	[ $# -eq 0 ] || shift
	env PATH="$work/bin" RPCRDMA_INLINE_MODULES_ROOT="$work/mods" RPCRDMA_INLINE_RPM_SOURCES="$work/none" "$@" \
		"$find" "$kver" >"$work/out" 2>&1 || rc=$?
	for w in "${want[@]}"; do
		grep -qF -- "$w" "$work/out" || {
			sed 's/^/# /' "$work/out"
			tap_fail "$name: says '$w' (exit $rc)"
			return
		}
	done
	expect "$name: refused, saying how to get the source (exit $rc)" test "$rc" -eq 1
}
ln -s "$(command -v basename)" "$work/bin/basename"
rhel=5.14.0-570.32.1.el9_6.x86_64
rpm_case "RHEL 9.6" "$rhel" \
	"subscription-manager repos --enable rhel-9-for-x86_64-baseos-source-rpms" \
	"dnf config-manager --set-enabled baseos-source" \
	"dnf download --source kernel-core-$rhel && rpm -i kernel-5.14.0-570.32.1.el9_6.src.rpm" \
	"rpmbuild/SOURCES/linux-5.14.0-570.32.1.el9_6.tar.xz, where the build looks"
rpm_case "RHEL 8.10 on aarch64" 4.18.0-553.66.1.el8_10.aarch64 \
	"rhel-8-for-aarch64-baseos-source-rpms" "rpm -i kernel-4.18.0-553.66.1.el8_10.src.rpm"
rpm_case "SLES 15 SP6" 6.4.0-150600.23.25-default \
	"zypper install kernel-source=6.4.0-150600.23.25.1"
# The source RPM's tarball, where rpm -i puts it: found; a +debug kernel's
# too (its release is the same)
mkdir -p "$work/SOURCES"
: >"$work/SOURCES/linux-5.14.0-570.32.1.el9_6.tar.xz"
for k in "$rhel" "$rhel+debug"; do
	got=$(PATH="$work/bin" RPCRDMA_INLINE_MODULES_ROOT="$work/mods" RPCRDMA_INLINE_RPM_SOURCES="$work/SOURCES" \
		"$find" "$k" 2>&1 || true)
	expect "$k: the source RPM's tarball is found ($got)" \
		test "$got" = "$work/SOURCES/linux-5.14.0-570.32.1.el9_6.tar.xz"
done
# kernel-devel: /lib/modules/KVER/build and source, a tree whose
# net/sunrpc/xprtrdma/ holds only its Makefile: not taken for the source
mkdir -p "$work/devel/net/sunrpc/xprtrdma" "$work/devel/include/config" "$work/mods/$rhel"
: >"$work/devel/Makefile"
: >"$work/devel/net/sunrpc/xprtrdma/Makefile"
echo "$rhel" >"$work/devel/include/config/kernel.release"
ln -s "$work/devel" "$work/mods/$rhel/build"
ln -s build "$work/mods/$rhel/source"
rpm_case "RHEL 9.6, kernel-devel's tree" "$rhel" \
	"has net/sunrpc/xprtrdma/ without its sources" "dnf download --source kernel-core-$rhel"
rpm_case "RHEL 9.6, KSRC=kernel-devel's tree" "$rhel" \
	"KSRC=$work/devel ($work/devel) has net/sunrpc/xprtrdma/ without its sources" -- KSRC="$work/devel"
# Another release: a tree's kernel.release or the tarball's name
mkdir -p "$work/kit/net/sunrpc/xprtrdma" "$work/kit/include/config"
: >"$work/kit/net/sunrpc/xprtrdma/verbs.c"
: >"$work/kit/net/sunrpc/xprtrdma/svc_rdma_transport.c"
echo "$rhel" >"$work/kit/include/config/kernel.release"
rpm_case "RHEL 9.5's tree for 9.6" 5.14.0-503.40.1.el9_5.x86_64 \
	"is the source of kernel $rhel, not of 5.14.0-503.40.1.el9_5.x86_64" -- KSRC="$work/kit"
rpm_case "RHEL 9.6's tarball for 9.5" 5.14.0-503.40.1.el9_5.x86_64 \
	"is the source of kernel 5.14.0-570.32.1.el9_6, not of 5.14.0-503.40.1.el9_5.x86_64" \
	-- KSRC="$work/SOURCES/linux-5.14.0-570.32.1.el9_6.tar.xz"
tap_end
