#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The packaging tests, one after the other: each prints TAP; this prints
# their output and ends with "N passed, N failed", failing if any failed.
#
# usage: tests/packaging/run.sh [admin|load-rpcrdma|module-signing|deb|rpm|install-rpm|deb-install|upgrade|install-script]...
#        (default: admin load-rpcrdma module-signing deb rpm install-rpm; the others boot guests or build in
#        chroots and take minutes: tests/run.sh runs upgrade and
#        install-script on their own)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(admin load-rpcrdma module-signing deb rpm install-rpm)
passed=0
failed=0
for n in "${names[@]}"; do
	t="$here/test-$n.sh"
	[ -x "$t" ] || { echo "unknown packaging test '$n': admin, load-rpcrdma, module-signing, deb, rpm, install-rpm, deb-install, upgrade or install-script" >&2; exit 2; }
	echo "# test-$n.sh"
	t0=$SECONDS
	if "$t"; then
		passed=$((passed + 1))
		echo "# test-$n.sh passed ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1))
		echo "# test-$n.sh FAILED ($((SECONDS - t0)) s)"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
