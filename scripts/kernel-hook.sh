#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# rpcrdma-inline's hooks in a Debian kernel's maintainer scripts, one file
# installed as (run-parts runs them in name order):
#   /etc/kernel/postinst.d/50-rpcrdma-inline         before dkms's hook
#   /etc/kernel/header_postinst.d/50-rpcrdma-inline  before dkms's hook
#   /etc/kernel/postrm.d/rpcrdma-inline
# After a kernel (or its headers) is installed: build ours for it
# (build-for-kernels.sh: skipped and named when its source is missing, a
# failed build shown), always exiting 0, so that the kernel's initrd and
# boot entry are made whatever happens to ours; and leave the process id
# of this run-parts in /run/rpcrdma-inline/kernel-hook.pid, where
# dkms.conf reads it to make dkms's own hook, next in the same run,
# leave ours alone: dkms 3.0 fails the whole kernel postinst when one
# module does not build. After a kernel is removed: remove the kernel
# source kept for it (not on its upgrade or reinstall). Does nothing
# once the package is removed.
#
# usage: (run-parts) HOOK KVER [IMAGE]
set -euo pipefail
kver=${1:-}
[ -n "$kver" ] || exit 0
case $0 in
*/postrm.d/*)
	# The kernel's postrm runs these on an upgrade or reinstall too: keep
	# the source then (as initramfs-tools' own hook keeps the initrd)
	if [ -n "${DEB_MAINT_PARAMS:-}" ]; then
		eval set -- "$DEB_MAINT_PARAMS"
		[ "${1:-}" = remove ] || exit 0
	fi
	rm -rf "/var/lib/rpcrdma-inline/$kver"
	exit 0
	;;
esac
build=/usr/libexec/rpcrdma-inline/build-for-kernels
[ -x "$build" ] || exit 0
{ mkdir -p /run/rpcrdma-inline && echo "$PPID" >/run/rpcrdma-inline/kernel-hook.pid; } 2>/dev/null || true
"$build" "$kver" || true
exit 0
