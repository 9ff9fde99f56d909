#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A kernel's installation never fails because of rpcrdma-inline, and ours
# builds by itself when it can: the ways Debian admins upgrade, with
# Debian 12's dkms 3.0.10 (bookworm) or Debian 13's 3.2 (trixie), in
# kept, layered overlay chroots of that release's cached guest image
# (never written), apt installing .deb files of the package cache:
#   P1  a point release in one apt run (6.12.117 -> 6.12.118: the new
#       image, headers and linux-source-6.12, which drops 117's source);
#   P2  then our package upgraded (0.1.0-1 -> -2) and reconfigured
#       before the reboot: 117 is rebuilt from the source kept for it;
#   P3  then the older kernel reinstalled;
#   S1  a new series without its source (bookworm 6.1 -> 6.12, trixie
#       7.2 -> 7.3), S2 then the source installed: the trigger builds;
#   C1  a new series whose headers say no CONFIG_SUNRPC_XPRT_RDMA (its
#       headers package rebuilt for the test with that line removed);
#   F1  a build error (an #error added to our source): the kernel's hooks
#       (ours, then dkms's) exit 0 showing make.log's end, the package's
#       reconfiguration fails showing it.
# Each step checks: apt exits 0, dpkg --audit is empty, every kernel has
# an initrd, `modinfo -k` resolves rpcrdma to ours or to stock as
# expected, and apt's own output says what to do. On trixie, S2's end
# state is booted on 7.3 (tests/vm/run-guest.sh, guest/upgrade-check.sh):
# a bare modprobe loads ours (RPCRDMA_INLINE_KHOOKS_BOOT=0 skips it).
# The 6.12.117 packages are fetched with apt-get download (the release's
# apt state of tests/vm/build-image.sh) into
# ${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/debs/DIST-point.
# Needs root; ~20-30 min a release on a loaded 2-core host.
#
# usage: test-kernel-hooks.sh bookworm|trixie [P|S|C|F...]   (default: all)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

