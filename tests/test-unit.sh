#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Userspace unit tests of the negotiation and eligibility logic.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

make -s -C "$REPO/tests/unit" clean
make -s -C "$REPO/tests/unit"
