#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): rpcrdma-inline bench,
# as a user runs it, in a 2-round smoke run over rxe with server and
# client on this host (both sides switch). Its numbers are only logged:
# rxe has no DMA read to save, and TCG's noise is larger than the effect.
# Checked: the report's files, 0 verify errors, each mode's Send counts,
# and that the module parameters come back; then bad input (an export too
# small for --size among it), a Ctrl-C and a
# server that goes away mid-run: each stops with its message, unmounts
# and restores the parameters. Needs the NFS server of phase-install.sh.

BENCH=/src/scripts/rpcrdma-inline
P=/sys/module/rpcrdma/parameters
b_params() { echo "$(cat $P/inline_size) $(cat $P/server_inline) $(cat $P/client_inline)"; }
b_mounts() { grep -c ' /tmp/rpcrdma-inline-bench\.' /proc/mounts || true; }
b_rows() { # CSV MODE: the runs of MODE in the CSV
	awk -F, -v m="$2" 'NR > 1 && $2 == m' "$1" | grep -c . || true
}

if ! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null; then
	nfs_server_start /export
fi
echo 192 >$P/inline_size
b_before=$(b_params)
rm -rf /tmp/bench
b_rc=0
"$BENCH" bench --rounds 2 --runtime 3 --size 4 --inline-size 256 --out /tmp/bench \
	"$NFS_SERVER:$NFS_EXPORT" >/tmp/bench.out 2>/tmp/bench.err || b_rc=$?
sed 's/^/# bench: /' /tmp/bench.err | tail -n 12
check "bench: 2 rounds exit 0 ($b_rc)" test "$b_rc" = 0
if [ "$b_rc" != 0 ]; then
	tail -n 5 /tmp/bench/*.log 2>/dev/null | sed 's/^/# bench: /' || true
fi
if [ -f /tmp/bench/results.md ]; then
	grep -E '^(## |\|)' /tmp/bench/results.md | sed 's/^/# bench (emulated): /'
fi
# The plot needs matplotlib (not in the guest images as built today);
# without it the bench says how to get it
if python3 -c 'import matplotlib' 2>/dev/null; then
	check "bench: results.md, results.csv and a PNG" \
		bash -c 'test -s /tmp/bench/results.md && test -s /tmp/bench/results.csv &&
			head -c 8 /tmp/bench/latency.png | od -An -c | grep -q "P   N   G"'
else
	check "bench: results.md, results.csv; no matplotlib: no PNG, and how to get it" \
		bash -c 'test -s /tmp/bench/results.md && test -s /tmp/bench/results.csv &&
			test ! -e /tmp/bench/latency.png &&
			grep -qF "apt-get install python3-matplotlib" /tmp/bench.err'
fi
check "bench: 4 runs of each mode in the CSV" \
	test "$(b_rows /tmp/bench/results.csv A) $(b_rows /tmp/bench/results.csv B)" = "4 4"
check "bench: 0 verify errors" grep -q '^Verify errors (fio, verify=crc32c): 0\.' /tmp/bench/results.md
check "bench: results.md embeds this host's rpcrdma-inline report: module ours, the client connection's mount" \
	bash -c "grep -q '^    module: ours\$' /tmp/bench/results.md && grep -q '^    connection: client .* mount=\"/tmp/rpcrdma-inline-bench' /tmp/bench/results.md"
check "bench: results.md names the mount's negotiated vers, rsize and wsize" \
	grep -qE '^    mount: vers=[0-9.]+ rsize=[0-9]+ wsize=[0-9]+ proto=rdma' /tmp/bench/results.md
check "bench: mode A posted nothing inline, on either side" \
	test "$(awk -F'\t' '$2 == "A" { s += $4 + $5 + $7 + $8 } END { print s + 0 }' /tmp/bench/rounds.tsv)" = 0
check "bench: mode B was granted 256 and posted inline, on both sides" \
	test "$(awk -F'\t' '$2 == "B" && $4 == 256 && $5 > 0 && $7 == 256 && $8 > 0' /tmp/bench/rounds.tsv | grep -c .)" = 2
check "bench: the module parameters are back ($(b_params))" test "$(b_params)" = "$b_before"
check "bench: nothing left mounted" test "$(b_mounts)" = 0

# bench_fails NAME WANT-RC MESSAGE ARGS...: refused with MESSAGE on stderr,
# the parameters as before, nothing mounted
bench_fails() {
	local name=$1 want=$2 msg=$3 rc=0
	shift 3
	"$@" >/dev/null 2>/tmp/bench.err || rc=$?
	log "bench: $name: exit $rc: $(head -n 1 /tmp/bench.err)"
	check "bench: $name: exit $want, saying '$msg'" \
		bash -c "test $rc = $want && grep -qF -- \"$msg\" /tmp/bench.err"
	check "bench: $name: parameters back, nothing mounted ($(b_params), $(b_mounts) mounts)" \
		test "$(b_params) $(b_mounts)" = "$b_before 0"
}
bench_fails "one round" 2 "--rounds takes a number of at least 2" \
	"$BENCH" bench --rounds 1 "$NFS_SERVER:$NFS_EXPORT"
bench_fails "no export path" 2 "is not SERVER:/EXPORT" "$BENCH" bench "$NFS_SERVER"
bench_fails "unknown option" 2 "unknown option: --fast" "$BENCH" bench --fast "$NFS_SERVER:$NFS_EXPORT"
bench_fails "an export that cannot be mounted" 1 "cannot be mounted over RDMA" \
	"$BENCH" bench --rounds 2 --runtime 2 --size 4 --out /tmp/bench-x "$NFS_SERVER:/no/such/export"
# The export (a 512 MiB tmpfs) has no room for two files of 100000 MiB:
# refused before any is written, naming the --size that fits
bench_fails "an export too small for --size" 1 "MiB to spare: run it with --size" \
	"$BENCH" bench --rounds 2 --runtime 2 --size 100000 --out /tmp/bench-x "$NFS_SERVER:$NFS_EXPORT"
bench_fails "a server with no route" 1 "is not reachable: no route to it" \
	"$BENCH" bench --out /tmp/bench-x 192.0.2.1:/export
# A PATH with everything but fio
mkdir -p /tmp/nofio
for f in /usr/bin/* /usr/sbin/*; do
	[ "${f##*/}" = fio ] || ln -sf "$f" /tmp/nofio/
