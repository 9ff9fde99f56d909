#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The in-guest test suite, run by tests/test-guest.sh in a QEMU guest
# booting a Debian kernel: one boot, one DKMS build, then each phase.
#
# env: GUEST_PHASES   phases to run, in order
#      (default: install integrity server negotiation drivers client revert;
#      separated by spaces or commas)
#      GUEST_MEASURE=1  run the full integrity workload in the client phase
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. /src/tests/vm/guest/lib.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
. /src/tests/guest/common.sh

for phase in $(tr , " " <<<"${GUEST_PHASES:-install integrity server negotiation drivers client revert}"); do
	t_phase=$SECONDS
	log "phase $phase"
	# shellcheck source=/dev/null
	. "/src/tests/guest/phase-$phase.sh"
	log "phase $phase took $((SECONDS - t_phase)) s"
done
tap_done