dist=${1:?usage: test-kernel-hooks.sh bookworm|trixie [STEP...]}
shift
steps=${*:-P S C F}
case $dist in
bookworm) old_series=6.1 new_series=6.12 ;;
trixie) old_series=7.2 new_series=7.3 ;;
*) echo "unknown release $dist" >&2; exit 2 ;;
esac
t_all=$SECONDS
version=$(pkg_version)
cache=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}
img=$(image_dir "$dist")
k_old=$(image_kver "$img" "$old_series")
k_new=$(image_kver "$img" "$new_series")
k612=$(image_kver "$img" 6.12)
pv_new=$(awk -v s="$new_series" '$3 == s { print $2 }' "$img/kernels")
pv612=$(awk '$3 == "6.12" { print $2 }' "$img/kernels")
debs=$cache/debs/$dist
work=$(mktemp -d "${TMPDIR:-/var/tmp}/rpcrdma-khooks.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT
mkdir -p "$work/pkg"
rootfs=$img/rootfs
echo "# $dist: series $old_series ($k_old) -> $new_series ($k_new); point release 6.12 -> $k612 ($pv612)"

ere() {
	# shellcheck disable=SC2001 # a bracket expression, not one substitution
	sed 's/[][\\.*^$+?(){}|]/\\&/g' <<<"$1"
}

# ------------------------------------------------------------ the .debs
pkg_export "$work/b1/src"
deb1=$(build_deb "$work/b1/src") || { tap_end; exit 1; }
pkg_export "$work/b2/src"
(cd "$work/b2/src" && {
	printf 'rpcrdma-inline (%s-2) unstable; urgency=medium\n\n  * Test upgrade.\n\n -- t <t@example.org>  Mon, 07 Dec 2026 00:00:00 +0000\n\n' "$version"
	cat debian/changelog
} >debian/changelog.new && mv debian/changelog.new debian/changelog)
deb2=$(build_deb "$work/b2/src") || { tap_end; exit 1; }
cp "$deb1" "$work/pkg/v1.deb"
cp "$deb2" "$work/pkg/v2.deb"
tap_ok "built $(basename "$deb1") and $(basename "$deb2")"

# The packages of the image at version $1: "NAME ARCH" lines
image_packages() {
	# shellcheck disable=SC2016 # dpkg-query's fields
	chroot "$rootfs" dpkg-query -W -f='${Package} ${Version} ${Architecture}\n' |
		awk -v v="$1" '$2 == v && $1 ~ /^linux-(image|headers|kbuild|source|base|binary|modules)-/ { print $1 " " $3 }'
}

# The 6.12 point release before the image's, fetched once
point_debs() {
	local dir=$cache/debs/$dist-point a=$cache/apt/$dist up_new up_old pv_old p name
	local -a names=()
	up_new=${pv612%%-*}
	mkdir -p "$dir"
	local -a opts=(-o "Dir::Etc=$a/etc/apt" -o "Dir::State::Lists=$a/lists" -o "Dir::State::status=$a/status"
		-o "Dir::Cache=$a/cache" -o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
		-o Debug::NoLocking=1 -o APT::Architecture=amd64)
	pv_old=$(apt-cache "${opts[@]}" madison linux-source-6.12 | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		sort -V -u | awk -v n="$pv612" '$0 == n { print prev } { prev = $0 }')
	[ -n "$pv_old" ] || return 1
	up_old=${pv_old%%-*}
	while read -r p _; do
		name=${p//$up_new/$up_old}
		names+=("$name=$pv_old")
	done < <(image_packages "$pv612")
	printf '%s\n' "$pv_old" >"$dir/version"
	(cd "$dir" && for n in "${names[@]}"; do
		ls "${n%%=*}_${pv_old#*:}_"*.deb >/dev/null 2>&1 || apt-get "${opts[@]}" -q download "$n" >/dev/null 2>&1 ||
			apt-get "${opts[@]}" -q download "${n%%=*}-unsigned=$pv_old" >/dev/null
	done)
	cp "$dir"/*.deb "$work/pkg/"
	echo "$pv_old"
}

# Facts, written by the chroot script to /tmp/pkg/FACTS: NAME=VALUE
cat >"$work/pkg/common.sh" <<'IN'
set -uo pipefail
facts=/tmp/pkg/$FACTS
fact() { printf '%s=%s\n' "$1" "$2" >>"$facts"; }
# run NAME CMD...: its output in /tmp/pkg/NAME.out, its status as NAME.rc
run() {
	local n=$1
	shift
	"$@" >"/tmp/pkg/$n.out" 2>&1
	fact "$n.rc" $?
}
state() {
	local k
	fact kernels "$(ls /lib/modules | paste -sd' ')"
	for k in $(ls /lib/modules); do
		fact "resolves.$k" "$(modinfo -k "$k" -F filename rpcrdma 2>&1)"
		fact "ours.$k" "$(modinfo -k "$k" -F rpcrdma_inline rpcrdma 2>/dev/null)"
		if [ -f "/boot/initrd.img-$k" ]; then fact "initrd.$k" yes; else fact "initrd.$k" no; fi
		fact "kept.$k" "$(cat /var/lib/rpcrdma-inline/$k/version 2>/dev/null)"
		fact "keptkb.$k" "$(du -sk /var/lib/rpcrdma-inline/$k 2>/dev/null | cut -f1)"
	done
	fact audit "$(dpkg --audit 2>&1 | paste -sd' ')"
	fact ourstatus "$(dpkg-query -W -f='${db:Status-Abbrev}' rpcrdma-inline-dkms 2>/dev/null | tr -d ' ')"
}
# pkgfiles VERSION [SKIP-REGEX]: the .debs of the packages listed in
# /tmp/pkg/list-VERSION (NAME ARCH lines), from /tmp/pkg or /tmp/debs
pkgfiles() {
	local p a f
	while read -r p a; do
		if [ -n "${2:-}" ] && [[ $p =~ $2 ]]; then continue; fi
		for f in "/tmp/pkg/${p}_${1#*:}_$a.deb" "/tmp/debs/${p}_${1#*:}_$a.deb"; do
			if [ -f "$f" ]; then echo "$f"; break; fi
		done
	done <"/tmp/pkg/list-$1"
}
# purge VERSION...: every package of those versions
purge() {
	local v
	for v in "$@"; do
		dpkg-query -W -f='${Package} ${Version} ${Architecture}\n' |
			awk -v v="$v" '$2 == v && $1 ~ /^linux-(image|headers|kbuild|source|base|binary|modules)-/ { print $1 " " $3 }' >"/tmp/pkg/list-$v"
		dpkg --purge $(cut -d' ' -f1 "/tmp/pkg/list-$v") >/dev/null 2>&1
	done
}
IN

cat >"$work/pkg/step.sh" <<'IN'
#!/bin/bash
. /tmp/pkg/common.sh
step=$1
shift
case $step in
point-base) # $1 = the image's 6.12 version, $2 = the older one; $3 = the other series' versions
	purge "$1" $3
	sed "s/${1%%-*}/${2%%-*}/g" "/tmp/pkg/list-$1" >"/tmp/pkg/list-$2"
	mapfile -t f < <(pkgfiles "$2")
	run install apt-get install -y "${f[@]}" /tmp/pkg/v1.deb
	;;
point) # $1 = the image's 6.12 version: one apt run
	mapfile -t f < <(pkgfiles "$1")
	run apt apt-get install -y "${f[@]}"
	;;
upgrade-ours) # $1 = the kernel taken as running; a stand-in /sys/module/rpcrdma:
	# an older build of ours loaded, then the stock module
	mkdir -p /tmp/sys/module/rpcrdma/parameters
	echo 0123456789ABCDEF0123456 >/tmp/sys/module/rpcrdma/srcversion
	echo 256 >/tmp/sys/module/rpcrdma/parameters/inline_size
	run apt env RPCRDMA_INLINE_SYSFS=/tmp/sys RPCRDMA_INLINE_KVER="$1" apt-get install -y /tmp/pkg/v2.deb
	rm /tmp/sys/module/rpcrdma/parameters/inline_size
	run reconfigure env RPCRDMA_INLINE_SYSFS=/tmp/sys RPCRDMA_INLINE_KVER="$1" dpkg-reconfigure rpcrdma-inline-dkms
	;;
reinstall) # $1 = the older 6.12 version
	mapfile -t f < <(pkgfiles "$1" '^linux-(source|headers|kbuild)')
	run apt apt-get install -y --reinstall "${f[@]}"
	;;
series-base) # $1 = the kept series' kernel, $2... = the versions to purge
	k=$1
	shift
	purge "$@"
	run install apt-get install -y /tmp/pkg/v1.deb
	update-initramfs -c -k "$k" >/dev/null 2>&1
	;;
series) # $1 = the new series' version, $2 = nosource | noconfig
	skip=
	if [ "$2" = nosource ]; then skip='^linux-source-'; fi
	mapfile -t f < <(pkgfiles "$1" "$skip")
	if [ "$2" = noconfig ]; then
		for i in "${!f[@]}"; do
			case ${f[$i]} in */linux-headers-*-amd64_*) f[i]=/tmp/pkg/noconfig-headers.deb ;; esac
		done
	fi
	run apt apt-get install -y "${f[@]}"
	;;
source) # $1 = the new series' version
	mapfile -t f < <(pkgfiles "$1" '^linux-(image|headers|kbuild|base|binary|modules)')
	run apt apt-get install -y "${f[@]}"
	;;
broken) # $1 = the kept series' kernel: a build error in our source
	dkms remove rpcrdma-inline/"$2" -k "$1" >/dev/null 2>&1
	printf '#error rpcrdma-inline test: a build error\n' >>/usr/src/rpcrdma-inline-"$2"/src/wqe_inline.c
	run hooks run-parts --report --exit-on-error --regex '^(50-rpcrdma-inline|dkms)$' --arg="$1" \
		/etc/kernel/postinst.d
	run reconfigure dpkg-reconfigure rpcrdma-inline-dkms
	dpkg --configure -a >/dev/null 2>&1
	;;
