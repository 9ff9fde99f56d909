#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Benchmark: 4 KiB QD1 O_DIRECT latency over NFS/RDMA in four modes, in one
# QEMU guest of a kernel series: stock (the kernel's own rpcrdma.ko), off
# (ours, inline_size=0), server (ours, inline_size=256, client_inline=N: the
# server's Replies inline) and both (inline_size=256: Replies and Calls
# inline). The module is built and
# installed as tests/test-guest.sh does for the test suite; the guest side is
# tests/bench/guest/latency.sh (rxe0 on dummy0, NFS export on tmpfs, fio).
# Modes alternate in rounds so that drift shows. Prints a table, ratios vs
# stock, and writes it to build/bench/latency-SERIES[-icountN].txt; asserts
# nothing.
#
# With BENCH_ICOUNT=SHIFT the guest runs under QEMU's instruction counting
# (tests/vm/run-guest.sh, RPCRDMA_INLINE_ICOUNT): its clock then follows the
# instructions it executes, so latency and CPU time per I/O become a measure
# of the code's CPU cost that the host's speed and load do not move.
#
# usage: latency.sh [SERIES]      (6.1 by default, 6.12 or 7.3)
# env:   BENCH_RUNTIME   seconds per fio run (20); BENCH_RAMP ramp_time (2)
#        BENCH_ROUNDS    rounds of all modes (3)
#        BENCH_VERS      NFS versions ("3"; "3 4.1" for both)
#        BENCH_RW        fio workloads ("write randread")
#        BENCH_IOENGINE  psync (default) or libaio
#        BENCH_MODES     order of the modes in a round ("stock off server both")
#        BENCH_ICOUNT    QEMU -icount shift (none: plain TCG or KVM)
#        BENCH_TAG       added to the report's name
#        BENCH_SIZE      MiB of the file fio uses (64)
#        BENCH_DELAY_NS  the delay per Send by reference of the MODE+d modes
#                        (tests/bench/delay.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

series=${1:-6.1}
export GUEST_BENCH_RUNTIME=${BENCH_RUNTIME:-20} GUEST_BENCH_RAMP=${BENCH_RAMP:-2}
export GUEST_BENCH_ROUNDS=${BENCH_ROUNDS:-3} GUEST_BENCH_VERS=${BENCH_VERS:-3}
export GUEST_BENCH_RW=${BENCH_RW:-write randread} GUEST_BENCH_IOENGINE=${BENCH_IOENGINE:-psync}
export GUEST_BENCH_MODES=${BENCH_MODES:-stock off server both} GUEST_BENCH_SIZE=${BENCH_SIZE:-64}
export GUEST_BENCH_DELAY_NS=${BENCH_DELAY_NS:-}
name=latency-$series${BENCH_ICOUNT:+-icount$BENCH_ICOUNT}${BENCH_TAG:+-$BENCH_TAG}
if [ -n "${BENCH_ICOUNT:-}" ]; then
	export RPCRDMA_INLINE_ICOUNT=$BENCH_ICOUNT GUEST_BENCH_ICOUNT=$BENCH_ICOUNT
	# fio, nfsd and rxe on an emulated clock: the tests' out directory
	# for the guest's logs is per report
	export GUEST_TAG=$name
fi
mkdir -p "$REPO/build/bench"
report=$REPO/build/bench/$name.txt
log=$REPO/build/bench/$name.log

# The guest's time: install (~1-2 min under TCG) plus each run and remount
words() { wc -w <<<"$1"; }
runs=$((GUEST_BENCH_ROUNDS * $(words "$GUEST_BENCH_MODES") * $(words "$GUEST_BENCH_VERS")))
estimate=$((300 + runs * (15 + $(words "$GUEST_BENCH_RW") * (GUEST_BENCH_RUNTIME + GUEST_BENCH_RAMP + 3))))
export RPCRDMA_INLINE_GUEST_TIMEOUT=${RPCRDMA_INLINE_GUEST_TIMEOUT:-$((2 * estimate))}

