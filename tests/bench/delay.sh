#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Benchmark of the benchmark: does tests/bench/latency.sh measure what it
# claims? Under QEMU's instruction counting, tests/modules/inline_limit.ko
# charges a known delay D to every Send WR the "HCA" must read by reference
# (busy waiting in the post, an emulated PCIe read of the message; nothing
# for an inline Send), and the bench runs in three settings, each B against
# A in the same rounds:
#   1. no delay:           A = off, B = both
#   2. D, server switching: A = off+d, B = server+d
#   3. D, both switching:   A = off+d, B = both+d
# On the QD1 path of a 4 KiB WRITE there are two Sends (the Call, behind
# its REG_MR, and the Reply); of a READ one that can switch (the Call: the
# Reply follows its data by reference in every mode). So B - A should be
# about 0 in 1; -D (write) and 0 (read) in 2; -2D (write) and -D (read)
# in 3, plus the CPU cost of the inline copy. Prints B - A per setting
# and workload with its 95% confidence interval over the rounds (paired by
# round), the expectation, and writes build/bench/delay-SERIES.txt.
# Asserts only that numbers came out (tests/run.sh bench-delay, deep tier).
#
# usage: delay.sh [SERIES]    (6.1 by default)
# env:   DELAY_NS (20000), and latency.sh's BENCH_* (here: BENCH_ICOUNT=2,
#        BENCH_ROUNDS=3, BENCH_RUNTIME=5, BENCH_RAMP=1, BENCH_SIZE=16)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

series=${1:-6.1}
d_ns=${DELAY_NS:-20000}
export BENCH_ICOUNT=${BENCH_ICOUNT:-2} BENCH_ROUNDS=${BENCH_ROUNDS:-3}
export BENCH_RUNTIME=${BENCH_RUNTIME:-5} BENCH_RAMP=${BENCH_RAMP:-1}
export BENCH_SIZE=${BENCH_SIZE:-16} BENCH_DELAY_NS=$d_ns BENCH_TAG=delay
export BENCH_MODES="off both off+d server+d both+d"
# The modes' Send counts say what switched; latency.sh's report has them.
# Its exit status (3: the kernel logged a problem) is this script's, after
# the numbers it printed
rc=0
"$here/latency.sh" "$series" || rc=$?
log=$repo/build/bench/latency-$series-icount$BENCH_ICOUNT-delay.log
report=$repo/build/bench/delay-$series.txt

# bench ROUND MODE VERS RW IOPS MEAN ...: B - A per setting and workload,
# paired by round, with a 95% CI (Student's t, n - 1 degrees of freedom)
awk -v d="$d_ns" '
	BEGIN {
		# t(0.975, df) for df 1..10
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t, " ")
		ns = split("off both|off+d server+d|off+d both+d", set, "|")
		name[1] = "1. no delay, both vs off"
		name[2] = "2. D, server switching"
		name[3] = "3. D, both switching"
		# expected B - A in us: Sends switched per I/O times D
		want[1, "write"] = 0; want[1, "randread"] = 0
		want[2, "write"] = -d / 1000; want[2, "randread"] = 0
		want[3, "write"] = -2 * d / 1000; want[3, "randread"] = -d / 1000
	}
	$1 == "bench" { m[$2, $3, $5] = $7; rws[$5] = 1; if ($2 > nr) nr = $2 }
	END {
		printf "D = %d ns per Send by reference; B - A of the clat mean in emulated us\n", d
		printf "%-26s %-8s %3s %10s %22s %10s\n", "setting", "rw", "n", "B - A", "95% CI", "expected"
		for (s = 1; s <= ns; s++) {
			split(set[s], ab, " ")
			for (rw in rws) {
				n = 0; sum = 0; ss = 0
				for (r = 1; r <= nr; r++) {
					if (!((r, ab[1], rw) in m) || !((r, ab[2], rw) in m)) continue
					x[++n] = m[r, ab[2], rw] - m[r, ab[1], rw]; sum += x[n]
				}
				if (!n) continue
				mean = sum / n
				for (i = 1; i <= n; i++) ss += (x[i] - mean) ^ 2
				half = n > 1 ? t[n - 1 > 10 ? 10 : n - 1] * sqrt(ss / (n - 1)) / sqrt(n) : 0
				printf "%-26s %-8s %3d %+10.2f %+10.2f .. %+9.2f %+10.2f\n", name[s], rw, n, mean,
					mean - half, mean + half, want[s, rw]
				got++
			}
		}
		exit !got
	}' "$log" | tee "$report"
echo "# written to $report (the runs and Send counts: build/bench/latency-$series-icount$BENCH_ICOUNT-delay.txt)"
exit "$rc"
