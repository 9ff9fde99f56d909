#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Guest half of `tests/packaging/test-install-script.sh sig-enforce`: a
# fresh Debian 12 on its 6.12 kernel (headers with vmlinux: the build
# needs pahole, which is not installed), booted with module.sig_enforce=1
# as under Secure Boot, the stock rpcrdma loaded. The README's install
# command must bring pahole, build (with BTF) and install the package, say that
# the kernel would refuse ours and how to enroll the key, and leave the
# stock module loaded. Then a boot-like `modprobe -r rpcrdma; modprobe
# rpcrdma`, and nfsd's own request for the module, each end with the stock
# module loaded and a load-failure record saying why ours was refused;
# NFS over RDMA carries data.
# Prints TAP; exits non-zero when a check fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../vm/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/guest/lib.sh"

log() { echo "# $*"; }
kver=$(uname -r)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /src/dkms.conf)
kpkgver=$(dpkg-query -W -f='${Version}\n' "linux-image-$kver" "linux-image-$kver-unsigned" 2>/dev/null |
	grep -m 1 . || true)
checkout=/root/rpcrdma-inline
record=/run/rpcrdma-inline/load-failure
stock_ko=$(ls /lib/modules/"$kver"/kernel/net/sunrpc/xprtrdma/rpcrdma.ko*)

not_installed() { ! dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qx installed; }
# stock_loaded: rpcrdma is loaded, and it is the stock module: no
# inline_size, no version (ours has both), not out of tree (taint O)
stock_loaded() {
	[ -e /sys/module/rpcrdma/initstate ] && [ ! -e /sys/module/rpcrdma/parameters/inline_size ] &&
		[ ! -e /sys/module/rpcrdma/version ] && ! grep -q O /sys/module/rpcrdma/taint
}
field() { sed -n "s/^$1=//p" "$record"; }
has_btf() { # FILE: a module with a .BTF section
	local f=$1 tmp=/tmp/btf.ko
	case $f in
	*.xz) xz -dc "$f" >"$tmp" ;;
	*.zst) zstd -qdc "$f" >"$tmp" ;;
	*) cp "$f" "$tmp" ;;
	esac
	readelf -S "$tmp" | grep -q ' \.BTF '
}

log "kernel $kver ($kpkgver), rpcrdma-inline $version, cmdline: $(cat /proc/cmdline)"
check "booted with module.sig_enforce=1" grep -qw 'module.sig_enforce=1' /proc/cmdline
check "the kernel enforces module signatures" grep -qx Y /sys/module/module/parameters/sig_enforce
for p in dkms gcc pahole dwarves "linux-headers-$kver" rpcrdma-inline-dkms; do
	check "fresh machine: $p is not installed" not_installed "$p"
done
check "fresh machine: no pahole command" bash -c '! command -v pahole'
modprobe rpcrdma
check "the stock rpcrdma is loaded before the install ($stock_ko)" stock_loaded

mkdir -p "$checkout"
(cd /src && tar --exclude=./build -cf - .) | tar -xf - -C "$checkout"
t=$SECONDS
rc=0
(cd "$checkout" && scripts/install.sh) >/out/install.log 2>&1 || rc=$?
log "scripts/install.sh took $((SECONDS - t)) s (exit $rc)"
sed 's/^/#   | /' /out/install.log | grep -v '^#   | \(Get\|Selecting\|Preparing\|Unpacking\|Setting up\|Processing\)' | tail -n 25
check "scripts/install.sh exits 0" test "$rc" = 0
check "it says the kernel enforces module signatures (module.sig_enforce=1)" \
	grep -q '^rpcrdma-inline: the kernel enforces module signatures (module.sig_enforce=1)' /out/install.log
check "it installed openssl, which DKMS signs with" grep -q '^rpcrdma-inline: installing .*openssl' /out/install.log
# pahole: Debian's linux-kbuild of 6.12 and later depends on it, so the
# headers bring it; install.sh installs it itself only when still missing
if grep -qx 'rpcrdma-inline: installing pahole' /out/install.log; then
	log "install.sh installed pahole itself"
else
	log "pahole came with the headers ($(dpkg-query -W -f='${Depends}' "linux-kbuild-${kver%-amd64}" 2>/dev/null))"
fi
check "pahole is installed after the install" bash -c 'command -v pahole'
check "rpcrdma-inline-dkms is installed" \
	test "$(dpkg-query -W -f='${db:Status-Abbrev}' rpcrdma-inline-dkms)" = "ii "
