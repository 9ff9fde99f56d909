#!/bin/bash
# Helpers for the in-guest tests of rpcrdma-inline (source this file after
# tests/vm/guest/lib.sh).
#
#   integrity_workload MNT EXPORTDIR   8 MiB of 4 KiB O_DIRECT writes then
#                                      reads, and 200 small files; every byte
#                                      compared through MNT and in EXPORTDIR
#   conn_line SIDE                     the debugfs connection line of SIDE
#   conn_field SIDE KEY                one KEY=VALUE of that line
#   ours_loaded                        the loaded rpcrdma is rpcrdma-inline

CONNS=/sys/kernel/debug/rpcrdma_inline/connections
PKG_VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /src/dkms.conf)

log() { echo "# $*"; }

integrity_workload() {
	local mnt=$1 export=$2 src i fails=0
	src=$(mktemp -d /tmp/wl.XXXXXX)
	head -c $((8 << 20)) /dev/urandom >"$src/big"
	dd if="$src/big" of="$mnt/big" bs=4k oflag=direct status=none || return 1
	dd if="$mnt/big" of="$src/big.back" bs=4k iflag=direct status=none || return 1
	cmp "$src/big" "$src/big.back" || fails=$((fails + 1))
	cmp "$src/big" "$export/big" || fails=$((fails + 1))

	mkdir -p "$src/small" "$mnt/small"
	for i in $(seq 200); do
		head -c $((RANDOM % 8192 + 1)) /dev/urandom >"$src/small/f$i"
	done
	cp "$src"/small/f* "$mnt/small/"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for i in $(seq 200); do
		cmp -s "$src/small/f$i" "$mnt/small/f$i" || fails=$((fails + 1))
		cmp -s "$src/small/f$i" "$export/small/f$i" || fails=$((fails + 1))
	done
	rm -rf "$src" "$mnt/big" "$mnt/small"
	if [ "$fails" -ne 0 ]; then
		log "integrity: $fails comparisons differ"
		return 1
	fi
	log "integrity: 8 MiB and 200 files compared equal through the mount and in the export"
}

conn_line() {
	grep "^$1 " "$CONNS" | head -n 1
}

conn_field() {
	conn_line "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

ours_loaded() {
	[ -f /sys/module/rpcrdma/version ] &&
		[ "$(cat /sys/module/rpcrdma/version)" = "$PKG_VERSION" ] &&
		[ -f /sys/module/rpcrdma/parameters/inline_size ]
}

# Unload rpcrdma once nothing holds it (the client's transport goes away
# a little after umount)
unload_rpcrdma() {
	local _
	for _ in $(seq 60); do
		modprobe -r rpcrdma 2>/dev/null && return 0
		sleep 0.5
	done
	modprobe -r rpcrdma
}

# Wait until no connection is listed any more (after umount)
conns_gone() {
	local _
	for _ in $(seq 80); do
		[ -s "$CONNS" ] || return 0
		sleep 0.25
	done
	log "connections still listed: $(tr '\n' ';' <"$CONNS")"
	return 1
}

# Count each post of SIDE, inline or not, in a tracepoint histogram
HIST=/sys/kernel/tracing/events/rpcrdma_inline/rpcrdma_wqe_inline_post
hist_start() {
	echo 'hist:keys=side,inlined' >>"$HIST/trigger"
}

hist_stop() {
	echo '!hist:keys=side,inlined' >>"$HIST/trigger" 2>/dev/null || true
}

# hist_count SIDE INLINED: SIDE 0 server, 1 client; INLINED 0 or 1
hist_count() {
	awk -v s="$1" -v i="$2" '
		/^\{/ { gsub(/[{},:]/, " "); n = 0
			for (f = 1; f <= NF; f++) {
				if ($f == "side") side = $(f + 1)
				if ($f == "inlined") inl = $(f + 1)
				if ($f == "hitcount") n = $(f + 1)
			}
			if (side == s && inl == i) total += n }
		END { print total + 0 }' "$HIST/hist"
}

# The Sends the RDMA driver saw, counted by tests/modules/inline_limit.ko
driver_sends() {
	cat "/sys/module/inline_limit/parameters/sends_$1"
}

GUEST_MODULES=/src/build/guest-modules/$(uname -r)
export GUEST_MODULES
