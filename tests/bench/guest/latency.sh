#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Guest side of tests/bench/latency.sh (run by tests/test-guest.sh in a QEMU
# guest): install rpcrdma-inline with DKMS as phase-install.sh does (which
# also brings up rxe0 on dummy0 and an NFS export of a tmpfs), then for each
# round, mode, NFS version and workload: remount (new QPs, so the mode's
# parameters apply), run fio 4 KiB QD1 O_DIRECT for a fixed time, and print
# one line
#   bench ROUND MODE VERS RW IOPS CLAT_MEAN_US P50_US P99_US SI SB CI CB SMAX CMAX CPU_US
# with the Sends our debugfs counted on each side during the run (S server,
# C client; I inline, B by reference; "-" with the kernel's own module),
# each side's inline max, and the guest's CPU time (all CPUs, busy only,
# /proc/stat, over the ramp and the run) per I/O. fio's JSON goes to /out/fio-ROUND-MODE-vVERS-RW.json.
# Asserts nothing but the install.
#
# Modes: stock = the kernel's own rpcrdma.ko; off = ours, inline_size=0;
# server = ours, inline_size=256 client_inline=N; both = ours,
# inline_size=256. A mode that needs the other module stops nfsd, swaps
# the module and starts nfsd again. MODE+d: MODE with every Send posted
# by reference charged GUEST_BENCH_DELAY_NS of busy waiting in the post
# (tests/modules/inline_limit.ko byref_delay_ns, an emulated PCIe read of
# the message), loaded when that is set.
#
# env: GUEST_BENCH_RUNTIME  seconds per fio run (20)
#      GUEST_BENCH_RAMP     seconds of fio ramp_time before that (2)
#      GUEST_BENCH_ROUNDS   rounds of all modes (3)
#      GUEST_BENCH_MODES    modes, in the order of each round (stock off server both)
#      GUEST_BENCH_VERS     NFS versions (3; e.g. "3 4.1")
#      GUEST_BENCH_RW       fio workloads (write randread)
#      GUEST_BENCH_IOENGINE fio ioengine (psync)
#      GUEST_BENCH_SIZE     file size in MiB (64)
#      GUEST_BENCH_DELAY_NS the delay of the MODE+d modes (none)
#      GUEST_BENCH_ICOUNT   set when QEMU counts instructions (hung-task
#                           detector off)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../vm/guest/lib.sh
. /src/tests/vm/guest/lib.sh
# shellcheck source-path=SCRIPTDIR source=../../guest/common.sh
. /src/tests/guest/common.sh

runtime=${GUEST_BENCH_RUNTIME:-20}
ramp=${GUEST_BENCH_RAMP:-2}
rounds=${GUEST_BENCH_ROUNDS:-3}
modes=${GUEST_BENCH_MODES:-stock off server both}
versions=${GUEST_BENCH_VERS:-3}
workloads=${GUEST_BENCH_RW:-write randread}
ioengine=${GUEST_BENCH_IOENGINE:-psync}
size=${GUEST_BENCH_SIZE:-64}
delay_ns=${GUEST_BENCH_DELAY_NS:-}

# The install phase of the test suite, as is: TAP lines, then rxe0 and nfsd
# serving /export (tmpfs) with our rpcrdma loaded
# shellcheck source=/dev/null
. /src/tests/guest/phase-install.sh
if ((TAP_FAILED > 0)); then
	log "the install failed: no numbers"
	tap_done
	exit 1
fi
params=/sys/module/rpcrdma/parameters
# Under instruction counting the guest's clock stands still while the host
# serves its disk, and jumps when it is busy: a disk write can take 120
# emulated seconds with the host loaded (jbd2 was reported hung so, with
# two such guests at once), which says nothing about the code measured
if [ -n "${GUEST_BENCH_ICOUNT:-}" ]; then
	echo 0 >/proc/sys/kernel/hung_task_timeout_secs
	log "icount: the hung-task detector is off (emulated time is not the host's)"
fi
log "fio $(fio --version), $(nproc) CPUs, kernel $(uname -r)"

if [ -n "$delay_ns" ]; then
	insmod "$GUEST_MODULES/inline_limit.ko"
	log "inline_limit.ko: Sends by reference cost $delay_ns ns in the +d modes"
fi
delay_param=/sys/module/inline_limit/parameters/byref_delay_ns

stock_ko=$(find "/lib/modules/$(uname -r)/kernel/net/sunrpc/xprtrdma" -name 'rpcrdma.ko*' | head -n 1)

# use_module ours|stock: load that rpcrdma, with nfsd stopped meanwhile
use_module() {
	local now=stock
	ours_loaded && now=ours
	[ "$now" = "$1" ] && return 0
	nfs_server_stop
	unload_rpcrdma
	# modprobe -r took rpcrdma's dependencies away too: insmod wants them
	modprobe -a sunrpc ib_core rdma_cm
	if [ "$1" = ours ]; then modprobe rpcrdma; else insmod "$stock_ko"; fi
	nfs_server_start /export
}

