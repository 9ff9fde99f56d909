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
#
# With "sig-enforce", the same on a machine that enforces module
# signatures and lacks pahole: Debian 12's 6.12 kernel (its headers ship
# vmlinux, so the build generates BTF with pahole) booted with
# module.sig_enforce=1, with dwarves and pahole purged too; its guest half
# is guest/install-sig-enforce.sh.
# usage: test-install-script.sh [sig-enforce]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

mode=${1:-plain}
case $mode in
plain) series=6.1 guest_script=install-script.sh append='' purge_more='' ;;
sig-enforce) series=6.12 guest_script=install-sig-enforce.sh append=module.sig_enforce=1 purge_more='|dwarves|pahole' ;;
*) echo "usage: $0 [sig-enforce]" >&2; exit 2 ;;
esac
t_all=$SECONDS
img=$(image_dir bookworm)
kver=$(image_kver "$img" "$series")
debs=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/debs/bookworm
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/${guest_script%.sh}"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/rpcrdma-install.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT
mkdir -p "$work/pkg"
rm -rf "$out"
mkdir -p "$out"

# install.sh builds the package: debhelper and dh-dkms, which the image
# lacks, and what they need beyond it, downloaded once into the cache
# beside the image's own packages (dpkg-dev is among those); where
# signatures are enforced, it installs openssl too (DKMS signs with it)
t=$SECONDS
fetch=(debhelper dh-dkms)
[ "$mode" != sig-enforce ] || fetch+=(openssl)
lack=()
for p in "${fetch[@]}"; do
	ls "$debs/${p}"_*.deb >/dev/null 2>&1 || lack+=("$p")
done
if [ ${#lack[@]} -gt 0 ]; then
	mkdir -p "$work/pkg/dl/partial"
	in_chroot "$work/dl" "$img/rootfs" bash -c 'apt-get update -qq &&
		apt-get install -y -qq --download-only -o Dir::Cache::archives=/tmp/pkg/dl "$@"' _ "${fetch[@]}" \
		>"$out/download.log" 2>&1 || {
		tail -n 20 "$out/download.log"
		echo "downloading ${fetch[*]} for the mirror failed"
		exit 1
	}
	cp -n "$work/pkg/dl"/*.deb "$debs/"
	echo "# ${fetch[*]} and what they need: $(find "$work/pkg/dl" -name '*.deb' | wc -l) packages, downloaded in $((SECONDS - t)) s"
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
# (sig-enforce: dwarves and pahole too)
printf 'purge_more=%q\n' "$purge_more" >"$work/pkg/fresh.env"
cat >"$work/pkg/fresh.sh" <<'IN'
#!/bin/bash
set -uo pipefail
. /tmp/pkg/fresh.env
fact() { printf '%s=%s\n' "$1" "$2" >>/tmp/pkg/fresh.facts; }
mapfile -t purge < <(dpkg-query -W -f='${Package}\n' | grep -E \
	"^(dkms|dh-dkms|debhelper|build-essential|gcc|gcc-[0-9]+|g\\+\\+|g\\+\\+-[0-9]+|make|dpkg-dev|linux-(headers|kbuild|source|compiler-gcc)-.*$purge_more)\$")
fact purge "${purge[*]}"
apt-get purge -y --auto-remove "${purge[@]}" >/tmp/pkg/purge.log 2>&1
fact purge_rc $?
left=()
for p in dkms gcc make dpkg-dev debhelper linux-source-6.1 nfs-kernel-server rdma-core kmod; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed && left+=("$p")
done
fact left "${left[*]}"
btf=()
for p in dwarves pahole; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed && btf+=("$p")
done
fact btf_left "${btf[*]}"
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
if [ "$mode" = sig-enforce ]; then
	expect_eq "fresh: neither dwarves nor pahole is left" "" "$(fact fresh.facts btf_left)"
fi

t=$SECONDS
make_image "$work/fresh:$img/rootfs" "$work/img" 2048
echo "# root.ext4 of the fresh machine took $((SECONDS - t)) s"

t=$SECONDS
rc=0
# A guard against a hang, not a limit on speed: apt, then DKMS building
# the module (with BTF on 6.12) under TCG took over 3600 s on a 2-core
# host running four other guests
"$REPO/tests/vm/run-guest.sh" --image "$work/img" --kernel "$kver" --out "$out/guest" \
	--share "$work/src" --script "tests/packaging/guest/$guest_script" ${append:+--append "$append"} \
	--timeout "${RPCRDMA_INLINE_GUEST_TIMEOUT:-7200}" --quiet >"$out/run-guest.log" 2>&1 || rc=$?
echo "# the guest ($guest_script on $kver${append:+, $append}) took $((SECONDS - t)) s"
guest_tap "$out/guest/guest.log"
expect_eq "run-guest.sh exits 0 (script passed, no kernel warning)" 0 "$rc"
if [ "$rc" -ne 0 ]; then tail -n 20 "$out/run-guest.log" | sed 's/^/#   /'; fi
echo "# test-install-script.sh took $((SECONDS - t_all)) s"
tap_end
