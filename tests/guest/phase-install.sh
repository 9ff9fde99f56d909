#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): install rpcrdma-inline
# with DKMS as a user would, show the loaded rpcrdma is ours, and check the
# inline_size parameter. Leaves rxe0 on dummy0 (192.168.77.1) and an NFS
# server exporting /export, with our module loaded.

kver=$(uname -r)
stock=$(modinfo -n rpcrdma)
stock_srcversion=$(modinfo -F srcversion rpcrdma || true)
log "kernel $kver, stock module $stock"
check "the stock rpcrdma is in kernel/" grep -q "/kernel/net/sunrpc/xprtrdma/rpcrdma.ko" <<<"$stock"

# Install as a user would: the source tree in /usr/src, then DKMS. When the
# host built the module in a chroot of this image (tests/test-guest.sh),
# load its binaries-only DKMS tarball first, as for a prebuilt package.
cp -a /src "/usr/src/rpcrdma-inline-$PKG_VERSION"
rm -rf "/usr/src/rpcrdma-inline-$PKG_VERSION/build"
t=$SECONDS
tarball=$(ls /src/build/dkms/rpcrdma-inline-"$PKG_VERSION"-kernel"$(uname -r)"-*.dkms.tar.gz 2>/dev/null || true)
if [ -n "$tarball" ]; then
	check "dkms ldtarball (built in a chroot of this image)" dkms ldtarball "$tarball"
else
	check "dkms add" dkms add "rpcrdma-inline/$PKG_VERSION"
fi
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

# A bad value given at load (a typo in /etc/modprobe.d) is logged and the
# default kept: rpcrdma loads all the same
for bad in inline_size=abc inline_size=4096 inline_size inline_drivers=bogus inline_drivers=rxe:yes inline_drivers \
	server_inline=maybe client_inline=2; do
	name=${bad%%=*}
	case $name in
	inline_size) default=256 ;;
	inline_drivers) default= ;;
	*) default=Y ;;
	esac
	if modprobe rpcrdma "$bad"; then
		check "modprobe rpcrdma $bad: loads" true
	else
		check "modprobe rpcrdma $bad: loads" false
		continue
	fi
	check "modprobe rpcrdma $bad: ours is loaded" ours_loaded
	check "modprobe rpcrdma $bad: the default is kept" \
		test "$(cat "/sys/module/rpcrdma/parameters/$name")" = "$default"
	check "modprobe rpcrdma $bad: the log says it is refused and the default kept" \
		bash -c "dmesg | grep -F '$bad refused' | grep -q 'rpcrdma loads and the default is kept'"
	check "modprobe rpcrdma $bad: unloads" unload_rpcrdma
done
# The same from /etc/modprobe.d: a parameter without "=" (KERNEL_PARAM_OPS_FL_NOARG)
echo "options rpcrdma inline_size inline_drivers" >/etc/modprobe.d/zz-rpcrdma-noarg.conf
if modprobe rpcrdma; then
	check "options rpcrdma inline_size inline_drivers (no values): loads" true
	check "options without values: inline_size keeps its default" \
		test "$(cat /sys/module/rpcrdma/parameters/inline_size)" = 256
	check "options without values: both refusals logged" \
		bash -c "test \$(dmesg | grep -cE 'inline_(size|drivers) refused: .*rpcrdma loads and the default is kept') -ge 4"
	check "options without values: unloads" unload_rpcrdma
else
	check "options rpcrdma inline_size inline_drivers (no values): loads" false
fi
rm -f /etc/modprobe.d/zz-rpcrdma-noarg.conf

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
# What it was built with: modinfo, the load message and status agree
hooks=$(modinfo -F rpcrdma_inline_hooks "$ours")
log "modinfo: hooks $hooks, $(modinfo -F rpcrdma_inline_tested "$ours")"
check "modinfo names the kernel series and a variant of every hook" \
	test "$(wc -w <<<"$hooks")" -eq $(($(find /src/src/hooks -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]-*' | wc -l) + 1))
check "modinfo says a test covers them (tested)" test "$(modinfo -F rpcrdma_inline_tested "$ours")" = tested
check "the load message says the same" \
	bash -c "dmesg | grep -qF 'rpcrdma-inline $PKG_VERSION: built with hooks $hooks: tested'"
check "rpcrdma-inline status says the same" \
	bash -c "/src/scripts/rpcrdma-inline status | grep -q 'installed-ours-tested.*tested'"

# inline_size: default, runtime writes, refusals
param=/sys/module/rpcrdma/parameters/inline_size
check "inline_size defaults to 256" test "$(cat $param)" = 256
check "root can set inline_size=128 at runtime" bash -c "echo 128 >$param && test \$(cat $param) = 128"
check "inline_size=4096 is refused" bash -c "! echo 4096 >$param 2>/dev/null"
check "inline_size=abc is refused" bash -c "! echo abc >$param 2>/dev/null"
check "a refused value keeps the old one" test "$(cat $param)" = 128
check "a refusal is logged" bash -c "dmesg | grep -q 'inline_size=4096 refused'"
check "a refusal at run time says the old value stays" \
	bash -c "dmesg | grep 'inline_size=abc refused' | grep -q 'inline_size stays 128'"
echo 256 >$param

serve_export
