#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The kernel-upgrade promise, for real: a machine with only 6.1 and the
# package gets the 6.12 kernel later, and DKMS's kernel hook builds our
# rpcrdma.ko for it with no action on our side; the booted 6.12 loads ours.
# Removal brings the stock module back on both kernels. Without the new
# kernel's linux-source, nothing is installed for it and the admin is told
# the exact apt-get command.
#
# Works on layered overlays of the cached bookworm guest image (never
# written): L1 = the image with every 6.12 package purged + our .deb (DKMS
# builds for 6.1); L2 = L1 + the 6.12 image, headers and linux-source (the
# kernel postinst hook builds for 6.12); L3 = L2 + apt remove of our package;
# L4 = L1 + the 6.12 image and headers only; L5 = L4 + the source and
# dpkg --configure -a, as the admin is told. Bootable root.ext4 images of
# L2 and L3 are booted under QEMU (tests/vm/run-guest.sh) with
# tests/packaging/guest/upgrade-check.sh, which only runs `modprobe rpcrdma`.
# The 6.12 .debs come from the harness's package cache
# (${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/debs/bookworm).
# Needs root, about 8-10 minutes; not in run.sh's default list.
#
# usage: test-upgrade.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

t_all=$SECONDS
version=$(pkg_version)
img=$(image_dir bookworm)
k61=$(image_kver "$img" 6.1)
k612=$(image_kver "$img" 6.12)
pv612=$(awk '$3 == "6.12" { print $2 }' "$img/kernels")
debs=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/debs/bookworm
work=$(mktemp -d "${TMPDIR:-/var/tmp}/rpcrdma-upgrade.XXXXXX")
# The overlay mounts live in private mount namespaces (unshare) and vanish
# with them; nothing is mounted under $work when this runs.
trap 'rm -rf --one-file-system "$work"' EXIT
mkdir -p "$work/pkg"

# boot DIR SERIES EXPECT: run the guest check; its TAP lines are re-numbered
# into ours, then the exit status of run-guest.sh is checked too.
boot() {
	local dir=$1 series=$2 expect=$3 out=$work/out-$2-$3 rc=0 t=$SECONDS line
	"$REPO/tests/vm/run-guest.sh" --image "$dir" --kernel "$series" --out "$out" \
		--script tests/packaging/guest/upgrade-check.sh --timeout 600 --quiet \
		--env "EXPECT=$expect" --env "VERSION=$version" >"$out.log" 2>&1 || rc=$?
	echo "# boot $series ($expect) took $((SECONDS - t)) s"
	guest_tap "$out/guest.log"
	expect_eq "guest $series ($expect): run-guest.sh exits 0" 0 "$rc"
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$out.log" | sed 's/^/#   /'
	fi
}

# The text, as an ERE that matches it literally (kernel names have '+')
ere() {
	# shellcheck disable=SC2001 # a bracket expression, not one substitution
	sed 's/[][\\.*^$+?(){}|]/\\&/g' <<<"$1"
}

# ------------------------------------------------------------------ the .deb
t=$SECONDS
pkg_export "$work/src"
deb=$(build_deb "$work/src") || { tap_end; exit 1; }
cp "$deb" "$work/pkg/"
deb=$(basename "$deb")
echo "# building the .deb took $((SECONDS - t)) s"
tap_ok "built $deb"

