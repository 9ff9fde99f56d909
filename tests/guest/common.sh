#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Helpers for the in-guest tests of rpcrdma-inline (source this file after
# tests/vm/guest/lib.sh).
#
#   small_files DIR N                  N files of 1 to 8192 random bytes
#   integrity_workload MNT EXPORTDIR [MIB] [FILES]
#                                      8 MiB of 4 KiB O_DIRECT writes then
#                                      reads, and 200 small files (or MIB and
#                                      FILES); every byte compared through
#                                      MNT and in EXPORTDIR
#   serve_export                       rxe0 on dummy0 and an NFS server of
#                                      a tmpfs on /export
#   conn_line SIDE                     the debugfs connection line of SIDE
#   conn_field SIDE KEY                one KEY=VALUE of that line
#   conn_sums_agree SIDE               its reasons add up to byref
#   side_sends SIDE                    SIDE's Sends since load, by size
#   sizes_agree SIDE BASE              those since BASE are its connection's
#   ours_loaded                        the loaded rpcrdma is rpcrdma-inline
#   settle FUNC WANT [TRIES] [PAUSE]   run FUNC until it prints WANT (or
#                                      TRIES times), print its last output
#   kmalloc_objects                    objects in use per kmalloc cache
#   kmalloc_growth BEFORE AFTER        the cache that grew most beyond one
#                                      slab's worth, and by how much
#   rdma_rpc_xprts                     how many rpc_xprts sunrpc lists with
#                                      netid rdma (reads their info: only
#                                      while the rpcrdma that made them is
#                                      loaded)
#   rpc_xprt_read_all                  read every rpc_xprt debugfs file,
#                                      print how many
#   kernel_problems                    Oops/WARN/BUG lines in dmesg so far
#   fio_slowest OUTPUT                 fio's longest completion latency
#                                      (every section of its output), in s
#   stock_file                         the stock rpcrdma.ko, decompressed
#   load_rpcrdma_of ours|stock         load that rpcrdma

CONNS=/sys/kernel/debug/rpcrdma_inline/connections
PKG_VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /src/dkms.conf)

log() { echo "# $*"; }

# small_files DIR N: files f1 .. fN of 1 to 8192 random bytes in DIR,
# made by one process (exec is dear under TCG)
small_files() {
	perl -e 'open(my $r, "<", "/dev/urandom") or die;
		for my $i (1 .. $ARGV[1]) {
			read($r, my $buf, 1 + int(rand(8192)));
			open(my $f, ">", "$ARGV[0]/f$i") or die; print $f $buf; close($f);
		}' "$1" "$2"
}

# integrity_workload MNT EXPORTDIR [MIB] [FILES]
integrity_workload() {
	local mnt=$1 export=$2 mib=${3:-8} files=${4:-200} src fails=0
	src=$(mktemp -d /tmp/wl.XXXXXX)
	head -c $((mib << 20)) /dev/urandom >"$src/big"
	dd if="$src/big" of="$mnt/wl-big" bs=4k oflag=direct status=none || return 1
	dd if="$mnt/wl-big" of="$src/big.back" bs=4k iflag=direct status=none || return 1
	cmp "$src/big" "$src/big.back" || fails=$((fails + 1))
	cmp "$src/big" "$export/wl-big" || fails=$((fails + 1))

	# Small files of 1 to 8192 bytes, made by one process (exec is dear
	# under TCG), copied in, compared through the mount and in the export
	mkdir -p "$src/small" "$mnt/wl-small"
	small_files "$src/small" "$files"
	cp "$src"/small/f* "$mnt/wl-small/"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	diff -r "$src/small" "$mnt/wl-small" >/dev/null || fails=$((fails + 1))
	diff -r "$src/small" "$export/wl-small" >/dev/null || fails=$((fails + 1))
	[ "$(find "$mnt/wl-small" -type f | wc -l)" -eq "$files" ] || fails=$((fails + 1))
	rm -rf "$src" "$mnt/wl-big" "$mnt/wl-small"
	if [ "$fails" -ne 0 ]; then
		log "integrity: $fails comparisons differ"
		return 1
	fi
	log "integrity: $mib MiB and $files files compared equal through the mount and in the export"
}

