#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Guest half of tests/packaging/test-load-fallback.sh: Debian 13's kernel
# booted with module.sig_enforce=1, the package's install rule and
# load-rpcrdma in place, and the module tree as Debian 13's dkms 3.2 leaves
# it once ours is installed: the stock rpcrdma.ko.xz moved into
# /var/lib/dkms/rpcrdma-inline/original_module/KVER/ARCH/ (beside its
# .origin file), ours in updates/dkms. "Ours" is the stock module with its
# signature cut off, which the kernel refuses as it refuses a DKMS build
# whose key it does not trust ("Loading of unsigned module is rejected").
# Checked: modprobe rpcrdma at boot and nfsd's request_module at its start
# both end with the stock module loaded from original_module/, with the
# load-failure record and the kernel log saying why, ours' options not
# passed to it; NFS over RDMA carries data; scripts/reload-rpcrdma.sh,
# with the rule and without it, leaves rpcrdma loaded and says why ours
# is not.
# Prints TAP; exits non-zero when a check fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../vm/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/guest/lib.sh"

log() { echo "# $*"; }
kver=$(uname -r)
arch=$(uname -m)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /src/dkms.conf)
stock=$(ls /lib/modules/"$kver"/kernel/net/sunrpc/xprtrdma/rpcrdma.ko*)
orig=/var/lib/dkms/rpcrdma-inline/original_module/$kver/$arch
moved=$orig/${stock##*/}
ours=/lib/modules/$kver/updates/dkms/rpcrdma.ko.xz
record=/run/rpcrdma-inline/load-failure
rule=/usr/lib/modprobe.d/rpcrdma-inline-load.conf

field() { sed -n "s/^$1=//p" "$record"; }
loaded() { [ -e /sys/module/rpcrdma/initstate ]; }
# unsigned KO OUT: KO without its appended signature: the magic string
# (28 bytes) after struct module_signature (12 bytes, the signature's
# length in its last 4, big-endian) after the signature
unsigned() {
	local tmp=/tmp/unsigned.ko size len
	xz -dc "$1" >"$tmp"
	size=$(stat -c %s "$tmp")
	len=$(tail -c 32 "$tmp" | head -c 4 | od -An -t u1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((size - 28 - 12 - len)) "$tmp" | xz -c --check=crc32 >"$2"
}

log "kernel $kver, stock $stock, cmdline: $(cat /proc/cmdline)"
check "the kernel enforces module signatures (module.sig_enforce=1)" grep -qx Y /sys/module/module/parameters/sig_enforce
check "the stock module is signed" test -n "$(modinfo -F signer "$stock")"

# What the package installs
install -D -m 0755 /src/scripts/load-rpcrdma /usr/libexec/rpcrdma-inline/load-rpcrdma
install -D -m 0644 /src/scripts/rpcrdma-inline-load.modprobe.conf "$rule"
# An option of ours that the stock module does not know
echo "options rpcrdma inline_size=128" >/etc/modprobe.d/rpcrdma-inline.conf
# What dkms 3.2 does on install
mkdir -p "$orig" "${ours%/*}"
unsigned "$stock" "$ours"
mv "$stock" "$orig/"
echo "$stock" >"$moved.origin"
t=$SECONDS
depmod -a "$kver"
log "depmod took $((SECONDS - t)) s"
check "modinfo -n rpcrdma is ours ($ours)" test "$(modinfo -n rpcrdma)" = "$ours"
check "ours is not signed" test -z "$(modinfo -F signer "$ours")"
check "no rpcrdma is left in kernel/ (dkms 3.2 moved it to $orig)" \
	bash -c "! ls /lib/modules/$kver/kernel/net/sunrpc/xprtrdma/rpcrdma.ko* 2>/dev/null"

# As at boot
rc=0
modprobe rpcrdma 2>/tmp/modprobe.err || rc=$?
sed 's/^/#   modprobe: /' /tmp/modprobe.err
check "modprobe rpcrdma exits 0" test "$rc" = 0
check "rpcrdma is loaded" loaded
check "the kernel refused ours (dmesg)" bash -c "dmesg | grep -q 'Loading of unsigned module is rejected'"
check "the record: fallback= the stock file in original_module/" test "$(field fallback)" = "$moved"
sed 's/^/#   record: /' "$record" 2>/dev/null || true
check "the record: module= ours" test "$(field module)" = "$ours"
check "the record: kernel=$kver" test "$(field kernel)" = "$kver"
check "the record: error= 'Key was rejected by service'" \
	bash -c "sed -n 's/^error=//p' $record | grep -q 'Key was rejected by service'"
check "the kernel log says ours was refused and the stock file loaded" \
	bash -c "dmesg | grep -q 'rpcrdma-inline: the kernel refused $ours .*loaded the stock $moved instead'"
check "the stock module was not given ours' inline_size (no 'unknown parameter')" \
	bash -c "! dmesg | grep -q 'rpcrdma: unknown parameter'"

# As nfsd starts: its rdma listener's request_module runs the same rule
modprobe -r rpcrdma
rm -f "$record"
check "rpcrdma unloaded" bash -c '! test -e /sys/module/rpcrdma'
rxe_up 192.168.77.1
mkdir -p /export /mnt
mount -t tmpfs -o size=256m tmpfs /export
rc=0
nfs_server_start /export || rc=$?
check "nfsd starts with its rdma listener" test "$rc" = 0
check "nfsd listens on rdma $NFS_RDMA_PORT" grep -q "^rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist
check "nfsd's request loaded the stock module, recorded" test "$(field fallback)" = "$moved"
nfs_mount 3 /mnt
check "vers=3 mounts over rdma" check_proto_rdma /mnt
check "4 MiB O_DIRECT round trip compares equal" data_roundtrip /mnt 4
nfs_umount /mnt
nfs_server_stop

# An install script's last step, with the rule and without it (a package
# older than the rule): rpcrdma is loaded in the end, and it says why
# ours is not
for with in rule no-rule; do
	[ "$with" = rule ] || rm -f "$rule"
	modprobe -r rpcrdma 2>/dev/null || true
	modprobe rpcrdma 2>/dev/null || insmod "$moved" 2>/dev/null || true
	rc=0
	/src/scripts/reload-rpcrdma.sh "$version" >/tmp/reload.out 2>&1 || rc=$?
	sed 's/^/#   reload: /' /tmp/reload.out
	check "$with: reload-rpcrdma.sh exits 1 (ours is not loaded)" test "$rc" = 1
	check "$with: rpcrdma is loaded after it" loaded
	check "$with: it says the kernel refused ours and why, and that the stock one is loaded" \
		grep -q "the kernel refused rpcrdma-inline's module (.*Key was rejected by service); the stock rpcrdma is loaded instead" /tmp/reload.out
done
tap_done