# set_mode MODE: the module and its parameters of MODE, for new
# connections; MODE+d with the driver's delay per Send by reference
set_mode() {
	local d=0
	case $1 in
	*+d)
		[ -n "$delay_ns" ] || { log "mode $1 needs GUEST_BENCH_DELAY_NS"; return 1; }
		d=$delay_ns ;;
	esac
	if [ -e "$delay_param" ]; then echo "$d" >"$delay_param"; fi
	case ${1%+d} in
	stock) use_module stock ;;
	off) use_module ours; echo 0 >"$params/inline_size"; echo Y >"$params/server_inline"; echo Y >"$params/client_inline" ;;
	server) use_module ours; echo 256 >"$params/inline_size"; echo Y >"$params/server_inline"; echo N >"$params/client_inline" ;;
	both) use_module ours; echo 256 >"$params/inline_size"; echo Y >"$params/server_inline"; echo Y >"$params/client_inline" ;;
	*) log "unknown mode $1 (stock, off, server, both)"; return 1 ;;
	esac
}

# counters: server inline byref, client inline byref ("-" with the stock module)
counters() {
	if ours_loaded; then
		echo "$(conn_field server inline) $(conn_field server byref)" \
			"$(conn_field client inline) $(conn_field client byref)"
	else
		echo "- - - -"
	fi
}

# The guest's busy CPU time, all CPUs, in USER_HZ ticks
cpu_busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# fio_summary JSON RW: IOPS, clat mean, p50, p99 (us) of fio's JSON output
# (pretty-printed by fio, one key a line; no jq or python3 needed)
fio_summary() {
	local dir=read
	case $2 in *write) dir="write" ;; esac
	awk -v dir="$dir" '
		/^ *"(read|write|trim|sync)" : \{/ { d = $1; gsub(/"/, "", d); clat = 0 }
		d != dir { next }
		/^ *"iops" : / && !iops { iops = $3; sub(/,$/, "", iops) }
		/^ *"clat_ns" : \{/ { clat = 1 }
		/^ *"(lat_ns|slat_ns)" : \{/ { clat = 0 }
		clat && /^ *"mean" : / { mean = $3; sub(/,$/, "", mean) }
		clat && /^ *"50\.000000" : / { p50 = $3; sub(/,$/, "", p50) }
		clat && /^ *"99\.000000" : / { p99 = $3; sub(/,$/, "", p99) }
		END {
			if (iops == "" || mean == "") exit 1
			printf "%.1f %.2f %.2f %.2f\n", iops, mean / 1000, p50 / 1000, p99 / 1000
		}' "$1"
}

# Lay the file out once, in the export itself (no NFS traffic); every run
# then uses it whole, reads and writes alike
dd if=/dev/zero of=/export/bench.dat bs=1M count="$size" status=none

for round in $(seq "$rounds"); do
	for mode in $modes; do
		set_mode "$mode"
		for vers in $versions; do
			nfs_mount "$vers" /mnt
			check_proto_rdma /mnt || { log "/mnt is not over RDMA"; exit 1; }
			max="- -"
			ours_loaded && max="$(conn_field server max) $(conn_field client max)"
			for rw in $workloads; do
				json=/out/fio-$round-$mode-v$vers-$rw.json
				before=$(counters)
				busy0=$(cpu_busy)
				fio --name="$mode-$rw" --filename=/mnt/bench.dat --size="${size}m" \
					--rw="$rw" --bs=4k --iodepth=1 --direct=1 --ioengine="$ioengine" \
					--fallocate=none --time_based --runtime="$runtime" --ramp_time="$ramp" \
					--output-format=json --output="$json" >/dev/null
				busy=$(($(cpu_busy) - busy0))
				after=$(counters)
				deltas="- - - -"
				# shellcheck disable=SC2086 # two lists of four numbers
				[ "$mode" = stock ] ||
					deltas=$(set -- $before $after; echo $(($5 - $1)) $(($6 - $2)) $(($7 - $3)) $(($8 - $4)))
				summary=$(fio_summary "$json" "$rw")
				cpu=$(awk -v b="$busy" -v hz="$(getconf CLK_TCK)" -v iops="${summary%% *}" -v t="$((runtime + ramp))" \
					'BEGIN { printf "%.1f", (iops > 0 ? b * 1e6 / hz / (iops * t) : 0) }')
				echo "bench $round $mode $vers $rw $summary $deltas $max $cpu"
			done
			nfs_umount /mnt
			conns_gone
		done
	done
done
nfs_server_stop
