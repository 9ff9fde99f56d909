#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The bench's --server-cmd in a pair (tests/guest/pair.sh, PAIR_BENCH=1),
# standing in for ssh: ask the server guest, through /sync, to set its
# inline_size to SIZE, wait until it says it has, and print the value it
# read back as the bench reads it (inline_size=N), after, on the first
# ask, the server's rpcrdma-inline report (as 'ssh server "... &&
# rpcrdma-inline report"' prints it).
#
# usage: pair-server-cmd.sh SIZE
set -euo pipefail
size=${1:?usage: pair-server-cmd.sh SIZE}
n=$(($(cat /sync/bench-asks 2>/dev/null || echo 0) + 1))
echo "$n" >/sync/bench-asks
echo "$n $size" >/sync/bench-size.tmp
mv /sync/bench-size.tmp /sync/bench-size
for _ in $(seq 600); do
	read -r dn dsize now </sync/bench-done 2>/dev/null || true
	if [ "${dn:-}" = "$n" ] && [ "${dsize:-}" = "$size" ]; then
		if [ "$n" = 1 ] && [ -f /sync/server-report.txt ]; then
			cat /sync/server-report.txt
		fi
		echo "inline_size=${now:-}"
		exit 0
	fi
	sleep 0.1
done
echo "the server guest did not set inline_size=$size within 60 s" >&2
exit 1