load_before=$(cat /proc/loadavg)
t0=$SECONDS
echo "# latency benchmark on $series: about $((estimate / 60)) min of guest time; log: $log"
rc=0
"$REPO/tests/test-guest.sh" "$series" tests/bench/guest/latency.sh >"$log" 2>&1 || rc=$?
load_after=$(cat /proc/loadavg)
if ! grep -q '^bench ' "$log"; then
	tail -n 40 "$log"
	echo "no numbers: the guest run failed ($rc); see $log"
	exit "$((rc ? rc : 1))"
fi
accel=$(sed -n 's/^\[run-guest\] accelerator: //p' "$log" | tail -n 1)
kver=$(sed -n 's/^\[run-guest\] kernel \([^ ,]*\),.*/\1/p' "$log" | head -n 1)
fio_version=$(sed -n 's/^# fio \(fio-[^ ,]*\),.*/\1/p' "$log" | head -n 1)

# bench ROUND MODE VERS RW IOPS MEAN P50 P99 SI SB CI CB SMAX CMAX (us)
table() {
	awk '
	# What each mode must show: the inline max of the QPs (0: none asked
	# for) and no inline Send on a side that has none
	function check(m, si, ci, smax, cmax) {
		sub(/\+d$/, "", m)
		if (m == "stock") return (smax == "-" && cmax == "-") ? "ok" : "MISMATCH"
		if (m == "off") return (smax == 0 && cmax == 0 && si == 0 && ci == 0) ? "ok" : "MISMATCH"
		if (m == "server") return (smax > 0 && cmax == 0 && ci == 0) ? "ok" : "MISMATCH"
		if (m == "both") return (smax > 0 && cmax > 0) ? "ok" : "MISMATCH"
		return "?"
	}
	function pct(a, b) { return (a + b) ? sprintf("%.0f%%", 100 * a / (a + b)) : "-" }
	$1 == "bench" {
		n++; r[n] = $0
		k = $3 " v" $4 " " $5
		if (!(k in cnt)) { keys[++nk] = k }
		cnt[k]++; iops[k] += $6; mean[k] += $7; p50[k] += $8; p99[k] += $9
		if (!(k in lo) || $7 < lo[k]) lo[k] = $7
		if (!(k in hi) || $7 > hi[k]) hi[k] = $7
		si[k] += $10; sb[k] += $11; ci[k] += $12; cb[k] += $13; cpu[k] += $16
		if (!(k in clo) || $16 < clo[k]) clo[k] = $16
		if (!(k in chi) || $16 > chi[k]) chi[k] = $16
		if (check($3, $10, $12, $14, $15) != "ok") bad[k] = 1
	}
	END {
		print "Per run, in the order run (clat in us; Sends counted by our debugfs during the run):"
		printf "%-5s %-6s %-4s %-8s %8s %9s %8s %8s %8s  %-17s %-17s %-7s %s\n", "round", "mode", "vers", "rw",
			"IOPS", "clat mean", "p50", "p99", "CPU/IO", "server inl/byref", "client inl/byref", "max s/c", "mode check"
		for (i = 1; i <= n; i++) {
			split(r[i], f, " ")
			printf "%-5s %-6s %-4s %-8s %8.1f %9.2f %8.2f %8.2f %8.1f  %-17s %-17s %-7s %s\n", f[2], f[3], "v" f[4], f[5],
				f[6], f[7], f[8], f[9], f[16], f[10] "/" f[11], f[12] "/" f[13], f[14] "/" f[15], check(f[3], f[10], f[12], f[14], f[15])
		}
		print ""
		print "Per mode, averaged over the rounds (clat in us; range: lowest and highest mean of a round;"
		print "spread: (highest - lowest) / average, of the clat mean and of the CPU time per I/O;"
		print "S inl, C inl: share of the server'"'"'s and the client'"'"'s Sends posted inline during the runs;"
		print "ratios: this mode / stock, same NFS version and workload; delta: this mode - stock):"
		printf "%-6s %-4s %-8s %2s %6s %6s %8s %9s %-17s %8s %8s %8s %13s %9s %9s %9s %9s %9s\n", "mode", "vers", "rw", "n",
			"S inl", "C inl", "IOPS", "clat mean", "range", "p50", "p99", "CPU/IO", "spread c/CPU",
			"IOPS x", "mean x", "p50 x", "CPU x", "delta us"
		for (j = 1; j <= nk; j++) {
			k = keys[j]; split(k, f, " ")
			s = "stock " f[2] " " f[3]
			m = mean[k] / cnt[k]
			c = cpu[k] / cnt[k]
			line = sprintf("%-6s %-4s %-8s %2d %6s %6s %8.1f %9.2f %-17s %8.2f %8.2f %8.1f %13s", f[1], f[2], f[3], cnt[k],
				pct(si[k], sb[k]), pct(ci[k], cb[k]), iops[k] / cnt[k], m, sprintf("%.2f-%.2f", lo[k], hi[k]), p50[k] / cnt[k], p99[k] / cnt[k],
				c, sprintf("%.1f%%/%.1f%%", m ? 100 * (hi[k] - lo[k]) / m : 0, c ? 100 * (chi[k] - clo[k]) / c : 0))
			if (s in cnt && f[1] != "stock")
				line = line sprintf(" %9.3f %9.3f %9.3f %9.3f %+9.2f", (iops[k] / cnt[k]) / (iops[s] / cnt[s]),
					m / (mean[s] / cnt[s]), (p50[k] / cnt[k]) / (p50[s] / cnt[s]),
					cpu[s] ? c / (cpu[s] / cnt[s]) : 0, m - mean[s] / cnt[s])
			print line (k in bad ? "  (counters do not match the mode: see above)" : "")
		}
	}'
}

