#!/bin/bash
# The bench's --server-cmd in a pair (tests/guest/pair.sh, PAIR_BENCH=1),
# standing in for ssh: ask the server guest, through /sync, to set its
# inline_size to SIZE, and wait until it says it has.
#
# usage: pair-server-cmd.sh SIZE
set -euo pipefail
size=${1:?usage: pair-server-cmd.sh SIZE}
n=$(($(cat /sync/bench-asks 2>/dev/null || echo 0) + 1))
echo "$n" >/sync/bench-asks
echo "$n $size" >/sync/bench-size.tmp
mv /sync/bench-size.tmp /sync/bench-size
for _ in $(seq 600); do
	[ "$(cat /sync/bench-done 2>/dev/null)" = "$n $size" ] && exit 0
	sleep 0.1
done
echo "the server guest did not set inline_size=$size within 60 s" >&2
exit 1