# Scripts run in the chroots; each writes NAME=VALUE facts to /tmp/pkg/FILE.
cat >"$work/pkg/common.sh" <<'IN'
# sourced by the chroot scripts
set -uo pipefail
k61=$1 k612=$2 pv612=$3 deb=/tmp/pkg/$4
facts=/tmp/pkg/$FACTS
fact() { printf '%s=%s\n' "$1" "$2" >>"$facts"; }
# image_status KVER: dpkg status of linux-image-KVER (signed or -unsigned)
# (dpkg knows the one not installed as not-installed once it saw its name)
image_status() {
	local p s
	for p in "linux-image-$1" "linux-image-$1-unsigned"; do
		s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || continue
		if [ -n "$s" ] && [ "$s" != not-installed ]; then
			echo "$s"
			return
		fi
	done
	echo not-installed
}
stock_sum() { sha256sum /lib/modules/"$1"/kernel/net/sunrpc/xprtrdma/rpcrdma.ko* 2>/dev/null | cut -d' ' -f1; }
each_kernel() { # PREFIX
	local k
	for k in "$k61" "$k612"; do
		fact "$1.updates.$k" "$(ls /lib/modules/"$k"/updates/dkms 2>/dev/null | paste -sd,)"
		fact "$1.resolves.$k" "$(modinfo -k "$k" -F filename rpcrdma 2>&1)"
		fact "$1.rpcrdma_inline.$k" "$(modinfo -k "$k" -F rpcrdma_inline rpcrdma 2>/dev/null)"
		fact "$1.stock.$k" "$(stock_sum "$k")"
	done
	fact "$1.dkms" "$(dkms status rpcrdma-inline 2>/dev/null | paste -sd';')"
	fact "$1.status" "$(dpkg-query -W -f='${db:Status-Abbrev}' rpcrdma-inline-dkms 2>/dev/null | tr -d ' ')"
}
IN

# L1: purge every 6.12 package (saving their names), install our .deb.
cat >"$work/pkg/l1.sh" <<'IN'
#!/bin/bash
. /tmp/pkg/common.sh
fact stock612 "$(stock_sum "$k612")"
mapfile -t p612 < <(dpkg-query -W -f='${Package} ${Version} ${Architecture}\n' |
	awk -v v="$pv612" '$2 == v { print $1 " " $3 }')
printf '%s\n' "${p612[@]}" >/tmp/pkg/p612.list
dpkg --purge $(printf '%s\n' "${p612[@]}" | cut -d' ' -f1) >/tmp/pkg/l1-purge.log 2>&1
fact purge_rc $?
fact kernels "$(ls /lib/modules | paste -sd' ')"
apt-get install -y "$deb" >/tmp/pkg/l1-install.log 2>&1
fact install_rc $?
each_kernel l1
IN

# L2 / L4: install the 6.12 kernel packages in one apt run (apt has dpkg
# unpack all, configure all); L4 leaves linux-source-6.12 out.
cat >"$work/pkg/upgrade.sh" <<'IN'
#!/bin/bash
. /tmp/pkg/common.sh
files=()
while read -r p a; do
	if [ "$p" = linux-source-6.12 ] && [ "$5" = nosource ]; then continue; fi
	files+=("/tmp/debs/${p}_${pv612#*:}_$a.deb")
