#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# `modprobe rpcrdma` when the kernel refuses our module, on Debian 13
# (dkms 3.2, which moves the stock module away while ours is installed):
# its 6.12 kernel booted with module.sig_enforce=1 runs
# guest/load-fallback.sh (the install rule and load-rpcrdma from this
# tree, the module tree as dkms 3.2 leaves it, an unsigned "ours"). About
# 2 minutes under TCG, most of it depmod.
# usage: test-load-fallback.sh [SERIES]   (default 6.12+deb13)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:-6.12+deb13}
img=$(series_image "$series")
kver=$(image_kver "$img" "$series")
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/load-fallback-$series"
rm -rf "$out"
mkdir -p "$out"
rc=0
"$REPO/tests/vm/run-guest.sh" --image "$img" --kernel "$kver" --out "$out" \
	--script tests/packaging/guest/load-fallback.sh --append module.sig_enforce=1 \
	--timeout 1200 --quiet >"$out/run-guest.log" 2>&1 || rc=$?
guest_tap "$out/guest.log"
expect_eq "run-guest.sh exits 0 (script passed, no kernel warning)" 0 "$rc"
if [ "$rc" -ne 0 ]; then tail -n 20 "$out/run-guest.log" | sed 's/^/#   /'; fi
tap_end
