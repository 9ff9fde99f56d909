#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Scale and memory, in each guest of a pair (tests/test-pair.sh with
# PAIR_SCALE=1, both guests booted with possible_cpus=256 as a large
# server would be): the client mounts four addresses of the server, each
# with nconnect=16, NFSv3, so that each side holds 64 connections. Three
# rounds in one boot, the same module on both sides: stock, ours at
# inline_size=256, ours at inline_size=0. In each round both sides
# measure what the connections cost, per connection, with them up against
# before the first mount: the memory allocated (slab objects in use,
# vmalloc, per-CPU), and, logged beside it, MemFree (after dropping
# caches) and its per-CPU, slab and vmalloc shares. Then, under fio on
# all four mounts, the server reads `status` and every debugfs file again
# and again; and (ours) every connection took one QP creation, as the
# driver counts them.
#
# Ours at inline_size=0 costs what our own code allocates (the per-CPU
# counters, the state in the transport); at 256 the driver's send queue
# grows as well, as a device makes room for inline data in every WQE
# (rxe: each WQE max(SGEs x 16, inline) bytes), reported apart.
#
# Checks: 64 connections on each side in every round; our allocations
# (ours at 0 against stock) add at most 5% (PAIR_SCALE_PCT) to the stock
# connection's memory on each side, as allocated; status and debugfs
# readable under load; one QP creation per connection.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. /src/tests/vm/guest/lib.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
. /src/tests/guest/common.sh

role=$RG_ROLE
if [ "$RG_INDEX" = 0 ]; then side=server; else side=client; fi
mounts=4
nconnect=16
want=$((mounts * nconnect))
pct=${PAIR_SCALE_PCT:-5}
trap '[ -e /sync/failed ] || echo "$role" >/sync/failed' ERR

wire_up
log "$role: the NFS $side, kernel $(uname -r), possible CPUs $(cat /sys/devices/system/cpu/possible), online $(cat /sys/devices/system/cpu/online)"
check "$role: booted with 256 possible CPUs" test "$(cat /sys/devices/system/cpu/possible)" = 0-255
insmod "$GUEST_MODULES/inline_limit.ko" netdev=eth0