# rxe0 on dummy0 (192.168.77.1) and an NFS server exporting a tmpfs on
# /export, over whichever rpcrdma modprobe loads
serve_export() {
	rxe_up 192.168.77.1
	mkdir -p /export
	mount -t tmpfs -o size=512m tmpfs /export
	nfs_server_start /export
}

conn_line() {
	grep "^$1 " "$CONNS" | head -n 1
}

conn_field() {
	conn_line "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# conn_sums_agree SIDE: on SIDE's connection line, the reasons by reference
# add up to byref
conn_sums_agree() {
	conn_line "$1" | awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		why = v["chunks"] + v["chained"] + v["off"] + v["pages"] + v["unpulled"] + v["large"] + v["sge"]
		ok = v["byref"] != "" && why == v["byref"]
		if (!ok) print "# byref=" v["byref"] " reasons=" why
		exit !ok
	}'
}

# Where rxe drops a packet it was given (PAIR_LINKDOWN): kretprobes on
# rdma_find_gid_by_port() (rxe_chk_dgid(): the destination GID is not in
# the table), rxe_pool_get_index() (hdr_check(): no such QP; MR lookups
# use it too; the lookups by pool and index beside it) and
# rxe_icrc_check() (called once hdr_check() passed: its results), in
# histograms, and the port's P_Key and Q_Key violation counters
# (check_keys()): rxe_drops_start, then rxe_drops prints them
RXE_KP=/sys/kernel/tracing/events/kprobes
rxe_drops_start() {
	# shellcheck disable=SC2016 # $retval is the tracer's, not a variable
	{
		echo 'r:kprobes/pair_gid ib_core:rdma_find_gid_by_port ret=$retval:x64'
		echo 'p:kprobes/pair_getix rdma_rxe:rxe_pool_get_index pool=%di:x64 index=%si:u32'
		echo 'r:kprobes/pair_ix rdma_rxe:rxe_pool_get_index ret=$retval:x64'
		echo 'r:kprobes/pair_icrc rdma_rxe:rxe_icrc_check ret=$retval:s32'
	} >>/sys/kernel/tracing/kprobe_events || return 0
	echo 'hist:keys=ret' >>"$RXE_KP/pair_icrc/trigger"
	echo 1 >"$RXE_KP/pair_icrc/enable"
	echo 'hist:keys=ret' >>"$RXE_KP/pair_gid/trigger"
	echo 'hist:keys=pool,index' >>"$RXE_KP/pair_getix/trigger"
	echo 'hist:keys=ret if ret == 0' >>"$RXE_KP/pair_ix/trigger"
	echo 1 >"$RXE_KP/pair_gid/enable"
	echo 1 >"$RXE_KP/pair_getix/enable"
	echo 1 >"$RXE_KP/pair_ix/enable"
}
rxe_drops() {
	local h
	for h in pair_gid pair_ix pair_icrc pair_getix; do
		[ -r "$RXE_KP/$h/hist" ] || continue
		printf '%s: %s ' "$h" "$(grep -E '^\{' "$RXE_KP/$h/hist" | tr -s ' \t' ' ' | head -n 8 | tr '\n' ';')"
	done
	printf 'port %s' "$(ibv_devinfo -v -d rxe0 2>&1 | grep -E 'bad_pkey_cntr|qkey_viol_cntr|rror|ailed' | tr -s ' \t' ' ' | tr '\n' ' ')"
}

