#!/bin/bash
# Boot one Debian kernel in QEMU and run the in-guest tests there: DKMS
# install, NFS over soft RoCE with rpcrdma-inline, and back to stock.
#
# usage: test-guest.sh SERIES [GUEST_SCRIPT]   (6.1, 6.12 or 7.3)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:?usage: test-guest.sh SERIES [GUEST_SCRIPT]}
script=${2:-tests/guest/foundation.sh}
img=$(image_dir "$(image_dist "$series")")
kver=$(image_kver "$img" "$series")
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/guest-$series-$(basename "$script" .sh)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"
rm -rf "$out"
mkdir -p "$out"

rc=0
"$REPO/tests/vm/run-guest.sh" --image "$img" --kernel "$kver" \
	--share "$work/src" --out "$out" --script "$script" --quiet \
	--timeout "${RPCRDMA_INLINE_GUEST_TIMEOUT:-2400}" || rc=$?
cat "$out/guest.log" 2>/dev/null || true
echo "# console log: $out/console.log"
exit "$rc"