check "dkms status: rpcrdma-inline/$version installed for $kver" \
	bash -c "dkms status rpcrdma-inline/$version -k $kver | grep -q ': installed'"
ours=$(modinfo -n rpcrdma)
check "modinfo -n rpcrdma is ours, in updates/dkms ($ours)" grep -q "/updates/dkms/rpcrdma.ko" <<<"$ours"
check "ours was built with BTF (pahole ran)" has_btf "$ours"
log "ours: signer '$(modinfo -F signer "$ours" || true)', sig_key $(modinfo -F sig_key "$ours" || true)"
check "it says the kernel would refuse ours: signatures enforced without Secure Boot" \
	grep -q "enforces module signatures (module.sig_enforce=1) without Secure Boot" /out/install.log
check "it says the package is installed but not loaded, the stock one stays" \
	grep -q "rpcrdma-inline-dkms $version is installed, but not loaded: the stock rpcrdma stays" /out/install.log
check "it did not print 'loaded: inline_size'" bash -c "! grep -q 'loaded: inline_size' /out/install.log"
check "the stock rpcrdma is still loaded" stock_loaded
check "the install rule is in place" test -s /usr/lib/modprobe.d/rpcrdma-inline-load.conf
check "modprobe shows the install rule for rpcrdma" \
	bash -c "modprobe -c | grep -q '^install rpcrdma .*load-rpcrdma'"

# As at boot: the module unloaded, then loaded by name
rm -f "$record"
modprobe -r rpcrdma
check "rpcrdma unloaded" test ! -e /sys/module/rpcrdma
rc=0
modprobe rpcrdma 2>/tmp/modprobe.err || rc=$?
sed 's/^/#   modprobe: /' /tmp/modprobe.err
check "modprobe rpcrdma exits 0" test "$rc" = 0
check "modprobe rpcrdma: the stock module is loaded" stock_loaded
check "modprobe's output says ours was refused, and the stock one loaded" \
	grep -q "rpcrdma-inline: the kernel refused $ours .*Key was rejected by service.*loaded the stock $stock_ko instead" /tmp/modprobe.err
check "the load-failure record exists" test -s "$record"
sed 's/^/#   record: /' "$record" 2>/dev/null || true
check "record: kernel=$kver" test "$(field kernel)" = "$kver"
check "record: module= ours ($ours)" test "$(field module)" = "$ours"
check "record: error= modprobe's 'Key was rejected by service'" \
	bash -c "grep -q '^error=.*could not insert .rpcrdma.: Key was rejected by service$' $record"
check "record: fallback= the stock file" test "$(field fallback)" = "$stock_ko"
check "record: time= now, UTC" bash -c "test \$(( \$(date +%s) - \$(date -d \"\$(sed -n 's/^time=//p' $record)\" +%s) )) -lt 600"
check "the kernel log says why (its own refusal and ours)" \
	bash -c "dmesg | grep -qE 'Loading of (unsigned module|module with unavailable key) is rejected' &&
		dmesg | grep -q 'rpcrdma-inline: the kernel refused .*loaded the stock'"

# As nfsd starts: its rdma listener asks the kernel for the module
# (request_module), whose modprobe runs the same rule
modprobe -r rpcrdma
rm -f "$record"
rxe_up 192.168.77.1
mkdir -p /export /mnt
mount -t tmpfs -o size=256m tmpfs /export
rc=0
nfs_server_start /export || rc=$?
check "nfsd starts with its rdma listener" test "$rc" = 0
check "nfsd listens on rdma $NFS_RDMA_PORT" grep -q "^rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist
check "nfsd's request loaded the stock module" stock_loaded
check "and recorded why ours was not (fallback= the stock file)" test "$(field fallback)" = "$stock_ko"
nfs_mount 3 /mnt
check "vers=3 mounts over rdma" check_proto_rdma /mnt
check "4 MiB O_DIRECT round trip compares equal" data_roundtrip /mnt 4
/usr/sbin/rpcrdma-inline status >/tmp/status.txt 2>&1 || true
sed 's/^/#   status: /' /tmp/status.txt | head -n 20
check "rpcrdma-inline status: the module loaded is stock" grep -qx 'module: stock' /tmp/status.txt
nfs_umount /mnt
nfs_server_stop
tap_done
