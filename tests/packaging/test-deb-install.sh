#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Install the .deb for real, with dpkg, in a throwaway chroot of the cached
# bookworm guest image (tests/vm/chroot-run.sh: an overlay, the image never
# changes), which has dkms and, for each of its kernels (6.1 and 6.12), the
# headers and the linux-source package of the same version:
#   A. without any linux-source tarball: the package configures, nothing is
#      installed for any kernel, the output names each kernel's apt-get
#      command, and the package purges cleanly;
#   B. with them: dkms builds and installs rpcrdma.ko for every kernel in
#      updates/dkms, which modprobe then resolves rpcrdma to, with
#      rpcrdma_inline: VERSION; the stock file is untouched; the installed
#      rpcrdma-inline command sees it;
#   C. removal: dkms remove runs, rpcrdma resolves to the stock file again,
#      the source tree is gone, the conffile stays until purge.
# Slow (about 4 minutes: two DKMS builds and depmods), so not in run.sh's
# default list; builds the guest image first if it is not cached.
#
# usage: test-deb-install.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

version=$(pkg_version)
img=$(image_dir bookworm)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg_export "$work/src"
deb=$(build_deb "$work/src") || { tap_end; exit 1; }
deb=$(basename "$deb")
tap_ok "built $deb"

cat >"$work/inside.sh" <<'EOF'
#!/bin/bash
# Runs in the chroot; writes NAME=VALUE facts to /pkg/facts
set -uo pipefail
deb=/pkg/$1
pkg=rpcrdma-inline-dkms
facts=/pkg/facts
fact() { printf '%s=%s\n' "$1" "$2" >>"$facts"; }
mapfile -t kernels < <(ls /lib/modules)
fact kernels "${kernels[*]}"
stock_sums() {
	for k in "${kernels[@]}"; do
		sha256sum /lib/modules/"$k"/kernel/net/sunrpc/xprtrdma/rpcrdma.ko* | cut -d' ' -f1
	done | paste -sd,
}
each_kernel() {
	local p=$1 k
	for k in "${kernels[@]}"; do
		fact "$p.resolves.$k" "$(modinfo -k "$k" -F filename rpcrdma 2>&1)"
		fact "$p.updates.$k" "$(ls /lib/modules/"$k"/updates/dkms 2>/dev/null | paste -sd,)"
		fact "$p.rpcrdma_inline.$k" "$(modinfo -k "$k" -F rpcrdma_inline rpcrdma 2>/dev/null)"
	done
	fact "$p.dkms" "$(dkms status rpcrdma-inline 2>/dev/null | paste -sd';')"
	fact "$p.status" "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | tr -d ' ')"
}
fact stock_before "$(stock_sums)"