done
bench_fails "fio missing" 1 "fio is missing: install it" \
	env PATH=/tmp/nofio "$BENCH" bench "$NFS_SERVER:$NFS_EXPORT"
mkdir -p /tmp/fakesys/module/rpcrdma/parameters
bench_fails "the stock module loaded" 1 "the loaded rpcrdma is not rpcrdma-inline's module" \
	env RPCRDMA_INLINE_SYSFS=/tmp/fakesys "$BENCH" bench "$NFS_SERVER:$NFS_EXPORT"

# bench_interrupted NAME SIGNAL|nfsd MESSAGE: start a bench, wait for its
# first timed run, then interrupt it (Ctrl-C reaches the whole process
# group) or stop nfsd; it must stop, unmount and restore the parameters.
# Shorter NFS timeouts (given last, they win) make fio see the server gone
# sooner
bench_interrupted() {
	local name=$1 how=$2 msg=$3 pid rc=0 _
	# In a session of its own, with SIGINT not ignored as in a background job
	setsid python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$BENCH" bench --rounds 2 --runtime 20 --size 8 \
		-o timeo=20,retrans=1 --out /tmp/bench-i "$NFS_SERVER:$NFS_EXPORT" >/dev/null 2>/tmp/bench.err &
	pid=$!
	for _ in $(seq 240); do
		grep -q 'randwrite' /tmp/bench.err && break
		sleep 0.5
	done
	sleep 3
	if [ "$how" = nfsd ]; then
		rpc.nfsd 0
	else
		kill "-$how" -- "-$pid"
	fi
	for _ in $(seq 360); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	wait "$pid" || rc=$?
	log "bench: $name: exit $rc: $(tail -n 2 /tmp/bench.err | tr '\n' ' ')"
	check "bench: $name: stops, non-zero ($rc), saying '$msg'" \
		bash -c "test $rc != 0 && grep -qF -- \"$msg\" /tmp/bench.err"
	check "bench: $name: parameters back, nothing mounted ($(b_params), $(b_mounts) mounts)" \
		test "$(b_params) $(b_mounts)" = "$b_before 0"
}
bench_interrupted "Ctrl-C" INT "module parameters restored: inline_size=192"
bench_interrupted "the server going away" nfsd "the server may have gone away"
rpc.nfsd "$NFS_THREADS"
echo "rdma $NFS_RDMA_PORT" >/proc/fs/nfsd/portlist
echo 256 >$P/inline_size
