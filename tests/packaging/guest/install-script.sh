#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Guest half of tests/packaging/test-install-script.sh: on a fresh Debian 12
# (no dkms, compiler, headers or linux-source; apt's only source is a local
# mirror at /src/build/apt), run the README's install command from a checkout
# of the repo: it builds the rpcrdma-inline-dkms package and installs it
# with apt. Show that the package owns the files, that the loaded rpcrdma
# is ours and carries NFS over soft RoCE, then run scripts/uninstall.sh and
# show the package purged and the stock module back.
# Prints TAP; exits non-zero when a check fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../vm/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/guest/lib.sh"

log() { echo "# $*"; }
kver=$(uname -r)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /src/dkms.conf)
# the signed image or the same kernel unsigned; a package dpkg knows but
# has not installed has an empty version
kpkgver=$(dpkg-query -W -f='${Version}\n' "linux-image-$kver" "linux-image-$kver-unsigned" 2>/dev/null |
	grep -m 1 . || true)
series=$(cut -d. -f1-2 <<<"${kpkgver%%-*}")
conns=/sys/kernel/debug/rpcrdma_inline/connections
checkout=/root/rpcrdma-inline

purged() { case $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) in '' | not-installed) ;; *) return 1 ;; esac; }
not_installed() { ! dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qx installed; }
stock_file() { [[ $(modinfo -n rpcrdma) == /lib/modules/$kver/kernel/net/sunrpc/xprtrdma/rpcrdma.ko* ]]; }
# conn_count SIDE KEY: KEY=VALUE of the first debugfs line of SIDE
conn_count() { grep "^$1 " "$conns" | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }

log "kernel $kver ($kpkgver), rpcrdma-inline $version"
for p in dkms gcc make dpkg-dev debhelper "linux-headers-$kver" "linux-source-$series" rpcrdma-inline-dkms; do
	check "fresh machine: $p is not installed" not_installed "$p"
done
check "fresh machine: rpcrdma resolves to the stock module" stock_file

# The repo as a user has it: a checkout in their home
mkdir -p "$checkout"
(cd /src && tar --exclude=./build -cf - .) | tar -xf - -C "$checkout"

t=$SECONDS
rc=0
(cd "$checkout" && scripts/install.sh) >/out/install.log 2>&1 || rc=$?
log "scripts/install.sh took $((SECONDS - t)) s (exit $rc)"
sed 's/^/#   | /' /out/install.log | tail -n 15
check "scripts/install.sh exits 0" test "$rc" = 0
check "it installed the build dependencies with apt, the kernel's source from the file it read first" \
	grep -q "^rpcrdma-inline: installing dkms make gcc linux-headers-$kver dpkg-dev debhelper dh-dkms /.*/linux-source-${series}_${kpkgver}_all.deb$" /out/install.log
check "it built the package and installed it with apt" \
	grep -q "^rpcrdma-inline: installing rpcrdma-inline-dkms_${version}-[0-9.]*_all.deb$" /out/install.log
check "rpcrdma-inline-dkms is installed" \
	test "$(dpkg-query -W -f='${db:Status-Abbrev}' rpcrdma-inline-dkms)" = "ii "
check "linux-source-$series is installed at the running kernel's version $kpkgver" \
	test "$(dpkg-query -W -f='${db:Status-Status} ${Version}' "linux-source-$series")" = "installed $kpkgver"
check "dkms status: rpcrdma-inline/$version installed for $kver" \
	bash -c "dkms status rpcrdma-inline/$version -k $kver | grep -q ': installed'"
check "it reports 'rpcrdma-inline $version loaded: inline_size=256'" \
	grep -qx "rpcrdma-inline $version loaded: inline_size=256" /out/install.log
ours=$(modinfo -n rpcrdma)
check "modinfo -n rpcrdma is updates/dkms ($ours)" \
	test "$ours" = "/lib/modules/$kver/updates/dkms/rpcrdma.ko"
check "the loaded rpcrdma is version $version" test "$(cat /sys/module/rpcrdma/version)" = "$version"
check "the loaded srcversion is that of $ours" \
	test "$(cat /sys/module/rpcrdma/srcversion)" = "$(modinfo -F srcversion "$ours")"

# The command the README names, its man page and the modprobe.d file came too
check "the rpcrdma-inline command is installed, in /usr/sbin" test -x /usr/sbin/rpcrdma-inline
check "its bench is installed" test -x /usr/libexec/rpcrdma-inline/rpcrdma-inline-bench
check "its man page is installed" test -s /usr/share/man/man8/rpcrdma-inline.8.gz
check "/etc/modprobe.d/rpcrdma-inline.conf is installed" test -s /etc/modprobe.d/rpcrdma-inline.conf
check "the package owns each, and the DKMS source tree" \
	dpkg-query -S /usr/sbin/rpcrdma-inline /usr/libexec/rpcrdma-inline/rpcrdma-inline-bench \
	/usr/share/man/man8/rpcrdma-inline.8.gz /etc/modprobe.d/rpcrdma-inline.conf "/usr/src/rpcrdma-inline-$version/dkms.conf"
check "nothing is recorded outside the package" test ! -e /var/lib/rpcrdma-inline/installed-files

# It carries NFS over soft RoCE, with Replies inline
rxe_up 192.168.77.1
mkdir -p /export /mnt
mount -t tmpfs -o size=256m tmpfs /export
nfs_server_start /export
nfs_mount 3 /mnt
check "ours: vers=3 mounts over rdma" check_proto_rdma /mnt
check "ours: 4 MiB O_DIRECT round trip compares equal" data_roundtrip /mnt 4
log "connections: $(tr '\n' ';' <"$conns")"
check "ours: the server posted Replies inline" test "$(conn_count server inline)" -gt 0
check "ours: the client posted Calls inline" test "$(conn_count client inline)" -gt 0
rpcrdma-inline status >/tmp/status.txt 2>&1 || true
sed 's/^/#   | /' /tmp/status.txt | head -n 8
check "rpcrdma-inline status shows the connections" grep -q "server peer=" /tmp/status.txt
nfs_umount /mnt
nfs_server_stop

# And out again
rc=0
(cd "$checkout" && scripts/uninstall.sh) >/out/uninstall.log 2>&1 || rc=$?
sed 's/^/#   | /' /out/uninstall.log | tail -n 5
check "scripts/uninstall.sh exits 0" test "$rc" = 0
check "rpcrdma resolves to the stock module again" stock_file
check "the loaded rpcrdma is the stock one (no inline_size)" \
	test -e /sys/module/rpcrdma -a ! -e /sys/module/rpcrdma/parameters/inline_size
check "the loaded srcversion is the stock file's" \
	test "$(cat /sys/module/rpcrdma/srcversion)" = "$(modinfo -F srcversion rpcrdma)"
check "dkms knows no rpcrdma-inline" test -z "$(dkms status rpcrdma-inline)"
check "rpcrdma-inline-dkms is purged, no conffile kept" purged rpcrdma-inline-dkms
check "/usr/src/rpcrdma-inline-$version is gone" test ! -e "/usr/src/rpcrdma-inline-$version"
check "the command, bench, man page and modprobe.d file are gone" \
	bash -c '! ls /usr/sbin/rpcrdma-inline /usr/libexec/rpcrdma-inline /usr/share/man/man8/rpcrdma-inline.8.gz /etc/modprobe.d/rpcrdma-inline.conf /var/lib/rpcrdma-inline 2>/dev/null | grep -q .'
check_served stock /export
tap_done
