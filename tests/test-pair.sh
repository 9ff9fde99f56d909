#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Two machines: an NFS server guest and a client guest, each booting a
# Debian kernel with its own rxe device on its own virtio-net NIC, joined
# by a QEMU socket on 127.0.0.1 (tests/vm/run-set.sh), each side with
# ours or the stock rpcrdma. The in-guest half is tests/guest/pair.sh:
# fio verify=crc32c and small files compared in the export, per NFS
# version; the stock side posts nothing inline, our side's counters agree
# with its driver.
#
# usage: test-pair.sh SERVER_SERIES:MODULE CLIENT_SERIES:MODULE
#        e.g. test-pair.sh 6.1:stock 6.1:ours; MODULE ours or stock
# env:   PAIR_VERS (default "4.2"; "4.2,3": both), PAIR_FIO_MIB, PAIR_FILES,
#        PAIR_SEQ_BS, PAIR_SEQ_MIB, PAIR_NETEM, PAIR_LINKDOWN, PAIR_LINKDOWN_READD,
#        PAIR_CLIENT_MTU, PAIR_BENCH, PAIR_BENCH_DELAY_NS, PAIR_BENCH_ROUNDS,
#        PAIR_BENCH_RUNTIME, PAIR_PROGRESS,
#        PAIR_IO_WAIT (tests/guest/pair.sh)
#        PAIR_SCALE=1  instead, scale and memory: 64 connections, stock then
#                      ours, both guests with possible_cpus=256
#                      (tests/guest/pair-scale.sh; PAIR_SCALE_PCT)
#        PAIR_KILL=1   instead, the server's QEMU killed under the client's
#                      writes and booted again, per version of PAIR_VERS
#                      (default 3), its export on a disk image
#                      (tests/guest/pair-kill.sh)
#        RPCRDMA_INLINE_GUEST_TIMEOUT  per guest, seconds (default 3000)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: test-pair.sh SERVER_SERIES:MODULE CLIENT_SERIES:MODULE (MODULE: ours or stock)" >&2
	exit 2
}
[ $# -eq 2 ] || usage
for a in "$@"; do
	[[ $a =~ ^[0-9][^:]*:(ours|stock)$ ]] || usage
done
s_series=${1%%:*} s_mod=${1#*:}
c_series=${2%%:*} c_mod=${2#*:}
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/pair-$s_series-$s_mod-$c_series-$c_mod${GUEST_TAG:+-$GUEST_TAG}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"
rm -rf "$out"
mkdir -p "$out"

declare -A built=()
guests=()
for pair in "server:$s_series:$s_mod" "client:$c_series:$c_mod"; do
	IFS=: read -r role series mod <<<"$pair"
	img=$(series_image "$series")
	kver=$(image_kver "$img" "$series")
	if [ -z "${built[$kver]:-}" ]; then
		mkdir -p "$out/build-$kver"
		guest_artifacts "$img" "$kver" "$work/src" "$out/build-$kver" || exit 1
		built[$kver]=1
	fi
	guests+=(--guest "$role:$img:$kver")
	echo "# $role: $kver, $mod rpcrdma"
done

envs=(--env "PAIR_SERVER=$s_mod" --env "PAIR_CLIENT=$c_mod")
for v in PAIR_VERS PAIR_FIO_MIB PAIR_FILES PAIR_SEQ_BS PAIR_SEQ_MIB PAIR_NETEM PAIR_LINKDOWN PAIR_LINKDOWN_READD PAIR_CLIENT_MTU \
	PAIR_BENCH PAIR_BENCH_DELAY_NS PAIR_BENCH_ROUNDS PAIR_BENCH_RUNTIME PAIR_PROGRESS PAIR_IO_WAIT PAIR_SCALE_PCT; do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
script=(--script tests/guest/pair.sh)
[ -z "${PAIR_SCALE:-}" ] || script=(--script tests/guest/pair-scale.sh --append possible_cpus=256)
if [ -n "${PAIR_KILL:-}" ]; then
	truncate -s 1G "$work/server-disk.img"
	script=(--script tests/guest/pair-kill.sh --disk "server=$work/server-disk.img" --restart server)
fi
t0=$SECONDS
rc=0
"$work/src/tests/vm/run-set.sh" --out "$out" --share "$work/src" "${script[@]}" \
	--timeout "${RPCRDMA_INLINE_GUEST_TIMEOUT:-3000}" "${guests[@]}" "${envs[@]}" \
	2>"$out/run-set.log" || rc=$?
for role in server client; do
	echo "# ---- $role"
	cat "$out/$role/guest.log" 2>/dev/null || echo "# $role left no guest.log"
	tail -n 3 "$out/$role/run-guest.log" 2>/dev/null | sed 's/^/# /'
done
sed 's/^/# /' "$out/run-set.log"
# A server boot that was killed checked nothing of its own kernel log
for c in "$out"/server-boot*/console.log; do
	[ -f "$c" ] || continue
	n=$(grep -cE 'WARNING:|BUG:|kernel BUG|Oops|general protection fault|Call Trace' "$c" || true)
	echo "# ${c#"$out"/}: $n kernel warnings before the kill"
	if [ "$n" != 0 ]; then
		grep -E -A5 'WARNING:|BUG:|Oops|Call Trace' "$c" | head -n 30 | sed 's/^/#   /'
		[ "$rc" != 0 ] || rc=3
	fi
done
echo "# the pair took $((SECONDS - t0)) s; consoles in $out/{server,client}/console.log"
exit "$rc"