# The connection manager's MADs (PAIR_LINKDOWN): ib_cma's icm_* events
# (each CM message sent, each error) and ib_mad's send and receive
# completions, in a trace instance of their own: cm_trace_start, then
# cm_trace prints how many of each event, and the last three lines
CM_TRACE=/sys/kernel/tracing/instances/cm
cm_trace_start() {
	local e
	mkdir -p "$CM_TRACE"
	for e in "$CM_TRACE"/events/ib_cma/icm_* "$CM_TRACE"/events/ib_mad/ib_mad_recv_done_handler \
		"$CM_TRACE"/events/ib_mad/ib_mad_send_done_handler "$CM_TRACE"/events/ib_mad/ib_mad_error_handler; do
		[ ! -e "$e/enable" ] || echo 1 >"$e/enable"
	done
	: >"$CM_TRACE/trace"
}
cm_trace() {
	printf '%s; last: %s' "$(grep -oE ' (icm_[a-z_]+|ib_mad_[a-z_]+):' "$CM_TRACE/trace" | sort | uniq -c |
		sed 's/:$//' | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')" \
		"$(grep -E ' (icm_[a-z_]+|ib_mad_[a-z_]+):' "$CM_TRACE/trace" | tail -n 3 |
			sed -E 's/^ *[^ ]+ +\[[0-9]+\] [^ ]+ +([0-9.]+): /\1 /' | cut -c1-220 | tr '\n' ';')"
}

# svcrdma's Work Completions in error, other than flushes (the WR that
# ended the connection: a Send, an RDMA Write or Read of a chunk, with
# its status, e.g. RETRY_EXC_ERR), in a trace instance of their own:
# wc_errs_start enables their events, wc_errs prints how many of each
# event and status, and the first three
WC_ERR_EVENTS="svcrdma_wc_send_err svcrdma_wc_write_err svcrdma_wc_read_err"
WC_ERR_TRACE=/sys/kernel/tracing/instances/wc-errs
wc_errs_start() {
	local e
	mkdir -p "$WC_ERR_TRACE"
	for e in $WC_ERR_EVENTS; do
		[ ! -d "$WC_ERR_TRACE/events/rpcrdma/$e" ] ||
			echo 1 >"$WC_ERR_TRACE/events/rpcrdma/$e/enable"
	done
	: >"$WC_ERR_TRACE/trace"
}
wc_errs() {
	grep -oE '(svcrdma_wc_[a-z]+_err):.*status=[A-Z_]+' "$WC_ERR_TRACE/trace" |
		sed -E 's/^([a-z_]+):.*status=([A-Z_]+)$/\1 \2/' | sort | uniq -c |
		awk '{ printf "%s%s %s x%s", (NR > 1 ? ", " : ""), $2, $3, $1 } END { if (!NR) printf "none" }'
	printf '; first: %s' "$(grep -E 'svcrdma_wc_[a-z]+_err:' "$WC_ERR_TRACE/trace" | head -n 3 |
		sed -E 's/^ *[^ ]+ +\[[0-9]+\] [^ ]+ +([0-9.]+): /\1 /' | tr '\n' ';')"
}

# side_sends SIDE [HOW]: SIDE's Sends since rpcrdma loaded, added up over
# the size classes of debugfs 'sends': posted (the default), or those of
# one how: inline, byref (every reason by reference) or failed (their
# post failed; counted under no other how)
SENDS=/sys/kernel/debug/rpcrdma_inline/sends
side_sends() {
	awk -v s="$1" -v how="${2:-posted}" '$1 == s {
		h = substr($2, 5)
		if (how == "posted" && h == "failed") next
		if (how == "byref" && (h == "inline" || h == "failed")) next
		if (how != "posted" && how != "byref" && h != how) next
		for (i = 3; i <= NF; i++) {
			split($i, kv, "="); if (kv[1] ~ /^(le|gt)[0-9]+$/) n += kv[2] } }
		END { print n + 0 }' "$SENDS"
}