# A: no kernel source
mkdir -p /tmp/hidden
mv /usr/src/linux-source-*.tar.* /tmp/hidden/
dpkg -i "$deb" >/pkg/a-install.log 2>&1
fact a.rc $?
cp /var/lib/dkms/rpcrdma-inline/*/build/make.log /pkg/a-make.log 2>/dev/null
each_kernel a
dpkg -P "$pkg" >/pkg/a-purge.log 2>&1
fact a.purge_rc $?
fact a.after_purge "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | tr -d ' ')|$(dkms status rpcrdma-inline 2>/dev/null)"
mv /tmp/hidden/* /usr/src/

# B: install
dpkg -i "$deb" >/pkg/b-install.log 2>&1
fact b.rc $?
each_kernel b
for k in "${kernels[@]}"; do
	RPCRDMA_INLINE_KVER=$k rpcrdma-inline -p status >"/pkg/b-admin.$k" 2>&1
	fact "b.admin_rc.$k" $?
done
fact b.stock "$(stock_sums)"

# C: remove, then purge
dpkg -r "$pkg" >/pkg/c-remove.log 2>&1
fact c.rc $?
each_kernel c
fact c.stock "$(stock_sums)"
fact c.usr_src "$(ls -d /usr/src/rpcrdma-inline-* 2>/dev/null)"
fact c.conffile "$(ls /etc/modprobe.d/rpcrdma-inline.conf 2>/dev/null)"
dpkg -P "$pkg" >/pkg/c-purge.log 2>&1
fact c.purge_rc $?
fact c.after_purge "$(ls /etc/modprobe.d/rpcrdma-inline.conf 2>/dev/null)|$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | tr -d ' ')"
EOF
chmod +x "$work/inside.sh"

t0=$SECONDS
rc=0
"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work:/pkg" -- \
	/pkg/inside.sh "$deb" >"$work/chroot.log" 2>&1 || rc=$?
echo "# install, remove and purge in the chroot took $((SECONDS - t0)) s"
expect_eq "the chroot run completed" 0 "$rc"
[ "$rc" -eq 0 ] || tail -n 20 "$work/chroot.log" | sed 's/^/#   /'

# The text, as an ERE that matches it literally (kernel names have '+')
ere() {
	# shellcheck disable=SC2001 # a bracket expression, not one substitution
	sed 's/[][\\.*^$+?(){}|]/\\&/g' <<<"$1"
}
fact() {
	awk -v k="$1=" 'index($0, k) == 1 { v = substr($0, length(k) + 1) } END { print v }' \
		"$work/facts" 2>/dev/null
}
read -ra kernels <<<"$(fact kernels)"
expect "the image has kernels to build for (${kernels[*]})" test ${#kernels[@]} -gt 0

# A
expect_eq "A (no linux-source): dpkg -i exits 0, each kernel skipped and named" 0 "$(fact a.rc)"
ainst=$(cat "$work/a-install.log" 2>/dev/null || true)
expect_grep "A: dpkg's output says ours then builds by itself" 'rpcrdma-inline builds for kernel .* by itself' "$ainst"
while read -r k pkgver series; do
	expect_grep "A: the postinst names, for $k, apt-get install linux-source-$series=$pkgver" \
		"Install it with: $(ere "apt-get install linux-source-$series=$pkgver")" "$ainst"
done <"$img/kernels"
for k in "${kernels[@]}"; do
	kq=$(ere "$k")
	expect_eq "A: nothing installed for $k" "" "$(fact "a.updates.$k")"
	expect_grep "A: rpcrdma for $k resolves to the stock file" \
		"^/lib/modules/$kq/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$(fact "a.resolves.$k")"
done
expect_eq "A: the package purges (exit 0)" 0 "$(fact a.purge_rc)"
expect_eq "A: after purge, no package and no dkms entry" "|" "$(fact a.after_purge)"

# B
expect_eq "B: dpkg -i exits 0" 0 "$(fact b.rc)"
expect_eq "B: the package is installed (ii)" ii "$(fact b.status)"
for k in "${kernels[@]}"; do
	kq=$(ere "$k")
	expect_grep "B: dkms status: rpcrdma-inline/$version, $k: installed" \
		"rpcrdma-inline/$version, $kq, [^:]*: installed" "$(fact b.dkms)"
	expect_grep "B: rpcrdma for $k resolves to updates/dkms" \
		"^/lib/modules/$kq/updates/dkms/rpcrdma\\.ko" "$(fact "b.resolves.$k")"
	expect_eq "B: that module says rpcrdma_inline: $version" "$version" "$(fact "b.rpcrdma_inline.$k")"
	admin=$(cat "$work/b-admin.$k" 2>/dev/null || true)
	# (its exit status says which module is loaded: ours 0, stock 5, none 6)
	case $(sed -n 's/^module: //p' <<<"$admin") in
	ours) want_rc=0 ;; stock) want_rc=5 ;; not-loaded) want_rc=6 ;; *) want_rc=module-line ;;
	esac
	expect_eq "B: rpcrdma-inline status for $k exits as its module line says" "$want_rc" "$(fact "b.admin_rc.$k")"
	expect_grep "B: rpcrdma-inline status for $k shows installed-ours-version: $version" \
		"^installed-ours-version: $version\$" "$admin"
	expect_grep "B: rpcrdma-inline status for $k shows the stock file" \
		"^installed-stock: /lib/modules/$kq/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$admin"
done
expect_eq "B: the stock files are untouched" "$(fact stock_before)" "$(fact b.stock)"

# C
expect_eq "C: dpkg -r exits 0" 0 "$(fact c.rc)"
for k in "${kernels[@]}"; do
	kq=$(ere "$k")
	expect_eq "C: nothing left in updates/dkms for $k" "" "$(fact "c.updates.$k")"
	expect_grep "C: rpcrdma for $k resolves to the stock file again" \
		"^/lib/modules/$kq/kernel/net/sunrpc/xprtrdma/rpcrdma\\.ko" "$(fact "c.resolves.$k")"
done
expect_eq "C: no dkms entry left" "" "$(fact c.dkms)"
expect_eq "C: /usr/src/rpcrdma-inline-$version is gone" "" "$(fact c.usr_src)"
expect_eq "C: the stock files are still untouched" "$(fact stock_before)" "$(fact c.stock)"
expect_eq "C: the conffile stays after remove" /etc/modprobe.d/rpcrdma-inline.conf "$(fact c.conffile)"
expect_eq "C: purge exits 0 and takes the conffile and the package" "0 |" \
	"$(fact c.purge_rc) $(fact c.after_purge)"
tap_end
