#!/bin/bash
# In the guest: install rpcrdma-inline with DKMS as a user would, show the
# loaded rpcrdma is ours, run NFSv3 and NFSv4.1 over soft RoCE with the
# integrity workload, then take it out again and show the stock module
# loads and mounts.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. /src/tests/vm/guest/lib.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
. /src/tests/guest/common.sh

kver=$(uname -r)
stock=$(modinfo -n rpcrdma)
stock_srcversion=$(modinfo -F srcversion rpcrdma || true)
log "kernel $kver, stock module $stock"
check "the stock rpcrdma is in kernel/" grep -q "/kernel/net/sunrpc/xprtrdma/rpcrdma.ko" <<<"$stock"

# Install as a user would
cp -a /src "/usr/src/rpcrdma-inline-$PKG_VERSION"
t=$SECONDS
check "dkms add" dkms add "rpcrdma-inline/$PKG_VERSION"
if dkms install "rpcrdma-inline/$PKG_VERSION" -k "$kver" >/tmp/dkms.log 2>&1; then
	check "dkms install ($((SECONDS - t)) s)" true
else
	cat /tmp/dkms.log "/var/lib/dkms/rpcrdma-inline/$PKG_VERSION/build/make.log" || true
	check "dkms install" false
	tap_done
	exit 1
fi
log "dkms install took $((SECONDS - t)) s"
ours=$(modinfo -n rpcrdma)
check "modinfo -n rpcrdma is ours, in updates/dkms ($ours)" grep -q "/updates/dkms/rpcrdma.ko" <<<"$ours"

modprobe rpcrdma
check "the loaded rpcrdma says it is rpcrdma-inline $PKG_VERSION" ours_loaded
if [ -f /sys/module/rpcrdma/srcversion ]; then
	loaded=$(cat /sys/module/rpcrdma/srcversion)
	check "srcversion of the loaded module is that of updates/dkms/rpcrdma.ko" \
		test "$loaded" = "$(modinfo -F srcversion "$ours")"
	check "and not the stock module's" test "$loaded" != "$stock_srcversion"
else
	log "no srcversion in this kernel (CONFIG_MODVERSIONS off): told by version"
fi
check "load logged as the rpcrdma-inline build" \
	bash -c "dmesg | grep -q 'rpcrdma: rpcrdma-inline $PKG_VERSION: inline_size=256'"

# inline_size: default, runtime writes, refusals
param=/sys/module/rpcrdma/parameters/inline_size
check "inline_size defaults to 256" test "$(cat $param)" = 256
check "root can set inline_size=128 at runtime" bash -c "echo 128 >$param && test \$(cat $param) = 128"
check "inline_size=4096 is refused" bash -c "! echo 4096 >$param 2>/dev/null"
check "inline_size=abc is refused" bash -c "! echo abc >$param 2>/dev/null"
check "a refused value keeps the old one" test "$(cat $param)" = 128
check "a refusal is logged" bash -c "dmesg | grep -q 'inline_size=4096 refused'"
echo 256 >$param

# NFS over soft RoCE
rxe_up 192.168.77.1
mkdir -p /export
mount -t tmpfs -o size=512m tmpfs /export
nfs_server_start /export
for vers in 3 4.1; do
	t=$SECONDS
	nfs_mount "$vers" /mnt
	check "vers=$vers: mountstats shows proto=rdma" check_proto_rdma /mnt
	check "vers=$vers: integrity workload compares equal" integrity_workload /mnt /export
	log "vers=$vers: $(tr '\n' ';' <"$CONNS")"
	nfs_umount /mnt
	log "vers=$vers took $((SECONDS - t)) s"
done

# Take it out again
nfs_server_stop
check "the RDMA listener is gone" bash -c "! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null"
check "our rpcrdma unloads" unload_rpcrdma
t=$SECONDS
check "dkms remove" dkms remove "rpcrdma-inline/$PKG_VERSION" --all
log "dkms remove took $((SECONDS - t)) s"
check "modinfo -n rpcrdma is the stock module again" test "$(modinfo -n rpcrdma)" = "$stock"
modprobe rpcrdma
check "the loaded rpcrdma is the stock one" bash -c "! test -e /sys/module/rpcrdma/parameters/inline_size"
if [ -n "$stock_srcversion" ]; then
	check "its srcversion is the stock module's" test "$(cat /sys/module/rpcrdma/srcversion)" = "$stock_srcversion"
fi
nfs_server_start /export
nfs_mount 3 /mnt
check "stock: vers=3 mounts over rdma" check_proto_rdma /mnt
check "stock: 4 MiB O_DIRECT round trip compares equal" data_roundtrip /mnt 4
nfs_umount /mnt
nfs_server_stop
tap_done