esac
state
IN
chmod +x "$work/pkg/"*.sh

# step LAYER LOWERDIRS WHAT ARGS...: run step.sh in the overlay LOWERDIRS +
# $work/LAYER, facts in LAYER.facts
step() {
	local layer=$1 lower=$2 what=$3 rc=0 t=$SECONDS
	shift 3
	in_chroot "$work/$layer" "$lower" env FACTS="$layer.facts" /tmp/pkg/step.sh "$@" \
		>"$work/$layer.log" 2>&1 || rc=$?
	echo "# $dist $layer ($what) took $((SECONDS - t)) s"
	expect_eq "$dist $layer: the chroot run completed" 0 "$rc"
}
out() { cat "$work/pkg/$1" 2>/dev/null || true; }

# check LAYER APT-OUTPUT-NAME OURS-KERNELS STOCK-KERNELS
check() {
	local layer=$1 o=$2 k
	expect_eq "$dist $layer: apt exits 0" 0 "$(fact "$layer.facts" "$o.rc")"
	if [ "$(fact "$layer.facts" "$o.rc")" != 0 ]; then out "$o.out" | tail -n 25 | sed 's/^/#   /'; fi
	expect_eq "$dist $layer: dpkg --audit is empty" "" "$(fact "$layer.facts" audit)"
	expect_eq "$dist $layer: rpcrdma-inline-dkms is installed" ii "$(fact "$layer.facts" ourstatus)"
	for k in $(fact "$layer.facts" kernels); do
		expect_eq "$dist $layer: $k has an initrd" yes "$(fact "$layer.facts" "initrd.$k")"
	done
	for k in $3; do
		expect_grep "$dist $layer: rpcrdma for $k resolves to ours in updates/dkms" \
			"^/lib/modules/$(ere "$k")/updates/dkms/rpcrdma\\.ko" "$(fact "$layer.facts" "resolves.$k")"
		expect_eq "$dist $layer: modinfo rpcrdma_inline for $k" "$version" "$(fact "$layer.facts" "ours.$k")"
	done
	for k in $4; do
		expect_grep "$dist $layer: rpcrdma for $k resolves to the stock module" \
			"^/lib/modules/$(ere "$k")/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$(fact "$layer.facts" "resolves.$k")"
	done
}