done </tmp/pkg/p612.list
fact files "${files[*]}"
apt-get install -y "${files[@]}" >"/tmp/pkg/${FACTS%.facts}-dpkg.log" 2>&1
fact dpkg_rc $?
fact source612 "$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null)"
fact image612 "$(image_status "$k612")"
cp /var/lib/dkms/rpcrdma-inline/*/build/make.log "/tmp/pkg/${FACTS%.facts}-make.log" 2>/dev/null
each_kernel up
IN

# L5 = L4 + what the admin is told to do: install the source (the
# package's trigger builds ours); dpkg --configure -a then has nothing to do
cat >"$work/pkg/recover.sh" <<'IN'
#!/bin/bash
. /tmp/pkg/common.sh
apt-get install -y "/tmp/debs/linux-source-6.12_${pv612#*:}_all.deb" >/tmp/pkg/l5-source.log 2>&1
fact source_rc $?
dpkg --configure -a >/tmp/pkg/l5-configure.log 2>&1
fact configure_rc $?
fact image612 "$(image_status "$k612")"
fact broken "$(dpkg --audit 2>&1 | head -n 3 | paste -sd' ')"
each_kernel rec
IN

cat >"$work/pkg/remove.sh" <<'IN'
#!/bin/bash
. /tmp/pkg/common.sh
apt-get remove -y rpcrdma-inline-dkms >/tmp/pkg/l3-remove.log 2>&1
fact remove_rc $?
each_kernel rm
IN
chmod +x "$work/pkg/"*.sh

rootfs=$img/rootfs
args=("$k61" "$k612" "$pv612" "$deb")

# step LAYER LOWERDIRS SCRIPT WHAT [ARG]: run /tmp/pkg/SCRIPT (with args
# and ARG) in the overlay LOWERDIRS + $work/LAYER, its facts in
# layer.facts (lower case), and check that the run completed
step() {
	local layer=$1 lower=$2 script=$3 what=$4 rc=0 t=$SECONDS
	shift 4
	in_chroot "$work/$layer" "$lower" env FACTS="${layer,,}.facts" "/tmp/pkg/$script" \
		"${args[@]}" "$@" >"$work/${layer,,}.log" 2>&1 || rc=$?
	echo "# $layer ($what) took $((SECONDS - t)) s"
	expect_eq "$layer: the chroot run completed" 0 "$rc"
}

# ------------------------------------------------------------- 1. upgrade
step L1 "$rootfs" l1.sh "purge 6.12, apt install our package: DKMS for 6.1"
expect_eq "L1: the 6.12 packages purge (exit 0)" 0 "$(fact l1.facts purge_rc)"
expect_eq "L1: only 6.1 is left in /lib/modules" "$k61" "$(fact l1.facts kernels)"
expect_eq "L1: apt-get install ./$deb exits 0" 0 "$(fact l1.facts install_rc)"
expect_eq "L1: rpcrdma for $k61 is ours ($version)" "$version" "$(fact l1.facts "l1.rpcrdma_inline.$k61")"
expect_grep "L1: rpcrdma for $k61 resolves to updates/dkms" \
	"^/lib/modules/$(ere "$k61")/updates/dkms/rpcrdma\\.ko" "$(fact l1.facts "l1.resolves.$k61")"

step L2 "$work/L1:$rootfs" upgrade.sh "apt install the 6.12 image, headers, source: the kernel hook builds" withsource
expect_eq "L2: apt-get install of the 6.12 kernel packages exits 0" 0 "$(fact l2.facts dpkg_rc)"
if [ "$(fact l2.facts dpkg_rc)" != 0 ]; then tail -n 20 "$work/pkg/l2-dpkg.log" | sed 's/^/#   /'; fi
expect_grep "L2: dkms status: rpcrdma-inline/$version, $k612: installed" \
	"rpcrdma-inline/$version, $(ere "$k612"), [^:]*: installed" "$(fact l2.facts up.dkms)"
expect_grep "L2: /lib/modules/$k612/updates/dkms/rpcrdma.ko exists" \
	'^rpcrdma\.ko' "$(fact l2.facts "up.updates.$k612")"
expect_eq "L2: modinfo -F rpcrdma_inline for $k612 is $version" "$version" \
	"$(fact l2.facts "up.rpcrdma_inline.$k612")"
expect_grep "L2: rpcrdma for $k612 resolves to updates/dkms" \
	"^/lib/modules/$(ere "$k612")/updates/dkms/rpcrdma\\.ko" "$(fact l2.facts "up.resolves.$k612")"
expect_eq "L2: the stock 6.12 module is the image's" "$(fact l1.facts stock612)" \
	"$(fact l2.facts "up.stock.$k612")"
expect_eq "L2: $k61 still has ours" "$version" "$(fact l2.facts "up.rpcrdma_inline.$k61")"

t=$SECONDS
make_image "$work/L2:$work/L1:$rootfs" "$work/img-ours"
echo "# root.ext4 of L2 took $((SECONDS - t)) s"
boot "$work/img-ours" 6.12 ours

# ------------------------------------------------------------- 3. removal
step L3 "$work/L2:$work/L1:$rootfs" remove.sh "apt remove"
expect_eq "L3: apt-get remove exits 0" 0 "$(fact l3.facts remove_rc)"
for k in "$k61" "$k612"; do
	expect_eq "L3: nothing left in updates/dkms for $k" "" "$(fact l3.facts "rm.updates.$k")"
	expect_grep "L3: rpcrdma for $k resolves to the stock file" \
		"^/lib/modules/$(ere "$k")/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$(fact l3.facts "rm.resolves.$k")"
done
t=$SECONDS
make_image "$work/L3:$work/L2:$work/L1:$rootfs" "$work/img-stock"
echo "# root.ext4 of L3 took $((SECONDS - t)) s"
boot "$work/img-stock" 6.1 stock
boot "$work/img-stock" 6.12 stock

# ---------------------------------------------- 4. no linux-source for 6.12
step L4 "$work/L1:$rootfs" upgrade.sh "apt install the 6.12 image and headers, no source" nosource
expect_eq "L4: linux-source-6.12 is not installed" "" "$(fact l4.facts source612)"
# Where the admin sees it: in apt's output, from the package's kernel
# hook (/etc/kernel/postinst.d/50-rpcrdma-inline), which runs before
# dkms's and never fails the kernel's installation.
need="apt-get install linux-source-6.12=$pv612"
l4out=$(cat "$work/pkg/l4-dpkg.log" 2>/dev/null || true)
expect_eq "L4: apt-get install of the 6.12 image and headers exits 0" 0 "$(fact l4.facts dpkg_rc)"
expect_eq "L4: linux-image-$k612 is installed" installed "$(fact l4.facts image612)"
expect_grep "L4: apt's output says the source of $k612 is missing" \
	"rpcrdma-inline: the source of kernel $(ere "$k612") \\($(ere "$pv612")\\) is not installed" "$l4out"
expect_grep "L4: apt's output names '$need'" "Install it with: $(ere "$need")" "$l4out"
expect_eq "L4: nothing installed in /lib/modules/$k612/updates/dkms" "" "$(fact l4.facts "up.updates.$k612")"
expect_grep "L4: rpcrdma for $k612 resolves to the stock file" \
	"^/lib/modules/$(ere "$k612")/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$(fact l4.facts "up.resolves.$k612")"
expect_eq "L4: the stock 6.12 module file is untouched" "$(fact l1.facts stock612)" \
	"$(fact l4.facts "up.stock.$k612")"
expect_eq "L4: $k61 still has ours" "$version" "$(fact l4.facts "up.rpcrdma_inline.$k61")"

# ------------------------------------ 5. the admin does what L4 told them
step L5 "$work/L4:$work/L1:$rootfs" recover.sh "apt install the source, dpkg --configure -a"
expect_eq "L5: '$need' exits 0" 0 "$(fact l5.facts source_rc)"
expect_eq "L5: dpkg --configure -a exits 0" 0 "$(fact l5.facts configure_rc)"
if [ "$(fact l5.facts configure_rc)" != 0 ]; then tail -n 20 "$work/pkg/l5-configure.log" | sed 's/^/#   /'; fi
expect_eq "L5: linux-image-$k612 is installed" installed "$(fact l5.facts image612)"
expect_eq "L5: dpkg --audit finds nothing" "" "$(fact l5.facts broken)"
expect_eq "L5: modinfo -F rpcrdma_inline for $k612 is $version" "$version" \
	"$(fact l5.facts "rec.rpcrdma_inline.$k612")"
expect_grep "L5: rpcrdma for $k612 resolves to updates/dkms" \
	"^/lib/modules/$(ere "$k612")/updates/dkms/rpcrdma\\.ko" "$(fact l5.facts "rec.resolves.$k612")"
echo "# test-upgrade.sh took $((SECONDS - t_all)) s"
tap_end
