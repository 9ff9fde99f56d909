#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The README's install command, `sudo scripts/install.sh`, on a fresh
# Debian 12 machine with the repo checked out: a copy of the cached bookworm
# guest image with dkms, the compiler, make and every linux-headers,
# linux-kbuild and linux-source package purged, whose only apt source is a
# local mirror of the harness's package cache (the guest has no network).
# The 6.1 guest then runs tests/packaging/guest/install-script.sh: apt
# installs the build dependencies, install.sh builds the rpcrdma-inline-dkms
# package and apt installs it, DKMS builds in the guest, the module is
# loaded and carries NFS over soft RoCE; scripts/uninstall.sh purges the
# package and brings the stock module back.
#
# Under TCG the guest's apt install and DKMS build took 30 minutes on a
# loaded 2-core host (the test: 33 minutes); tests/run.sh starts it first.
# usage: test-install-script.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

t_all=$SECONDS
img=$(image_dir bookworm)
kver=$(image_kver "$img" 6.1)
debs=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/debs/bookworm
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/install-script"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/rpcrdma-install.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT
mkdir -p "$work/pkg"
rm -rf "$out"
mkdir -p "$out"

# install.sh builds the package: debhelper and dh-dkms, which the image
# lacks, and what they need beyond it, downloaded once into the cache
# beside the image's own packages (dpkg-dev is among those)
t=$SECONDS
if ! ls "$debs"/debhelper_*.deb "$debs"/dh-dkms_*.deb >/dev/null 2>&1; then
	mkdir -p "$work/pkg/dl/partial"
	in_chroot "$work/dl" "$img/rootfs" bash -c 'apt-get update -qq &&
		apt-get install -y -qq --download-only -o Dir::Cache::archives=/tmp/pkg/dl debhelper dh-dkms' \
		>"$out/download.log" 2>&1 || {
		tail -n 20 "$out/download.log"
		echo "downloading debhelper and dh-dkms for the mirror failed"
		exit 1
	}
	cp -n "$work/pkg/dl"/*.deb "$debs/"
	echo "# debhelper, dh-dkms and what they need: $(find "$work/pkg/dl" -name '*.deb' | wc -l) packages, downloaded in $((SECONDS - t)) s"
fi

# The checkout the guest sees as /src, with the apt mirror in its build/
# (which the install copies nothing from)
t=$SECONDS
pkg_export "$work/src"
mirror=$work/src/build/apt
mkdir -p "$mirror"
cp -l "$debs"/*.deb "$mirror/" 2>/dev/null || cp "$debs"/*.deb "$mirror/"
(cd "$mirror" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>/dev/null)
echo "# local apt mirror: $(grep -c '^Package:' "$mirror/Packages") packages, took $((SECONDS - t)) s"

# The fresh machine: purge what scripts/install.sh must install itself
cat >"$work/pkg/fresh.sh" <<'IN'
#!/bin/bash
set -uo pipefail
fact() { printf '%s=%s\n' "$1" "$2" >>/tmp/pkg/fresh.facts; }
mapfile -t purge < <(dpkg-query -W -f='${Package}\n' | grep -E \
	'^(dkms|dh-dkms|debhelper|build-essential|gcc|gcc-[0-9]+|g\+\+|g\+\+-[0-9]+|make|dpkg-dev|linux-(headers|kbuild|source|compiler-gcc)-.*)$')
fact purge "${purge[*]}"
apt-get purge -y --auto-remove "${purge[@]}" >/tmp/pkg/purge.log 2>&1
fact purge_rc $?
left=()
for p in dkms gcc make dpkg-dev debhelper linux-source-6.1 nfs-kernel-server rdma-core kmod; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed && left+=("$p")
done
fact left "${left[*]}"
# The image is built without man pages (mmdebstrap's path-exclude); a
# Debian 12 installed by its installer has them
rm -f /etc/dpkg/dpkg.cfg.d/99mmdebstrap
rm -f /etc/apt/sources.list.d/*
echo 'deb [trusted=yes] file:/src/build/apt ./' >/etc/apt/sources.list
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
apt-get clean
IN
chmod +x "$work/pkg/fresh.sh"
t=$SECONDS
rc=0
in_chroot "$work/fresh" "$img/rootfs" /tmp/pkg/fresh.sh >"$out/fresh.log" 2>&1 || rc=$?
echo "# fresh machine (purged: $(fact fresh.facts purge)) took $((SECONDS - t)) s"
expect_eq "fresh: the chroot run completed" 0 "$rc"
expect_eq "fresh: apt-get purge exits 0" 0 "$(fact fresh.facts purge_rc)"
if [ "$(fact fresh.facts purge_rc)" != 0 ]; then tail -n 20 "$work/pkg/purge.log" | sed 's/^/#   /'; fi
expect_eq "fresh: of dkms, gcc, make, dpkg-dev, debhelper, linux-source-6.1 and the NFS/RDMA userland, only the latter is left" \
	"nfs-kernel-server rdma-core kmod" "$(fact fresh.facts left)"

t=$SECONDS
make_image "$work/fresh:$img/rootfs" "$work/img" 2048
echo "# root.ext4 of the fresh machine took $((SECONDS - t)) s"

t=$SECONDS
rc=0
"$REPO/tests/vm/run-guest.sh" --image "$work/img" --kernel "$kver" --out "$out/guest" \
	--share "$work/src" --script tests/packaging/guest/install-script.sh \
	--timeout 3600 --quiet >"$out/run-guest.log" 2>&1 || rc=$?
echo "# the guest (install, mount, uninstall) took $((SECONDS - t)) s"
guest_tap "$out/guest/guest.log"
expect_eq "run-guest.sh exits 0 (script passed, no kernel warning)" 0 "$rc"
if [ "$rc" -ne 0 ]; then tail -n 20 "$out/run-guest.log" | sed 's/^/#   /'; fi
echo "# test-install-script.sh took $((SECONDS - t_all)) s"
tap_end