# sizes_agree SIDE BASE: the Sends of SIDE counted by size since
# side_sends printed BASE are those of its one connection. A Send is
# counted on its connection first, then by size, so the connection is
# read before and after the sizes: the sizes must lie between the two
# (read again while NFSv4 lease renewals and the debug kernel's slow
# reads move them)
sizes_agree() {
	local a b0 b1 _
	for _ in $(seq 20); do
		b0=$(($(conn_field "$1" inline) + $(conn_field "$1" byref)))
		a=$(($(side_sends "$1") - $2))
		b1=$(($(conn_field "$1" inline) + $(conn_field "$1" byref)))
		[ "$b0" -le "$a" ] && [ "$a" -le "$b1" ] && return 0
		sleep 0.3
	done
	log "$1: sends has $a since the mount, connections $b0 before and $b1 after"
	return 1
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

# settle FUNC WANT [TRIES] [PAUSE]: counts come back a little after the
# event (a connection goes away after umount): run FUNC until its output
# is WANT, at most TRIES times PAUSE seconds apart, and print the last
# output for the caller to compare
settle() {
	local func=$1 want=$2 tries=${3:-60} pause=${4:-0.5} now _
	for _ in $(seq "$tries"); do
		now=$("$func")
		[ "$now" = "$want" ] && break
		sleep "$pause"
	done
	echo "$now"
}

# "CACHE OBJECTS PER-SLAB" per kmalloc cache: objects in use, and how
# many fit in one slab. The per-CPU slabs are flushed first (SLUB's
# shrink); even so a count moves by up to one slab's worth with no leak
# (a slab kept empty, or a partial one counted as in use).
kmalloc_objects() {
	local c
	for c in /sys/kernel/slab/kmalloc-*; do
		echo 1 >"$c/shrink" 2>/dev/null || true
	done
	awk '$1 ~ /^kmalloc-/ { print $1, $2, $5 }' /proc/slabinfo | sort
}

# kmalloc_growth BEFORE AFTER: of two kmalloc_objects outputs, "CACHE N
# PER-SLAB" for the cache whose objects in use grew most beyond one
# slab's worth: N the growth, N - PER-SLAB the part that is no noise
kmalloc_growth() {
	join <(echo "$1") <(echo "$2") |
		awk 'NR == 1 || $4 - $2 - $5 > max { max = $4 - $2 - $5; g = $1 " " $4 - $2 " " $5 }
			END { print g }'
}

# fio_slowest OUTPUT: fio's longest completion latency, in seconds
fio_slowest() {
	awk 'match($0, /^ +clat \((nsec|usec|msec)\): .*max= *[0-9.]+/) {
		u = $0; sub(/.*clat \(/, "", u); sub(/\).*/, "", u)
		# fio shortens large numbers: max=2410k is 2410000
		m = $0; sub(/.*max= */, "", m); sub(/,.*/, "", m)
		x = 1
		if (m ~ /[kK]$/) x = 1e3
		if (m ~ /M$/) x = 1e6
		sub(/[^0-9.].*/, "", m)
		d = u == "nsec" ? 1e9 : u == "usec" ? 1e6 : 1e3
		if (m * x / d > max) max = m * x / d
	} END { printf "%.3f", max }' "$1"
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

# Count each post of SIDE, inline or not, behind other work or not, in a
# tracepoint histogram
HIST=/sys/kernel/tracing/events/rpcrdma_inline/rpcrdma_wqe_inline_post
hist_start() {
	echo 'hist:keys=side,inlined,behind' >>"$HIST/trigger"
	HIST_ON=1
}

hist_stop() {
	echo '!hist:keys=side,inlined,behind' >>"$HIST/trigger" 2>/dev/null || true
	HIST_ON=0
}

# The Sends the RDMA driver saw, counted by tests/modules/inline_limit.ko
driver_sends() {
	cat "/sys/module/inline_limit/parameters/sends_$1"
}

GUEST_MODULES=/src/build/guest-modules/$(uname -r)
export GUEST_MODULES

# All Send counts at once: ours per side (debugfs), the tracepoint's, and
# the driver's; then the client Calls behind REG_MRs, inline and by
# reference, as the tracepoint and the driver counted them. NFS keeps posting now and then (v4.1 lease renewals): the
# files are read by one awk, back to back, and read again until one
# reading has them agree (the driver with the sum of both sides, and the
# tracepoint with each side when its histogram is on); a systematic
# difference never agrees, and the last reading is returned for the
# checks to fail on.
counts_settled() {
	local r _
	for _ in $(seq 30); do
		r=$(all_counts)
		# shellcheck disable=SC2086 # the reading is a list of fields
		counts_agree $r && break
		sleep 0.5
	done
	echo "$r"
}

# counts_agree ours SI SB CI CB trace TSI TSB TCI TCB driver DI DB reg TRI TRB DRI DRB
counts_agree() {
	[ "${12}" = $(($2 + $4)) ] && [ "${13}" = $(($3 + $5)) ] || return 1
	[ "${HIST_ON:-0}" = 1 ] || return 0
	[ "$7 $8 $9 ${10}" = "$2 $3 $4 $5" ] && [ "${15} ${16}" = "${17} ${18}" ]
}

all_counts() {
	local drv=/sys/module/inline_limit/parameters f files=()
	for f in "$CONNS" "$HIST/hist" "$drv/sends_inline" "$drv/sends_byref" \
		"$drv/sends_reg_inline" "$drv/sends_reg_byref"; do
		if [ -r "$f" ]; then files+=("$f"); fi
	done
	# "ours SI SB CI CB trace TSI TSB TCI TCB driver DI DB reg TRI TRB DRI
	# DRB"; a file that is not there reads as "-"
	awk -v conns="$CONNS" -v hist="$HIST/hist" -v din="$drv/sends_inline" -v dbr="$drv/sends_byref" \
		-v drin="$drv/sends_reg_inline" -v drbr="$drv/sends_reg_byref" '
		function get(k,   f) {
			for (f = 2; f <= NF; f++)
				if (index($f, k "=") == 1) return substr($f, length(k) + 2)
			return "-"
		}
		FILENAME == conns && !(($1) in side) && ($1 == "server" || $1 == "client") {
			side[$1] = 1; c[$1, "inline"] = get("inline"); c[$1, "byref"] = get("byref")
		}
		FILENAME == hist && /^\{/ {
			gsub(/[{},:]/, " "); n = 0; bh = 0
			for (f = 1; f <= NF; f++) {
				if ($f == "side") sd = $(f + 1)
				if ($f == "inlined") inl = $(f + 1)
				if ($f == "behind") bh = $(f + 1)
				if ($f == "hitcount") n = $(f + 1)
			}
			t[sd, inl] += n
			tb[sd, inl, bh] += n
		}
		FILENAME == din { d_in = $1 }
		FILENAME == dbr { d_br = $1 }
		FILENAME == drin { dr_in = $1 }
		FILENAME == drbr { dr_br = $1 }
		function v(x) { return x == "" ? "-" : x }
		END {
			print "ours", v(c["server", "inline"]), v(c["server", "byref"]),
				v(c["client", "inline"]), v(c["client", "byref"]),
				"trace", t[0, 1] + 0, t[0, 0] + 0, t[1, 1] + 0, t[1, 0] + 0,
				"driver", v(d_in), v(d_br),
				"reg", tb[1, 1, 1] + 0, tb[1, 0, 1] + 0, v(dr_in), v(dr_br)
		}' "${files[@]}" /dev/null
}

# sunrpc's debugfs list of transports: an rpc_xprt's info is formatted
# from strings and ops of the module that made it, so an rdma one that
# outlives rpcrdma faults when read (the stock NFSv4.1 backchannel's,
# which xprt_setup_rdma_bc() never frees: hook 08-svc-backchannel)
RPC_XPRTS=/sys/kernel/debug/sunrpc/rpc_xprt

rdma_rpc_xprts() {
	local f n=0
	for f in "$RPC_XPRTS"/*/info; do
		if grep -qs '^netid:[[:space:]]*rdma' "$f"; then n=$((n + 1)); fi
	done
	echo "$n"
}

# "netid addr port state;" for each rdma rpc_xprt (the same caveat)
rdma_rpc_xprt_list() {
	local f
	for f in "$RPC_XPRTS"/*/info; do
		if grep -qs '^netid:[[:space:]]*rdma' "$f"; then
			echo -n "$(awk '{ printf "%s ", $2 }' "$f" 2>/dev/null);"
		fi
	done
}

rpc_xprt_read_all() {
	local f n=0
	for f in "$RPC_XPRTS"/*/*; do
		[ -f "$f" ] || continue
		cat "$f" >/dev/null 2>&1 || true
		n=$((n + 1))
	done
	echo "$n"
}

kernel_problems() {
	dmesg | grep -cE 'WARNING:|BUG:|kernel BUG|Oops|general protection fault|Call Trace' || true
}

# install_ours: rpcrdma-inline installed with DKMS as phase-install does
# (from the binaries-only tarball the host built, when there is one) and
# loaded
install_ours() {
	local tarball
	cp -a /src "/usr/src/rpcrdma-inline-$PKG_VERSION"
	rm -rf "/usr/src/rpcrdma-inline-$PKG_VERSION/build"
	tarball=$(ls /src/build/dkms/rpcrdma-inline-"$PKG_VERSION"-kernel"$(uname -r)"-*.dkms.tar.gz 2>/dev/null || true)
	if [ -n "$tarball" ]; then
		dkms ldtarball "$tarball" >/tmp/dkms.log 2>&1
	else
		dkms add "rpcrdma-inline/$PKG_VERSION" >/tmp/dkms.log 2>&1
	fi
	dkms install "rpcrdma-inline/$PKG_VERSION" -k "$(uname -r)" >>/tmp/dkms.log 2>&1 || {
		cat /tmp/dkms.log
		return 1
	}
	modprobe rpcrdma
}

# rxe_counters: the rxe device's counters that are not zero, "name=N ...",
# from sysfs (trixie's rdma tool printed none of them on 7.3), else from
# rdma statistic
rxe_counters() {
	local d=/sys/class/infiniband/rxe0/ports/1/hw_counters f v
	if [ -d "$d" ]; then
		for f in "$d"/*; do
			[ "${f##*/}" != lifespan ] || continue
			v=$(cat "$f" 2>/dev/null) || continue
			[ "$v" = 0 ] || printf '%s=%s ' "${f##*/}" "$v"
		done
		return 0
	fi
	rdma statistic show link rxe0/1 2>/dev/null |
		awk '{ for (f = 3; f < NF; f += 2) if ($(f + 1) != 0) printf "%s=%s ", $f, $(f + 1) }'
}

# wire_state: rxe0's port state, eth0's IPv4 address and packets in and
# out, UDP's counters (RoCEv2 is UDP), IP's fragmentation failures (rxe
# sends with DF: a packet over eth0's MTU is dropped there), the neighbours on eth0, rxe0's GIDs
# (rxe drops a packet whose destination GID it does not hold), and the
# RC QPs' and QP1's (GSI: the CM's MADs) states, on one line (what a
# stalled pair is asked each minute)
wire_state() {
	echo "rxe0/1 $(rdma link show rxe0/1 2>/dev/null | awk '{ for (f = 1; f < NF; f++) if ($f ~ /state$/) printf "%s=%s ", $f, $(f + 1) }')" \
		"eth0 $(ip -br -4 addr show eth0 2>/dev/null | awk '{ print $2, $3 }')" \
		"rx $(cat /sys/class/net/eth0/statistics/rx_packets) tx $(cat /sys/class/net/eth0/statistics/tx_packets)" \
		"udp $(awk '$1 == "Udp:" && $2 ~ /^[0-9]/ { print "in=" $2, "noports=" $3, "inerrors=" $4, "rcvbuferrors=" $6 }' /proc/net/snmp)" \
		"ip $(awk '$1 == "Ip:" && $2 !~ /^[0-9]/ { for (f = 2; f <= NF; f++) h[f] = $f; next }
			$1 == "Ip:" { for (f = 2; f <= NF; f++) if (h[f] ~ /^(OutDiscards|FragFails|FragOKs)$/) printf "%s=%s ", h[f], $f }' /proc/net/snmp)" \
		"neigh $(ip -4 neigh show dev eth0 2>/dev/null | tr '\n' ' ')" \
		"gids $(grep -Hv '^0000:0000:0000:0000:0000:0000:0000:0000$' /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null |
			sed 's,.*/,,' | tr '\n' ' '); QPs:" \
		"$(rdma res show qp 2>/dev/null | awk '/type (RC|GSI)/ { for (f = 1; f < NF; f++) { if ($f == "lqpn") q = $(f + 1); if ($f == "type") t = $(f + 1); if ($f == "state") printf "%s:%s:%s ", q, t, $(f + 1) } }')"
}

