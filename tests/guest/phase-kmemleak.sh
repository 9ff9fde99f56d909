#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh; debug kernel only):
# kmemleak. The first time it runs it scans and clears what the boot left
# (early allocations kmemleak cannot follow); every later run scans again
# and fails on any new report, printing it.

KML=/sys/kernel/debug/kmemleak

kml_scan() {
	# An object is reported once it was seen unreferenced by two scans
	echo scan >"$KML"
	sleep 6
	echo scan >"$KML"
}

if [ ! -e "$KML" ]; then
	check "kmemleak is in this kernel" false
elif [ -z "${KML_ARMED:-}" ]; then
	kml_scan
	log "kmemleak: $(grep -c '^unreferenced object' "$KML" || true) reports before the tests, cleared"
	echo clear >"$KML"
	KML_ARMED=1
else
	kml_scan
	kml_scan
	cat "$KML" >/tmp/kmemleak.txt
	kml_n=$(grep -c '^unreferenced object' /tmp/kmemleak.txt || true)
	kml_ours=$(awk '/^unreferenced object/ { o = 0 } /\[rpcrdma\]|rpcrdma|svc_rdma|xprt_rdma|wqe_inline/ { if (!o) n++; o = 1 } END { print n + 0 }' /tmp/kmemleak.txt)
	log "kmemleak: $kml_n new reports, $kml_ours with rpcrdma on their stack"
	if [ "$kml_n" != 0 ]; then
		sed 's/^/# kmemleak: /' /tmp/kmemleak.txt | head -n 200
	fi
	check "kmemleak: no new report since the start ($kml_n, $kml_ours from rpcrdma)" test "$kml_n" = 0
fi
