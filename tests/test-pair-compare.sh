#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Ours must survive what stock survives: one fault of the wire (loss5,
# delay10, linkdown20, ...: tests/run.sh's pair_args) on two machines of
# SERIES, run with ours on both sides and with the stock module on both
# (tests/run.sh's pair-SERIES-ours-SERIES-ours-FAULT and
# pair-SERIES-stock-SERIES-stock-FAULT, side by side), then each check
# compared by name (numbers in names, such as counts, match any number).
# It fails when:
#   - a check that passed with stock failed with ours;
#   - a check only ours has failed (our counters, our inline Sends);
#   - a guest of ours did not run to its end where stock's did;
#   - a guest of ours logged a kernel warning.
# A check that fails with both is the kernel's (rxe, the RPC layer, the
# CM), not ours: it is listed as such, and does not fail this test.
#
# usage: test-pair-compare.sh SERIES FAULT
# env:   PAIR_COMPARE_ONLY=1  compare the logs of an earlier run only
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || {
	echo "usage: test-pair-compare.sh SERIES FAULT (e.g. 6.1 loss5)" >&2
	exit 2
}
series=$1 fault=$2
logs="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}"
ours=pair-$series-ours-$series-ours-$fault
stock=pair-$series-stock-$series-stock-$fault

if [ -z "${PAIR_COMPARE_ONLY:-}" ]; then
	# Side by side: each pair's log in build/test-logs, as tests/run.sh
	# leaves it
	pids=()
	for t in "$ours" "$stock"; do
		read -ra cmd <<<"$("$REPO/tests/run.sh" --command "$t")"
		"${cmd[@]}" >"$logs/$t.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || true
	done
	echo "# $ours: $(tail -n 1 "$logs/$ours.log")"
	echo "# $stock: $(tail -n 1 "$logs/$stock.log")"
fi

# results NAME: "STATUS<TAB>CHECK" for each check of both guests of a pair
results() {
	cat "$logs/$1/server/guest.log" "$logs/$1/client/guest.log" 2>/dev/null |
		sed -nE 's/^(not ok|ok) [0-9]+ - (.*)$/\1\t\2/p' | sed -E 's/[0-9]+/N/g' |
		sort -t "$(printf '\t')" -k2 -u
}
# ended NAME ROLE: the guest printed its plan line, having run to its end
ended() { grep -qE '^1\.\.[0-9]+$' "$logs/$1/$2/guest.log" 2>/dev/null; }
results "$ours" >"$logs/$fault-compare.ours"
results "$stock" >"$logs/$fault-compare.stock"
[ -s "$logs/$fault-compare.stock" ] || die "no checks of $stock in $logs: did it run?"

# One line per check name: "OURS STOCK NAME", each status ok, no or -
# (not run)
awk -F '\t' '
	FNR == 1 { f++ }
	{ s = $1 == "ok" ? "ok" : "no"; if (f == 1) o[$2] = s; else t[$2] = s; n[$2] = 1 }
	END { for (k in n) printf "%s %s %s\n", (k in o) ? o[k] : "-", (k in t) ? t[k] : "-", k }
' "$logs/$fault-compare.ours" "$logs/$fault-compare.stock" | sort -k3 >"$logs/$fault-compare"

lost=$(awk '$2 == "ok" && $1 == "no"' "$logs/$fault-compare")
own=$(awk '$2 == "-" && $1 == "no"' "$logs/$fault-compare")
# Read from the consoles, as a guest that did not end checked nothing
warn=$(grep -HE 'WARNING:|BUG:|kernel BUG|Oops|general protection fault|Call Trace' \
	"$logs/$ours"/*/console.log 2>/dev/null | head -n 10 | sed "s|^$logs/||" || true)
both=$(awk '$1 == "no" && $2 == "no"' "$logs/$fault-compare")
short=
for role in server client; do
	if ended "$stock" "$role" && ! ended "$ours" "$role"; then
		short+="$role: stopped before its end (last: $(grep -E '^(not )?ok ' "$logs/$ours/$role/guest.log" 2>/dev/null | tail -n 1))"$'\n'
	fi
done
short=${short%$'\n'}
n=0 failed=0
verdict() { # TEST NAME LIST: a TAP line, with LIST's checks under it
	n=$((n + 1))
	if [ -z "$3" ]; then
		echo "ok $n - $fault, $series: $2"
	else
		echo "not ok $n - $fault, $series: $2"
		failed=$((failed + 1))
		printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}
verdict 1 "every check that passed with stock passed with ours" "$lost"
verdict 2 "every check only ours has passed" "$own"
verdict 3 "our guests ran to their end where stock's did" "$short"
verdict 4 "no kernel warning on our guests' consoles" "$warn"
echo "# $(wc -l <"$logs/$fault-compare") checks by name; $(awk '$1 == "ok" && $2 == "ok"' "$logs/$fault-compare" | wc -l) passed with both"
if [ -n "$both" ]; then
	echo "# failed with both modules (the kernel's, not ours):"
	printf '%s\n' "$both" | sed 's/^no no /#   /'
fi
echo "1..$n"
[ "$failed" = 0 ]
