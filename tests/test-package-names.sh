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
# 5.15.0-72.79~20.04.1, pool/main/l/linux-hwe-5.15 in focal).
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