{
	echo "rpcrdma-inline latency benchmark (tests/bench/latency.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kernel ${kver:-?} (series $series), QEMU guest, accelerator: ${accel:-?}; soft RoCE (rxe0 on dummy0), NFS export on tmpfs, client and server in the same guest"
	echo "fio ${fio_version:-?}: bs=4k iodepth=1 direct=1 ioengine=$GUEST_BENCH_IOENGINE, $GUEST_BENCH_RUNTIME s per run after a $GUEST_BENCH_RAMP s ramp;" \
		"$GUEST_BENCH_ROUNDS rounds of: $GUEST_BENCH_MODES; NFS vers $GUEST_BENCH_VERS; workloads: $GUEST_BENCH_RW"
	echo "modes: stock = the kernel's own rpcrdma.ko; off = ours, inline_size=0; server = ours, inline_size=256 client_inline=N;"
	echo "both = ours, inline_size=256 (a remount each, so new QPs). CPU/IO: the guest's busy CPU time (all CPUs, /proc/stat) per I/O, in us"
	echo "host: $(nproc) CPUs; /proc/loadavg before: $load_before; after: $load_after; wall time $((SECONDS - t0)) s"
	echo
	echo "NOTE: QEMU software emulation (TCG) with soft RoCE: every latency here is emulated CPU"
	echo "time and says nothing about real hardware (the design expects ~0.26 us and ~0.52 us"
	echo "less per 4 KiB write there). The only question these numbers answer is whether a"
	echo "difference between the modes is visible above the noise: compare it with the spread of"
	echo "the same mode across rounds, and with the load of the host (other guests may run)."
	if [ -n "${BENCH_ICOUNT:-}" ]; then
		echo "ICOUNT: the guest ran under -icount shift=$BENCH_ICOUNT,sleep=off: its clock advances"
		echo "$((1 << BENCH_ICOUNT)) ns per instruction executed and skips idle time, so every time above is a"
		echo "count of the guest's instructions (client, server and rxe together), whatever the host"
		echo "did meanwhile: a figure of CPU cost, the same on any host, not of real latency."
	fi
	echo "What goes inline (see tests/guest/phase-datapath.sh): WRITE Replies in server and both;"
	echo "4 KiB WRITE and READ Calls, behind the REG_MR of their chunk, in both; READ Replies follow"
	echo "their data, so they go by reference in every mode. So randread differs between off and"
	echo "server by nothing, and between server and both by its Call. mode check: the QPs' inline"
	echo "max (and no inline Send on a side without it) fits the mode; MODE+d: MODE with the"
	echo "driver's delay per Send by reference (tests/bench/delay.sh)."
	echo
	table <"$log"
	if [ "$rc" -ne 0 ]; then
		echo
		echo "the guest run ended with $rc (3: the kernel logged a warning; see $log)"
	fi
} | tee "$report"
echo "# written to $report"
exit "$rc"
