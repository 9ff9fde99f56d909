#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Install what the test suite needs on the host (Debian 12): QEMU,
# mmdebstrap and the tools the tests run (and what the debug kernel of the
# deep tier builds with; fio and matplotlib for the bench's host test;
# reuse for the style test's reuse lint).
# Does nothing when all are there.
set -euo pipefail

pkgs=(qemu-system-x86 qemu-utils mmdebstrap busybox-static e2fsprogs cpio
	xz-utils zstd kmod shellcheck make gcc libc6-dev perl git
	flex bison bc libelf-dev libssl-dev
	dpkg-dev debhelper dh-dkms dkms fakeroot rpm lintian
	fio python3-matplotlib reuse)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
[ "$(id -u)" -eq 0 ] || {
	echo "the tests need these packages: apt-get install ${missing[*]}" >&2
	exit 1
}
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