# rpc_state: each RPC transport's state flags, and the first RPC tasks
# waiting (sunrpc's debugfs)
rpc_state() {
	local f
	for f in /sys/kernel/debug/sunrpc/rpc_xprt/*/info; do
		[ -e "$f" ] && printf 'xprt %s ' "$(awk '$1 == "state:" { print $2 }' "$f")"
	done
	cat /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks 2>/dev/null | head -n 3 | tr -s ' \n' ' ;'
}

# rpc_retrans: the NFS client's RPC retransmissions so far
rpc_retrans() {
	awk '$1 == "rpc" { print $3 }' /proc/net/rpc/nfs
}

# connects: the rdma transport's connect count of /mnt (mountstats)
connects() {
	awk '$1 == "device" { inmp = ($5 == "/mnt") } inmp && $1 == "xprt:" && $2 == "rdma" { print $5; exit }' \
		/proc/self/mountstats
}

# The stock module, decompressed into /tmp (kmod hands a compressed file
# to the kernel as it is, which 7.3 refused: "Invalid ELF header"): from
# where it was, or from DKMS 3.2's copy (Debian 13: rpcrdma.ko.xz.origin
# while ours is installed)
# shellcheck disable=SC2154 # $stock: set by phase-install.sh
stock_file() {
	local f=$stock out=/tmp/rpcrdma-stock.ko
	if [ ! -e "$f" ]; then
		# (NAME.origin holds the path it came from, not the module)
		f=$(find /var/lib/dkms/rpcrdma-inline/original_module -path "*/$(uname -r)/*" \
			-name 'rpcrdma.ko*' ! -name '*.origin' 2>/dev/null | head -n 1)
	fi
	[ -n "$f" ] || return 0
	# (whatever its name says: the first that gives an ELF file)
	xz -dc "$f" >"$out" 2>/dev/null || zstd -qdc "$f" >"$out" 2>/dev/null ||
		gzip -dc "$f" >"$out" 2>/dev/null || cp "$f" "$out"
	[ "$(head -c 4 "$out" | od -An -c | tr -d ' ')" = 177ELF ] ||
		log "stock_file: $f is not a module once decompressed: $(head -c 8 "$f" | od -An -tx1)" >&2
	echo "$out"
}

# load_rpcrdma_of ours|stock: that rpcrdma, nothing of ours loaded before
load_rpcrdma_of() {
	modprobe -a sunrpc ib_core rdma_cm
	if [ "$1" = ours ]; then
		modprobe rpcrdma
		ours_loaded
	else
		insmod "$(stock_file)" && ! ours_loaded
	fi
}
