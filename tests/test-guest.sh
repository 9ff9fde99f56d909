#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Boot one Debian kernel in QEMU and run the in-guest tests there: DKMS
# install, NFS over soft RoCE with rpcrdma-inline, and back to stock.
#
# usage: test-guest.sh SERIES [GUEST_SCRIPT]   (6.12+deb13, 6.1, 6.12, 7.3 or 6.12-debug)
# env:   GUEST_PHASES   the phases of tests/guest/suite.sh to run
#        GUEST_TAG      names the output directory (default: the script's name)
#        GUEST_MEASURE  1: the full integrity workload in the client phase
#        GUEST_BENCH_*  passed to GUEST_SCRIPT too (tests/bench/latency.sh)
#        FAULTS_CYCLES, FAULTS_RELOADS, FAULTS_FIO_LIMIT, FAULTS_FIO_MIB, FAILSLAB_ROUNDS, FAILSLAB_DATA_ROUNDS,
#        INTEGRITY_MIB, INTEGRITY_FILES
#                       the faults and failslab phases' counts, the
#                       integrity workload's size
#        MODELS, MODELS_MIB  the models phase's models and size
#
# Under TCG a DKMS build inside the guest takes 10 minutes and more, so by
# default DKMS builds the module in a chroot of the same guest image (the
# same userland, headers and linux-source package) and exports it with
# `dkms mktarball --binaries-only` (guest_artifacts, tests/lib.sh); the
# guest then installs it with `dkms ldtarball` and `dkms install`, as for
# a prebuilt DKMS package. RPCRDMA_INLINE_GUEST_BUILD=guest makes the
# guest build it itself.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:?usage: test-guest.sh SERIES [GUEST_SCRIPT]}
script=${2:-tests/guest/suite.sh}
img=$(series_image "$series")
kver=$(image_kver "$img" "$series")
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/guest-$series-${GUEST_TAG:-$(basename "$script" .sh)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"
rm -rf "$out"
mkdir -p "$out"

guest_artifacts "$img" "$kver" "$work/src" "$out" || exit 1

envs=()
for v in GUEST_PHASES GUEST_MEASURE MODELS MODELS_MIB FAULTS_CYCLES FAULTS_RELOADS FAULTS_FIO_LIMIT FAULTS_FIO_MIB FAILSLAB_ROUNDS FAILSLAB_DATA_ROUNDS \
	INTEGRITY_MIB INTEGRITY_FILES \
	$(compgen -v GUEST_BENCH_ || true); do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
# The debug kernel interprets ACPI's AML so slowly under TCG that the
# PCI routing method (_PRT) times out, 30 s per device: route PCI
# interrupts from the BIOS's table instead
append=()
case $series in *-debug) append=(--append pci=noacpi) ;; esac
rc=0
"$REPO/tests/vm/run-guest.sh" --image "$img" --kernel "$kver" "${envs[@]}" "${append[@]}" \
	--share "$work/src" --out "$out" --script "$script" --quiet \
	--timeout "${RPCRDMA_INLINE_GUEST_TIMEOUT:-3000}" || rc=$?
cat "$out/guest.log" 2>/dev/null || true
echo "# console log: $out/console.log"
exit "$rc"