# --------------------------------------------- P: point release, upgrade, reinstall
if [[ " $steps " == *" P "* ]]; then
	pv_old=$(point_debs) || { tap_fail "$dist: fetch the 6.12 point release before $pv612"; tap_end; exit 1; }
	k_older=${k612//${pv612%%-*}/${pv_old%%-*}}
	others=$(awk '$3 != "6.12" { print $2 }' "$img/kernels" | paste -sd' ')
	image_packages "$pv612" >"$work/pkg/list-$pv612"
	step P0 "$rootfs" "6.12 $pv_old only, our package" point-base "$pv612" "$pv_old" "$others"
	check P0 install "$k_older" ""
	expect_eq "$dist P0: the source of $k_older is kept, stamped $pv_old" "$pv_old" "$(fact P0.facts "kept.$k_older")"
	kb=$(fact P0.facts "keptkb.$k_older")
	expect "$dist P0: the kept source is under 1 MB (${kb:-?} KiB)" test "${kb:-9999}" -lt 1024

	step P1 "$work/P0:$rootfs" "point release $pv_old -> $pv612 in one apt run" point "$pv612"
	check P1 apt "$k_older $k612" ""
	expect_eq "$dist P1: the source of $k612 is kept, stamped $pv612" "$pv612" "$(fact P1.facts "kept.$k612")"

	step P2 "$work/P1:$work/P0:$rootfs" "our package upgraded and reconfigured before the reboot" upgrade-ours "$k612"
	check P2 apt "$k_older $k612" ""
	expect_eq "$dist P2: dpkg-reconfigure exits 0" 0 "$(fact P2.facts reconfigure.rc)"
	expect_grep "$dist P2: apt's output: $k_older is built from the source kept for it" \
		"kernel $(ere "$k_older") \\($(ere "$pv_old")\\) is built from the source kept" "$(out apt.out)"
	expect_eq "$dist P2: no downgrade advised" "" "$(grep -E "linux-source-6\\.12=$(ere "$pv_old")" <<<"$(out apt.out)" || true)"
	expect_grep "$dist P2: the upgrade says an older build of ours is loaded, and what to run" \
		"the rpcrdma loaded now is an older build of rpcrdma-inline" "$(out apt.out)"
	expect_grep "$dist P2: ... the next load takes ours, $version, in updates/dkms" \
		"^  rpcrdma-inline $(ere "$version") \\(/lib/modules/.*/updates/dkms/rpcrdma\\.ko" "$(out apt.out)"
	expect_grep "$dist P2: ... modprobe -r rpcrdma && modprobe rpcrdma" \
		"modprobe -r rpcrdma && modprobe rpcrdma" "$(out apt.out)"
	expect_grep "$dist P2: dpkg-reconfigure says the stock module is loaded" \
		"the rpcrdma loaded now is the stock module" "$(out reconfigure.out)"
	cp "$work/pkg/apt.out" "$work/P2-apt.out"

	step P3 "$work/P2:$work/P1:$work/P0:$rootfs" "the older kernel $k_older reinstalled" reinstall "$pv_old"
	check P3 apt "$k_older $k612" ""
	expect_eq "$dist P3: the source kept for $k_older stays through its reinstall" "$pv_old" \
		"$(fact P3.facts "kept.$k_older")"
fi

# --------------------------------------------- S: a new series, its source later
image_packages "$pv_new" >"$work/pkg/list-$pv_new"
purge_versions=$(awk -v s="$old_series" '$3 != s { print $2 }' "$img/kernels" | paste -sd' ')
if [[ " $steps " == *" S "* || " $steps " == *" C "* || " $steps " == *" F "* ]]; then
	# shellcheck disable=SC2086 # one version a word
	step S0 "$rootfs" "$old_series only, our package" series-base "$k_old" $purge_versions
	check S0 install "$k_old" ""
fi
srcpkg_new=linux-source-$new_series
if [[ " $steps " == *" S "* ]]; then
	step S1 "$work/S0:$rootfs" "the $new_series image and headers, no source" series "$pv_new" nosource
	check S1 apt "$k_old" "$k_new"
	need="apt-get install $srcpkg_new=$pv_new"
	expect_grep "$dist S1: apt's output names '$need'" "Install it with: $(ere "$need")" "$(out apt.out)"
	expect_grep "$dist S1: apt's output says ours then builds by itself" \
		"rpcrdma-inline builds for kernel $(ere "$k_new") by itself" "$(out apt.out)"
	cp "$work/pkg/apt.out" "$work/S1-apt.out"

	step S2 "$work/S1:$work/S0:$rootfs" "$srcpkg_new installed later: the trigger builds" source "$pv_new"
	check S2 apt "$k_old $k_new" ""
	expect_grep "$dist S2: apt's output shows the trigger's build for $k_new" \
		"rpcrdma-inline: building for kernel $(ere "$k_new")" "$(out apt.out)"
	# Boot that end state: a bare modprobe loads ours
	if [ "$dist" = trixie ] && [ "${RPCRDMA_INLINE_KHOOKS_BOOT:-1}" = 1 ]; then
		t=$SECONDS
		make_image "$work/S2:$work/S1:$work/S0:$rootfs" "$work/img-s2"
		rc=0
		"$REPO/tests/vm/run-guest.sh" --image "$work/img-s2" --kernel "$new_series" --out "$work/out-s2" \
			--script tests/packaging/guest/upgrade-check.sh --timeout 900 --quiet \
			--env EXPECT=ours --env "VERSION=$version" >"$work/out-s2.log" 2>&1 || rc=$?
		echo "# $dist S2: the guest boot of $k_new took $((SECONDS - t)) s"
		guest_tap "$work/out-s2/guest.log"
		expect_eq "$dist S2: the guest on $k_new ran (run-guest.sh exits 0)" 0 "$rc"
		if [ "$rc" -ne 0 ]; then tail -n 20 "$work/out-s2.log" | sed 's/^/#   /'; fi
	fi
fi

# --------------------------------------------- C: no CONFIG_SUNRPC_XPRT_RDMA
if [[ " $steps " == *" C "* ]]; then
	h=$debs/linux-headers-${k_new}_${pv_new#*:}_amd64.deb
	rm -rf "$work/hdr"
	dpkg-deb -R "$h" "$work/hdr"
	sed -i '/^CONFIG_SUNRPC_XPRT_RDMA=/d' "$work/hdr/usr/src/linux-headers-$k_new/.config"
	dpkg-deb -b -Zxz "$work/hdr" "$work/pkg/noconfig-headers.deb" >/dev/null
	rm -rf "$work/hdr"
	step C1 "$work/S0:$rootfs" "$new_series whose headers have no CONFIG_SUNRPC_XPRT_RDMA" series "$pv_new" noconfig
	check C1 apt "$k_old" "$k_new"
	expect_grep "$dist C1: apt's output says $k_new has no NFS over RDMA" \
		"kernel $(ere "$k_new") is built without NFS over RDMA" "$(out apt.out)"
fi
# --------------------------------------------- F: a real build error
if [[ " $steps " == *" F "* ]]; then
	step F1 "$work/S0:$rootfs" "a build error: the kernel hooks, then dpkg-reconfigure" broken "$k_old" "$version"
	expect_eq "$dist F1: the kernel's hooks (ours, then dkms's) exit 0" 0 "$(fact F1.facts hooks.rc)"
	expect_grep "$dist F1: the hooks say the build for $k_old failed, the stock module serves it" \
		"the build for kernel $(ere "$k_old") failed; the stock rpcrdma module serves it" "$(out hooks.out)"
	expect_grep "$dist F1: ... and show make.log's end" "#error rpcrdma-inline test: a build error" "$(out hooks.out)"
	expect "$dist F1: dpkg-reconfigure fails (exit $(fact F1.facts reconfigure.rc))" \
		test "$(fact F1.facts reconfigure.rc)" != 0
	expect_grep "$dist F1: ... showing make.log's end" "#error rpcrdma-inline test: a build error" "$(out reconfigure.out)"
	expect_grep "$dist F1: rpcrdma for $k_old resolves to the stock module" \
		"^/lib/modules/$(ere "$k_old")/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$(fact F1.facts "resolves.$k_old")"
fi
echo "# test-kernel-hooks.sh $dist took $((SECONDS - t_all)) s"
tap_end