# The server's addresses: its own on the wire and three more, each a
# server of its own to the NFS client (one nfs_client, so nconnect
# connections, per address)
server_addr=${RG_PEER:-${RG_ADDRS%% *}}
prefix=${server_addr%.*} last=${server_addr##*.}
addrs=("$server_addr")
for i in $(seq 1 $((mounts - 1))); do
	addrs+=("$prefix.$((last + 7 + i))")
done
if [ $side = server ]; then
	for a in "${addrs[@]:1}"; do
		ip addr add "$a/28" dev eth0
	done
	log "$role: serving on ${addrs[*]}"
fi

rc_qps() { rdma resource show qp 2>/dev/null | grep -c ' type RC ' || true; }

# mem: "MEMFREE PERCPU SLAB VMALLOC LIVE" in KiB, after reclaim has had
# its go (settled until MemFree moves by less than 512 KiB in 2 s: the
# connections' teardown frees memory a little later). LIVE is what is
# allocated: every slab cache's objects in use times their size
# (/proc/slabinfo), vmalloc and per-CPU memory. MemFree and Slab count
# pages, and the slab pages a round frees stay with SLUB's partial slabs
# for the next round to reuse: after ours256, ours0 read 0 bytes a
# connection by MemFree, twice, even with MemFree waited for until it
# came back (it did not in 180 s). LIVE is what the budget is checked on
memfree() { awk '$1 == "MemFree:" { print $2 }' /proc/meminfo; }
mem() {
	local _ a b live
	b=$(memfree)
	for _ in $(seq 15); do
		a=$b
		sync
		echo 3 >/proc/sys/vm/drop_caches
		sleep 2
		b=$(memfree)
		[ $((a - b)) -gt 512 ] || [ $((b - a)) -gt 512 ] || break
	done
	live=$(awk 'NR > 2 { n += $2 * $4 } END { printf "%d", n / 1024 }' /proc/slabinfo)
	awk -v live="$live" '$1 == "MemFree:" { f = $2 } $1 == "Percpu:" { p = $2 } $1 == "Slab:" { s = $2 }
		$1 == "VmallocUsed:" { v = $2 } END { print f, p, s, v, live + p + v }' /proc/meminfo
}

# per_conn KIB0 KIB1 N: bytes per connection
per_conn() { echo $((($2 - $1) * 1024 / $3)); }

declare -A cost_free cost_percpu cost_live
round() { # ROUND: stock, ours256 (inline_size=256) or ours0 (inline_size=0)
	local mod=$1 f0 p0 s0 v0 l0 f1 p1 s1 v1 l1 n q0 reads=0 bad=0 i
	case $mod in
	stock)
		modprobe rpcrdma
		check "$role: $mod: the loaded rpcrdma is the stock one" \
			bash -c "! [ -f /sys/module/rpcrdma/parameters/inline_size ]"
		;;
	ours256)
		install_ours
		check "$role: $mod: the loaded rpcrdma is rpcrdma-inline" ours_loaded
		;;
	ours0)
		modprobe rpcrdma inline_size=0
		check "$role: $mod: rpcrdma-inline loaded with inline_size=0" \
			test "$(cat /sys/module/rpcrdma/parameters/inline_size)" = 0
		;;
	esac
	q0=$(cat /sys/module/inline_limit/parameters/created)
	n=$(settle rc_qps 0 120 0.5)
	check "$role: $mod: no RC QP left of the round before ($n)" test "$n" = 0
	if [ $side = server ]; then
		if [ "$mod" = stock ]; then
			mkdir -p /export
			mount -t tmpfs -o size=256m tmpfs /export
			dd if=/dev/urandom of=/export/seed bs=1M count=1 status=none
		fi
		nfs_server_start /export
		read -r f0 p0 s0 v0 l0 <<<"$(mem)"
		sync_say "server-up-$mod"
		sync_wait "connected-$mod" 1800
	else
		nfs_client_start
		sync_wait "server-up-$mod" 1800
		read -r f0 p0 s0 v0 l0 <<<"$(mem)"
		for i in $(seq 0 $((mounts - 1))); do
			mkdir -p "/mnt/s$i"
			mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=3,hard,nconnect=$nconnect" \
				"${addrs[i]}:/export" "/mnt/s$i"
		done
		# sunrpc connects a transport on its first RPC, and hands the
		# RPCs out to a mount's transports in turn: 64 reads each
		for i in $(seq 0 $((mounts - 1))); do
			dd if="/mnt/s$i/seed" of=/dev/null bs=4k count=64 iflag=direct status=none
		done
	fi
	n=$(settle rc_qps "$want" 60 0.5)
	check "$role: $mod: $want connections (RC QPs: $n)" test "$n" = "$want"
	read -r f1 p1 s1 v1 l1 <<<"$(mem)"
	cost_free[$mod]=$(per_conn "$f1" "$f0" "$n")
	cost_percpu[$mod]=$(per_conn "$p0" "$p1" "$n")
	cost_live[$mod]=$(per_conn "$l0" "$l1" "$n")
	log "$role: $mod: $n connections: $((cost_live[$mod])) bytes each allocated (slab objects, vmalloc, per-CPU); by MemFree $((f0 - f1)) KiB, $((cost_free[$mod])) bytes each; each: per-CPU $((cost_percpu[$mod])), slab pages $(per_conn "$s0" "$s1" "$n"), vmalloc $(per_conn "$v0" "$v1" "$n")"
	log "$role: $mod: QP creations at the driver for them: $(($(cat /sys/module/inline_limit/parameters/created) - q0))"
	if [ "$mod" != stock ]; then
		check "$role: $mod: every connection granted $(cat /sys/module/rpcrdma/parameters/inline_size) bytes" \
			test "$(awk -v s=$side -v w="max=$(cat /sys/module/rpcrdma/parameters/inline_size)" \
				'$1 == s { for (f = 2; f <= NF; f++) if ($f == w) k++ } END { print k + 0 }' "$CONNS")" = "$n"
		# With inline data, a side's first connection on a device first
		# creates a QP asking none (what the stock QP gets); clients
		# connecting at once may each do so before the first memo
		twice=$(awk -v s=$side '$1 == s && / attempts=2 / { k++ } END { print k + 0 }' "$CONNS")
		[ "$mod" = ours0 ] || [ $side = client ] ||
			check "$role: $mod: the first server connection alone made two QPs ($twice)" test "$twice" = 1
		[ "$mod" != ours0 ] ||
			check "$role: $mod: inline_size=0: no connection made two QPs ($twice)" test "$twice" = 0
		check "$role: $mod: one QP creation per connection, and one more for each first on the device" \
			test "$(($(cat /sys/module/inline_limit/parameters/created) - q0))" = "$((n + twice))"
		check "$role: $mod: $n connections of ours listed, each made with one creation, or two" \
			test "$(awk -v s=$side '$1 == s && / attempts=[12] / { k++ } END { print k + 0 }' "$CONNS")" = "$n"
	fi
	if [ $side = client ]; then
		sync_say "connected-$mod"
		sync_wait "server-measured-$mod" 600
		# Load on every mount at once while the server reads its files
		sync_say "load-started-$mod"
		for i in $(seq 0 $((mounts - 1))); do
			fio --name="load$i" --filename="/mnt/s$i/seed" --ioengine=psync --direct=1 \
				--rw=randread --bs=4k --size=1M --time_based --runtime=30 \
				>"/tmp/fio-load$i.out" 2>&1 &
		done
		rc=0
		for i in $(seq 0 $((mounts - 1))); do
			wait -n || rc=$?
		done
		check "$role: $mod: fio on all $mounts mounts at once" test "$rc" = 0
		log "$role: $mod: load: $(grep -h -E '^ *read: IOPS' /tmp/fio-load*.out | tr -s ' ' | tr '\n' ';')"
		sync_say "load-done-$mod"
		sync_wait "reads-done-$mod" 600
		for i in $(seq 0 $((mounts - 1))); do
			umount "/mnt/s$i"
		done
		unload_rpcrdma
		sync_say "client-done-$mod"
	else
		sync_say "server-measured-$mod"
		sync_wait "load-started-$mod" 600
		while [ ! -e "/sync/load-done-$mod" ] && [ ! -e /sync/failed ]; do
			reads=$((reads + 1))
			if [ "$mod" != stock ]; then
				/src/scripts/rpcrdma-inline status >/tmp/status.out 2>&1 ||
					{ log "$role: status: exit $?" && bad=$((bad + 1)); }
				for f in /sys/kernel/debug/rpcrdma_inline/*; do
					cat "$f" >/dev/null || { log "$role: cat $f failed" && bad=$((bad + 1)); }
				done
				i=$(grep -c "^server " "$CONNS" || true)
				[ "$i" = "$n" ] || { log "$role: $i connections listed" && bad=$((bad + 1)); }
			else
				rdma resource show qp >/dev/null || bad=$((bad + 1))
			fi
			sleep 0.2
		done
		sync_say "reads-done-$mod"
		log "$role: $mod: read status and debugfs $reads times under load, $bad failed"
		if [ "$mod" != stock ]; then
			check "$role: $mod: status and every debugfs file readable under load ($reads reads)" \
				test "$reads" -ge 2 -a "$bad" = 0
			log "$role: $mod: $(grep -A3 -i connections /tmp/status.out | head -n 4 | tr '\n' ';')"
		fi
		sync_wait "client-done-$mod" 900
		nfs_server_stop
		if [ "$mod" != stock ]; then
			check "$role: $mod: no connection of ours left listed" conns_gone
		fi
		unload_rpcrdma
	fi
}

round stock
round ours256
round ours0
# A measurement that cannot be right fails, rather than passing the
# budget: each round costs something, and no more than twice stock
for r in ours256 ours0; do
	check "$role: $r: a sane reading, between half and twice stock's ($((cost_live[$r])) against $((cost_live[stock])) bytes)" \
		test $((cost_live[$r] * 2)) -ge $((cost_live[stock])) -a $((cost_live[$r])) -le $((cost_live[stock] * 2))
done
# Our per-CPU counters (struct rpcrdma_wqe_inline_counts, an unsigned
# long per way a Send is counted) come from per-CPU chunks that the
# stock round populated and freed: Percpu does not grow for them. What
# Percpu did not show is counted from their size and the possible CPUs
ways=$(sed -n '/^enum rpcrdma_wqe_inline_how {/,/_HOW_NR/p' /src/include/rpcrdma_wqe_inline_policy.h |
	grep -c 'RPCRDMA_WQE_INLINE_HOW_[A-Z]*,')
ncpus=$(($(cut -d- -f2 /sys/devices/system/cpu/possible) + 1))
percpu=$((ways * 8 * ncpus))
unseen=$((percpu > cost_percpu[ours0] ? percpu - cost_percpu[ours0] : 0))
log "$role: our per-CPU counters: $ways words x $ncpus possible CPUs = $percpu bytes a connection; Percpu showed $((cost_percpu[ours0])), $unseen added"
extra=$((cost_live[ours0] + unseen - cost_live[stock]))
queue=$((cost_live[ours256] - cost_live[ours0]))
log "$role: per connection allocated: stock $((cost_live[stock])) bytes; ours at inline_size=0 $((cost_live[ours0])), at 256 $((cost_live[ours256])) (by MemFree: $((cost_free[stock])), $((cost_free[ours0])), $((cost_free[ours256])))"
log "$role: per connection: our allocations add $extra bytes ($((extra * 1000 / cost_live[stock])) per mille); inline data of 256 bytes $queue more in the driver ($((queue * 1000 / cost_live[stock])) per mille)"
log "$role: per connection, per-CPU memory: stock $((cost_percpu[stock])) bytes, ours $((cost_percpu[ours0])) and $((cost_percpu[ours256]))"
check "$role: our allocations add at most $pct% to the stock connection's memory ($extra of $((cost_live[stock])) bytes)" \
	test $((extra * 100)) -le $((cost_live[stock] * pct))
check "$role: no kernel warnings" test "$(kernel_problems)" = 0
trap - ERR
tap_done || {
	[ -e /sync/failed ] || echo "$role" >/sync/failed
	exit 1
}
