#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# DKMS's POST_BUILD: say what was built, which DKMS shows (make's output
# goes to make.log only): the kernel series and hook variants, and
# whether a test covers them (src/hooks/TESTED); "built UNTESTED" if not.
#
# usage: build-report.sh KVER     (from the top of the built tree)
set -euo pipefail
kver=${1:?usage: build-report.sh KVER}
h=build/$kver/linux/include/rpcrdma_inline_build.h
if [ ! -f "$h" ]; then
	echo "rpcrdma-inline: built for $kver (no build record at $h)"
	exit 0
fi
hooks=$(sed -n 's/^#define RPCRDMA_INLINE_HOOKS "\(.*\)"$/\1/p' "$h")
tested=$(sed -n 's/^#define RPCRDMA_INLINE_TESTED "\(.*\)"$/\1/p' "$h")
if [ "$tested" = tested ]; then
	echo "rpcrdma-inline: built for $kver with hooks $hooks: a test covers these"
else
	echo "rpcrdma-inline: warning: built for $kver with hooks $hooks: built UNTESTED, no test has covered these variants (src/hooks/TESTED); please report how it runs"
fi
