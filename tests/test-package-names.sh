#!/bin/bash
# The source package a message names is the one the platform has: Debian's
# linux-source-X.Y, Ubuntu's linux-source-X.Y.Z and, for an HWE kernel,
# linux-hwe-X.Y-source-X.Y.Z, each at the kernel package's version; on an
# RPM system, the source RPM and KSRC. scripts/find-kernel-source.sh runs
# on the host against a stand-in dpkg-query (tests/package-names) holding
# real package names and versions of those distributions: Debian's from
# its archive (apt), Ubuntu's from its pool (linux-source-6.8.0
# 6.8.0-45.45 in noble; linux-hwe-5.15-source-5.15.0
# 5.15.0-72.79~20.04.1, pool/main/l/linux-hwe-5.15 in focal). And
# scripts/dkms-pre-build.sh on the same: skipped (77) without the source or
# CONFIG_SUNRPC_XPRT_RDMA, the kept source taken, no downgrade advised.
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
tap_end
