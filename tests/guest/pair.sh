#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The two-machine test, run in each guest of a set (tests/test-pair.sh,
# tests/vm/run-set.sh): the hub is the NFS server, the other guest the
# client, each with its own rxe device on its own virtio-net NIC. Each side
# runs ours or the stock rpcrdma (PAIR_SERVER, PAIR_CLIENT). The client
# mounts the server per NFS version (PAIR_VERS) and runs fio with
# verify=crc32c (4 KiB QD1 random writes, then random reads of what they
# wrote, then a 1 MiB sequential pass) and a tree of small files, whose
# checksums the server compares in its export. On each side the Sends are
# counted as the driver sees them (tests/modules/inline_limit.ko on the
# rxe device) and by a kprobe on rxe_post_send: the stock side posts none
# inline; our side's counters agree with its driver.
#
# env: PAIR_SERVER, PAIR_CLIENT   ours or stock
#      PAIR_VERS                  NFS versions, e.g. "4.2,3"
#      PAIR_FIO_MIB               the 4 KiB file's size (default 8)
#      PAIR_FILES                 small files per version (default 100)
#      PAIR_SEQ_BS, PAIR_SEQ_MIB  the sequential pass's block (default 1M)
#                                 and size (default twice PAIR_FIO_MIB)
#      PAIR_NETEM                 the wire's fault, as netem on the server's
#                                 NIC for the whole run: "loss 1%",
#                                 "delay 10ms 5ms", "duplicate 1%" (or
#                                 with commas for spaces)
#      PAIR_PROGRESS=1            log each minute the export's small files
#                                 (server) and the RPCs, retransmissions,
#                                 connects and rxe counters (client); also
#                                 with PAIR_NETEM and PAIR_LINKDOWN
#      PAIR_IO_WAIT=SECONDS       how long the server waits for the client's
#                                 I/O of one NFS version (default 2400)
#      PAIR_LINKDOWN=SECONDS      the server's link down that long while
#                                 the client's 4 KiB writes run, then up
#      PAIR_LINKDOWN_READD=1      then the server's rxe0 deleted and added
#                                 again (rxe's QP1 does not survive a send
#                                 failed while the link was down); on 6.1
#                                 the delete blocks for good, with either
#                                 module (docs/wire-faults.md)
#      PAIR_CLIENT_MTU=N          the client's NIC at MTU N, the server's at
#                                 1500: the client's path MTU, which the
#                                 server's rxe cannot send; our server
#                                 refuses it (the mount fails by itself),
#                                 then the client's NIC goes back to 1500
#                                 and the test runs as without; a stock
#                                 server accepts it and stalls
#      PAIR_BENCH=1               then rpcrdma-inline bench from the client,
#                                 switching the server's inline_size with
#                                 --server-cmd (tests/guest/pair-server-cmd.sh,
#                                 through /sync), both sides ours; with
#                                 PAIR_BENCH_DELAY_NS=D every client Send
#                                 by reference costs D ns (inline_limit.ko
#                                 byref_delay_ns, on both sides), as a
#                                 PCIe read would; before that, the bench
#                                 with only the client switching;
#                                 PAIR_BENCH_ROUNDS, PAIR_BENCH_RUNTIME:
#                                 its --rounds (2) and --runtime (5)
# A wire fault is reported per version: how long fio's slowest I/O took
# (the seconds I/O stalled), verify errors (any fails), the client's
# reconnects (mountstats), QP creations, and the rxe counters that moved.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. /src/tests/vm/guest/lib.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
. /src/tests/guest/common.sh

# The bench's IPv6 addresses: 2001:db8::N (the documentation range) for
# 192.0.2.N on the wire; own_addr is this guest's address on eth0
v6_of() { echo "2001:db8::${1##*.}"; }
own_addr() { echo "${RG_ADDRS%% *}"; }

role=$RG_ROLE
if [ "$RG_INDEX" = 0 ]; then side=server; else side=client; fi
mine=$(if [ $side = server ]; then echo "${PAIR_SERVER:-stock}"; else echo "${PAIR_CLIENT:-ours}"; fi)
vers_list=$(tr , " " <<<"${PAIR_VERS:-4.2}")
fio_mib=${PAIR_FIO_MIB:-8}
nfiles=${PAIR_FILES:-100}
seq_bs=${PAIR_SEQ_BS:-1M}
seq_mib=${PAIR_SEQ_MIB:-$((fio_mib * 2))}
bench_rounds=${PAIR_BENCH_ROUNDS:-2}
bench_runtime=${PAIR_BENCH_RUNTIME:-5}
log "$role: the NFS $side, $mine rpcrdma, kernel $(uname -r)"

# Whatever fails from here on tells the other guest, which stops waiting
trap '[ -e /sync/failed ] || echo "$role" >/sync/failed' ERR

wire_up
check "$role: rxe0 on eth0 is ACTIVE" bash -c "rdma link show rxe0/1 | grep -q 'state ACTIVE'"
if [ $side = client ] && [ -n "${PAIR_CLIENT_MTU:-}" ]; then
	check "$role: eth0 at MTU $PAIR_CLIENT_MTU" ip link set eth0 mtu "$PAIR_CLIENT_MTU"
	log "$role: $(rdma link show rxe0/1); $(ibv_devinfo -d rxe0 2>/dev/null | grep -E 'active_mtu' | tr -s ' \t' ' ')"
fi
if [ $side = server ] && [ -n "${PAIR_NETEM:-}" ]; then
	netem=$(tr , " " <<<"$PAIR_NETEM")
	modprobe sch_netem
	# shellcheck disable=SC2086 # netem's words
	check "$role: netem $netem on eth0" tc qdisc add dev eth0 root netem $netem
fi
rxe0_start=$(rxe_counters)

if [ "$mine" = ours ]; then
	install_ours
	check "$role: the loaded rpcrdma is rpcrdma-inline" ours_loaded
else
	modprobe rpcrdma
	check "$role: the loaded rpcrdma is the stock one" \
		bash -c "! [ -f /sys/module/rpcrdma/parameters/inline_size ]"
fi

# The driver's view: every Send the rxe device is given, chains walked
# (inline_limit.ko), and a kprobe on rxe_post_send reading the first WR's
# opcode and send_flags (struct ib_send_wr: 28 and 32 bytes in)
insmod "$GUEST_MODULES/inline_limit.ko" netdev=eth0
KP=/sys/kernel/tracing/events/kprobes/pair_post
echo 'p:kprobes/pair_post rdma_rxe:rxe_post_send opcode=+28(%si):u32 flags=+32(%si):u32' \
	>>/sys/kernel/tracing/kprobe_events
echo 'hist:keys=opcode,flags' >>"$KP/trigger"
echo 1 >"$KP/enable"

# kprobe_sends: "INLINE ALL", the posts whose first WR has IB_SEND_INLINE
# (8) and all posts, from the histogram
kprobe_sends() {
	awk '/^\{/ { gsub(/[{},:]/, " ")
		for (f = 1; f <= NF; f++) {
			if ($f == "flags") fl = $(f + 1)
			if ($f == "hitcount") n = $(f + 1)
		}
		all += n; if (int(fl / 8) % 2) inl += n }
		END { print inl + 0, all + 0 }' "$KP/hist"
}

# sends_now DI0 DB0: "OURS_INLINE OURS_BYREF DRIVER_INLINE DRIVER_BYREF",
# ours summed over this side's connections, the driver's since it counted
# DI0 and DB0 (when this side had no connection), read again until ours and the driver's agree (NFS posts
# now and then by itself); ours is "- -" with the stock module or with
# no connection listed
sends_now() {
	local r _ conns=$CONNS i0=$1 b0=$2
	[ -r "$conns" ] || conns=/dev/null
	for _ in $(seq 30); do
		r=$(awk -v s="$side" -v din=/sys/module/inline_limit/parameters/sends_inline \
			-v dbr=/sys/module/inline_limit/parameters/sends_byref -v i0="$i0" -v b0="$b0" '
			FILENAME == din { d1 = $1 } FILENAME == dbr { d2 = $1 }
			FILENAME != din && FILENAME != dbr && $1 == s {
				n++
				for (f = 2; f <= NF; f++) {
					split($f, kv, "=")
					if (kv[1] == "inline" || kv[1] == "byref") v[kv[1]] += kv[2]
				}
			}
			END {
				i = ("inline" in v) ? v["inline"] : "-"; b = ("byref" in v) ? v["byref"] : "-"
				print i, b, d1 - i0, d2 - b0
			}' "$conns" /sys/module/inline_limit/parameters/sends_inline \
			/sys/module/inline_limit/parameters/sends_byref 2>/dev/null)
		# shellcheck disable=SC2086 # four fields
		set -- $r
		{ [ "$1" = - ] || [ "$1 $2" = "$3 $4" ]; } && break
		sleep 0.5
	done
	echo "$r"
}

qp_created() { cat /sys/module/inline_limit/parameters/created; }
# "WAITS SPENT_NS": inline_limit's busy waits for Sends by reference so far,
# and the time they lasted by this guest's clock
delay_now() {
	echo "$(cat /sys/module/inline_limit/parameters/byref_delays) $(cat /sys/module/inline_limit/parameters/byref_delay_spent_ns)"
}
# delay_report WHAT "WAITS SPENT_NS" (before): how long the busy waits
# since really lasted, against the byref_delay_ns asked (longer on a
# loaded host, which does not run the spinning vCPU meanwhile: the
# bench's B - A follows it), and the clock they were timed by
delay_report() {
	local w0 s0 w1 s1
	read -r w0 s0 <<<"$2"
	read -r w1 s1 <<<"$(delay_now)"
	log "$role: $1: $((w1 - w0)) busy waits of ${PAIR_BENCH_DELAY_NS:-0} ns asked lasted $(((s1 - s0) / ((w1 - w0) > 0 ? w1 - w0 : 1))) ns each on average, by ktime (clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource))"
	check "$role: $1: Sends by reference were charged their busy wait ($((w1 - w0)))" test "$((w1 - w0))" -gt 0
}

# bench_order ROUNDS A B: the bench's modes in order (A B, B A, A B, ...)
bench_order() {
	local r
	for r in $(seq "$1"); do
		if [ $((r % 2)) = 1 ]; then printf '%s%s' "$2" "$3"; else printf '%s%s' "$3" "$2"; fi
	done
}

# counts_match LABEL OURS_IN OURS_BR DRIVER_IN DRIVER_BR QPS: with one QP
# created since the baseline, our counts equal the driver's; with more (a
# reconnect), ours are of the live connection only: at most the driver's
counts_match() {
	if [ "$6" -le 1 ]; then
		check "$1: our counters agree with the driver's" test "$2 $3" = "$4 $5"
	else
		log "$1: $6 QPs created (a reconnect): our counts are the live connection's"
		check "$1: our counters are at most the driver's (the closed connection's are gone)" \
			test "$2" -le "$4" -a "$3" -le "$5"
	fi
}

driver_now() { # "INLINE BYREF", the driver's counts
	echo "$(cat /sys/module/inline_limit/parameters/sends_inline) $(cat /sys/module/inline_limit/parameters/sends_byref)"
}

# fio_pass NAME ARGS...: a fio job with crc32c verification of every
# block; its verify errors (0 when it passed) on stdout
fio_pass() {
	local name=$1 rc=0
	shift
	fio --name="$name" --ioengine=psync --direct=1 --iodepth=1 --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --randseed=4242 "$@" \
		>"/tmp/fio-$name.out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || grep -qiE 'verify: bad|verify failed|crc32c: wanted' "/tmp/fio-$name.out"; then
		log "$role: fio $name failed (exit $rc):"
		sed 's/^/#   /' "/tmp/fio-$name.out" | head -n 40
		return 1
	fi
	log "$role: fio $name: $(grep -E '^ *(write|read): IOPS' "/tmp/fio-$name.out" | tr -s ' ' | tr '\n' ';') slowest I/O $(fio_slowest "/tmp/fio-$name.out") s"
}

# op_count OP: how many OP calls the mount on /mnt sent (mountstats)
op_count() {
	awk -v op="$1:" '$1 == "device" { inmp = ($5 == "/mnt") } inmp && $1 == op { print $2; n = 1; exit }
		END { if (!n) print 0 }' /proc/self/mountstats
}

# backchannel VERS: whether VERS has one (NFSv4.1 and later)
backchannel() { [[ $1 =~ ^4\.[1-9] ]]; }


if [ $side = server ]; then
	mkdir -p /export
	mount -t tmpfs -o size=1g tmpfs /export
	nfs_server_start /export
	sync_say server-ready
	log "$role: serving /export; waiting for the client"
	if [ -n "${PAIR_CLIENT_MTU:-}" ] && [ "$mine" = ours ]; then
		# Our server refuses a path MTU its port cannot send
		sync_wait mtu-refused 900
		check "$role: the client's path MTU over this port's was refused, and logged" \
			bash -c "dmesg | grep -q 'asks a path MTU of [0-9]* bytes, more than this port.s active MTU of 1024 bytes.*refused'"
		check "$role: ... and no connection of ours stays listed" conns_gone
		# With inline_size=0 too: on rxe the refusal does not depend
		# on inline data (the stall it prevents does not either)
		mtu_refusals() { dmesg | grep -c 'asks a path MTU of [0-9]* bytes, more than this port.s active MTU of 1024 bytes.*refused' || true; }
		mtu_before=$(mtu_refusals)
		echo 0 >/sys/module/rpcrdma/parameters/inline_size
		sync_say mtu-zero
		sync_wait mtu-zero-done 900
		check "$role: with inline_size=0 the same path MTU was refused too, and logged" \
			test "$(mtu_refusals)" -gt "$mtu_before"
		echo 256 >/sys/module/rpcrdma/parameters/inline_size
		check "$role: ... and no connection of ours stays listed" conns_gone
		sync_say mtu-checked
	fi
	prev=
	for vers in $vers_list; do
		# Counted from when the last mount is undone (a v4.x umount
		# returns its delegations, hundreds of Replies) and its
		# connection gone
		[ -z "$prev" ] || sync_wait "unmounted-$prev" 600
		if [ "$mine" = ours ]; then conns_gone || true; fi
		prev=$vers
		read -r d_i0 d_b0 <<<"$(driver_now)"
		qp_base=$(qp_created)
		# The file whose read delegation is recalled over the backchannel
		echo "held by the client" >"/export/deleg-$vers"
		sync_say "server-base-$vers"
		# On a faulty wire, the export's small files counted each minute
		# while the client copies them: steady progress or a stop
		sampler=
		if [ -n "${PAIR_NETEM:-}${PAIR_PROGRESS:-}${PAIR_LINKDOWN:-}" ]; then
			wc_errs_start
			[ -z "${PAIR_LINKDOWN:-}" ] || { rxe_drops_start && cm_trace_start; }
			(
				t0=$SECONDS
				while sleep 60; do
					log "$role: vers=$vers: after $((SECONDS - t0)) s: $(find "/export/tree-$vers" -type f 2>/dev/null | wc -l) small files in the export; rxe0: $(rxe_counters); $(wire_state)${PAIR_LINKDOWN:+; drops: $(rxe_drops); CM: $(cm_trace)}"
				done
			) &
			sampler=$!
		fi
		if [ -n "${PAIR_LINKDOWN:-}" ]; then
			sync_wait "writes-started-$vers" 600
			sleep 3
			ip link set eth0 down
			log "$role: vers=$vers: eth0 down for $PAIR_LINKDOWN s"
			sleep "$PAIR_LINKDOWN"
			ip link set eth0 up
			log "$role: vers=$vers: eth0 up again"
			if [ -n "${PAIR_LINKDOWN_READD:-}" ]; then
				# (on 6.1 the delete blocks for good: after 150 s the
				# blocked tasks' stacks are logged, from sysrq's w)
				# The ib_device's reference count, read by a kprobe on
				# ib_query_port() when sysfs asks the port's state (its
				# offset, 2656, read from 6.1.0-57's ib_core.ko: only
				# there): at rest, and once the delete is blocked
				refs_probe=/sys/kernel/tracing/events/kprobes/pair_refs
				if [ "$(uname -r)" = 6.1.0-57-amd64 ] &&
					echo 'p:kprobes/pair_refs ib_core:ib_query_port refs=+2656(%di):u32' >>/sys/kernel/tracing/kprobe_events; then
					echo 1 >"$refs_probe/enable"
					cat /sys/class/infiniband/rxe0/ports/1/state >/dev/null
					log "$role: vers=$vers: rxe0's ib_device refcount before the delete: $(grep -o 'pair_refs.*refs=[0-9]*' /sys/kernel/tracing/trace | tail -n 1 | sed 's/.*refs=//')"
				fi
				rdma link delete rxe0 &
				del=$!
				for _ in $(seq 150); do
					kill -0 "$del" 2>/dev/null || break
					sleep 1
				done
				if kill -0 "$del" 2>/dev/null; then
					echo w >/proc/sysrq-trigger
					log "$role: vers=$vers: rdma link delete rxe0 still blocked after 150 s; the blocked tasks:"
					dmesg | sed -n '/sysrq: Show Blocked State/,$p' | head -n 120 | sed 's/^/#   /'
					# 6.1's rxe leaves a request packet (and its ib_device
					# reference) queued for good when a QP is destroyed
					# after __rxe_cleanup's 50 s wait, with a WARN
					# (docs/wire-faults.md): did that happen?
					log "$role: vers=$vers: __rxe_cleanup timeouts logged: $(dmesg | grep -c '__rxe_cleanup')"
					if [ -e "$refs_probe/enable" ]; then
						timeout 10 cat /sys/class/infiniband/rxe0/ports/1/state >/dev/null || true
						log "$role: vers=$vers: rxe0's ib_device refcount with the delete blocked (the references nobody put): $(grep -o 'pair_refs.*refs=[0-9]*' /sys/kernel/tracing/trace | tail -n 1 | sed 's/.*refs=//')"
					fi
				fi
				wait "$del"
				rdma link add rxe0 type rxe netdev eth0
				log "$role: vers=$vers: rxe0 added again: $(rdma link show rxe0/1 2>&1)"
			fi
		fi
		if backchannel "$vers"; then
			# A local writer breaks the client's read delegation: nfsd
			# sends CB_RECALL on the client's RDMA connection, and the
			# open waits until the client has returned it (or, with no
			# backchannel, until the lease break times out)
			# nfsd grants no delegation while it doubts the callback
			# path (a CB_NULL not yet answered, on a loaded host): the
			# client opens the file again until one is held, 10 tries
			for try in $(seq 10); do
				sync_wait "deleg-held-$vers-$try" 2400
				# What nfsd holds for the client: its callback state (7.x
				# prints it) and its delegations
				held=0
				for c in /proc/fs/nfsd/clients/*/; do
					log "$role: vers=$vers: nfsd client ${c%/}: $(grep -hE 'callback|minor version|address' "$c/info" 2>/dev/null | tr '\n' ';')"
					n=$(grep -A3 'type: deleg' "$c/states" 2>/dev/null | grep -c "deleg-$vers" || true)
					log "$role: vers=$vers: ... delegations: $(grep -c 'type: deleg' "$c/states" 2>/dev/null || true), on deleg-$vers: $n (open $try)"
					held=$((held + n))
				done
				[ "$held" = 0 ] || break
				sync_say "deleg-none-$vers-$try"
			done
			check "$role: vers=$vers: nfsd granted the client a delegation on deleg-$vers (open $try)" test "$held" -gt 0
			t=$SECONDS
			echo "written by the server" >>"/export/deleg-$vers"
			log "$role: vers=$vers: a local write to the delegated file took $((SECONDS - t)) s"
			sync_say "deleg-broken-$vers"
		fi
		sync_wait "io-done-$vers" "${PAIR_IO_WAIT:-2400}"
		if [ -n "$sampler" ]; then
			kill "$sampler" 2>/dev/null || true
			log "$role: vers=$vers: svcrdma's completions in error: $(wc_errs)"
		fi
		read -r oi ob di db <<<"$(sends_now "$d_i0" "$d_b0")"
		log "$role: vers=$vers: Sends: ours $oi inline, $ob by reference; driver $di inline, $db by reference"
		if [ "$mine" = ours ]; then
			log "$role: vers=$vers: $(grep -c '^server ' "$CONNS") connection(s): $(grep '^server ' "$CONNS" | cut -d' ' -f2- | tr '\n' ';')"
			counts_match "$role: vers=$vers" "$oi" "$ob" "$di" "$db" $(($(qp_created) - qp_base))
			check "$role: vers=$vers: granted 256 bytes" test "$(conn_field server max)" = 256
			# Every fio WRITE's Reply is small and alone in its post
			check "$role: vers=$vers: the WRITE Replies went inline ($di)" test "$di" -ge $((fio_mib * 256))
		fi
		sync_say "server-counted-$vers"
	done
	if [ -n "${PAIR_BENCH:-}" ]; then
		# The bench runs over IPv6: the server's address on the wire,
		# of the documentation range (rxe carries RoCEv2 over it)
		ip -6 addr add "$(v6_of "$(own_addr)")/64" dev eth0 nodad
		# A Reply by reference costs D here too
		echo "${PAIR_BENCH_DELAY_NS:-0}" >/sys/module/inline_limit/parameters/byref_delay_ns
		delays0=$(delay_now)
		# The bench's --server-cmd: each size asked, set, and answered
		# (the sizes in the order asked are checked against the rounds)
		asked=()
		while [ ! -e /sync/bench-finished ] && [ ! -e /sync/failed ]; do
			if [ -e /sync/bench-size ] && [ "$(cat /sync/bench-size)" != "$(cut -d' ' -f1,2 /sync/bench-done 2>/dev/null)" ]; then
				read -r n size </sync/bench-size
				echo "$size" >/sys/module/rpcrdma/parameters/inline_size
				asked+=("$size")
				# The first answer carries this server's report, as
				# 'ssh server "... && rpcrdma-inline report"' would
				if [ "$n" = 1 ]; then
					/src/scripts/rpcrdma-inline report >/sync/server-report.tmp 2>&1 || true
					mv /sync/server-report.tmp /sync/server-report.txt
				fi
				echo "$n $size $(cat /sys/module/rpcrdma/parameters/inline_size)" >/sync/bench-done
			fi
			sleep 0.1
		done
		log "$role: the bench set the server's inline_size to ${asked[*]:-nothing}"
		want="$(bench_order "$bench_rounds" "0 " "256 ")256"
		check "$role: the bench switched the server A B, B A, ..., then back to 256 at its end: $want" \
			test "${asked[*]:-}" = "$want"
		echo 256 >/sys/module/rpcrdma/parameters/inline_size
		echo 0 >/sys/module/inline_limit/parameters/byref_delay_ns
		delay_report "the bench's Replies by reference" "$delays0"
		dmesg | grep -iE 'tsc|clocksource' | tail -n 6 | sed "s/^/# $role: /"
	fi
	sync_wait client-done 1200
	# The tree the client wrote, per version, compared in the export
	for vers in $vers_list; do
		check "$role: vers=$vers: the client's $nfiles small files are in the export, byte for byte" \
			bash -c "cd /export/tree-$vers && sha256sum --quiet -c /sync/manifest-$vers"
	done
	check "$role: fio's files are in the export" \
		bash -c "ls /export/fio-4k-* /export/fio-1m-* >/dev/null"
	sync_say server-checked
	sync_wait client-unmounted 600
else
	nfs_client_start
	sync_wait server-ready 1200
	NFS_EXPORT=/export
	# A port with no RDMA listener: the mount fails by itself (retry=0),
	# with mount's message, and leaves nothing of ours listed
	mkdir -p /mnt
	t=$SECONDS
	rc=0
	timeout 300 mount -t nfs -o rdma,port=20050,vers=3,retry=0 "$NFS_SERVER:/export" /mnt \
		>/tmp/wrong-port.log 2>&1 || rc=$?
	log "$role: a mount of port 20050 (no listener): exit $rc in $((SECONDS - t)) s: $(tr '\n' ' ' </tmp/wrong-port.log)"
	check "$role: a mount of a port with no RDMA listener fails by itself" \
		test "$rc" -ne 0 -a "$rc" -ne 124
	if [ "$mine" = ours ]; then
		check "$role: ... and leaves no connection of ours listed" conns_gone
	fi
	if [ -n "${PAIR_CLIENT_MTU:-}" ] && [ "$PAIR_SERVER" = ours ]; then
		# Our server refuses the connection, so the mount fails by
		# itself; at the server's MTU it then mounts and moves data
		vers=${vers_list%% *}
		t=$SECONDS
		rc=0
		timeout 300 mount -t nfs -o "rdma,port=20049,vers=$vers,retry=0" "$NFS_SERVER:/export" /mnt \
			>/tmp/mtu.log 2>&1 || rc=$?
		log "$role: vers=$vers at MTU $PAIR_CLIENT_MTU: mount exit $rc in $((SECONDS - t)) s: $(tr '\n' ' ' </tmp/mtu.log)"
		check "$role: at MTU $PAIR_CLIENT_MTU against the server's 1500, the mount fails by itself" \
			test "$rc" -ne 0 -a "$rc" -ne 124
		if [ "$mine" = ours ]; then
			check "$role: ... and leaves no connection of ours listed" conns_gone
		fi
		sync_say mtu-refused
		# The server at inline_size=0 refuses it as well (rxe)
		sync_wait mtu-zero 600
		rc=0
		timeout 300 mount -t nfs -o "rdma,port=20049,vers=$vers,retry=0" "$NFS_SERVER:/export" /mnt \
			>/tmp/mtu.log 2>&1 || rc=$?
		log "$role: vers=$vers at MTU $PAIR_CLIENT_MTU, the server at inline_size=0: mount exit $rc: $(tr '\n' ' ' </tmp/mtu.log)"
		check "$role: ... against the server at inline_size=0 the mount fails by itself too" \
			test "$rc" -ne 0 -a "$rc" -ne 124
		mountpoint -q /mnt && umount -f -l /mnt
		sync_say mtu-zero-done
		check "$role: eth0 back at MTU 1500" ip link set eth0 mtu 1500
		sync_wait mtu-checked 600
	fi
	for vers in $vers_list; do
		t=$SECONDS
		sync_wait "server-base-$vers" 600
		read -r d_i0 d_b0 <<<"$(driver_now)"
		qp_base=$(qp_created)
		nfs_mount "$vers" /mnt hard
		check "$role: vers=$vers: mounted over rdma from $NFS_SERVER" check_proto_rdma /mnt
		# On a faulty wire, the client's RPCs, retransmissions, connects
		# and rxe counters each minute while its I/O runs
		csampler=
		if [ -n "${PAIR_NETEM:-}${PAIR_PROGRESS:-}${PAIR_LINKDOWN:-}" ]; then
			[ -z "${PAIR_LINKDOWN:-}" ] || cm_trace_start
			(
				t0=$SECONDS
				while sleep 60; do
					log "$role: vers=$vers: after $((SECONDS - t0)) s: RPC calls $(awk '$1 == "rpc" { print $2 }' /proc/net/rpc/nfs), retransmissions $(rpc_retrans), connects $(connects); rxe0: $(rxe_counters); $(wire_state); $(rpc_state)${PAIR_LINKDOWN:+; CM: $(cm_trace)}"
				done
			) &
			csampler=$!
		fi
		ri0=$(cat /sys/module/inline_limit/parameters/sends_reg_inline)
		qp0=$(cat /sys/module/inline_limit/parameters/created)
		# fio lays a new file out before its job starts, outside the job's
		# latencies: lay it out first, so that a fault lands in the job
		fio --name=layout --filename="/mnt/fio-4k-$vers" --size="${fio_mib}M" --create_only=1 \
			>/dev/null 2>&1 || true
		sync_say "writes-started-$vers"
		check "$role: vers=$vers: fio 4 KiB QD1 random writes of $fio_mib MiB, verified" \
			fio_pass "w4k-$vers" --filename="/mnt/fio-4k-$vers" --size="${fio_mib}M" --bs=4k --rw=randwrite
		check "$role: vers=$vers: fio 4 KiB QD1 random reads of them, verified" \
			fio_pass "w4k-$vers" --filename="/mnt/fio-4k-$vers" --size="${fio_mib}M" --bs=4k --rw=randread
		check "$role: vers=$vers: fio $seq_bs sequential write and read of $seq_mib MiB, verified" \
			fio_pass "s1m-$vers" --filename="/mnt/fio-1m-$vers" --size="${seq_mib}M" --bs="$seq_bs" --rw=write
		# The small files: made here, copied in, read back through the
		# mount after dropping the cache, and listed for the server
		# (timed, with the RPC retransmissions and the rxe counters
		# that moved: on a lossy wire, slowness or a stop shows here)
		mkdir -p "/tmp/tree-$vers" "/mnt/tree-$vers"
		small_files "/tmp/tree-$vers" "$nfiles"
		(cd "/tmp/tree-$vers" && sha256sum f* >"/sync/manifest-$vers")
		t=$SECONDS r0=$(rpc_retrans)
		cp /tmp/tree-"$vers"/f* "/mnt/tree-$vers/"
		sync
		tc=$((SECONDS - t)) rt=$(($(rpc_retrans) - r0))
		echo 3 >/proc/sys/vm/drop_caches
		t=$SECONDS r0=$(rpc_retrans)
		check "$role: vers=$vers: $nfiles small files read back equal through the mount" \
			bash -c "cd /mnt/tree-$vers && sha256sum --quiet -c /sync/manifest-$vers"
		log "$role: vers=$vers: small files: $nfiles copied in $tc s ($rt RPC retransmissions), read back in $((SECONDS - t)) s ($(($(rpc_retrans) - r0))); connects $(connects); rxe0: $(rxe_counters)"
		if backchannel "$vers"; then
			# The backchannel across the wire: hold the file open for
			# reading (a read delegation), let the server write it, and
			# see the delegation returned, which the client does when
			# the server's CB_RECALL reaches it
			r0=$(op_count DELEGRETURN)
			for try in $(seq 10); do
				exec 3<"/mnt/deleg-$vers"
				cat <&3 >/dev/null
				sync_say "deleg-held-$vers-$try"
				# The server breaks the delegation, or says it granted none
				end=$((SECONDS + 600))
				while [ ! -e "/sync/deleg-broken-$vers" ] && [ ! -e "/sync/deleg-none-$vers-$try" ] &&
					[ ! -e /sync/failed ] && [ $SECONDS -lt $end ]; do
					sleep 0.5
				done
				[ -e "/sync/deleg-none-$vers-$try" ] || break
				exec 3<&-
				sleep 5
			done
			# (7.x's nfsd does not hold the local writer until the
			# delegation is back: the return may come a little later)
			r1=$r0
			for _ in $(seq 120); do
				r1=$(op_count DELEGRETURN)
				[ "$r1" -le "$r0" ] || break
				sleep 0.5
			done
			exec 3<&-
			check "$role: vers=$vers: the server's CB_RECALL came over the backchannel: DELEGRETURN +$((r1 - r0))" \
				test $((r1 - r0)) -ge 1
			check "$role: vers=$vers: the server's write is read back" \
				grep -q "written by the server" "/mnt/deleg-$vers"
		fi
		read -r oi ob di db <<<"$(sends_now "$d_i0" "$d_b0")"
		ri=$(cat /sys/module/inline_limit/parameters/sends_reg_inline)
		log "$role: vers=$vers: Sends: ours $oi inline, $ob by reference; driver $di inline, $db by reference (+$((ri - ri0)) inline behind a REG_MR) in $((SECONDS - t)) s"
		if [ "$mine" = ours ]; then
			counts_match "$role: vers=$vers" "$oi" "$ob" "$di" "$db" $(($(qp_created) - qp_base))
			# fio's 4 KiB writes are WRITE Calls with a Read chunk, each
			# behind its REG_MR: all of them inline
			check "$role: vers=$vers: the 4 KiB WRITE Calls behind a REG_MR went inline (+$((ri - ri0)))" \
				test $((ri - ri0)) -ge $((fio_mib * 256))
			log "$role: vers=$vers: $(conn_line client | cut -d' ' -f2-)"
			check "$role: vers=$vers: granted 256 bytes" test "$(conn_field client max)" = 256
		fi
		log "$role: vers=$vers: connects $(connects), QP creations during the I/O +$(($(cat /sys/module/inline_limit/parameters/created) - qp0)), rxe0: $(rxe_counters)"
		[ -z "$csampler" ] || kill "$csampler" 2>/dev/null || true
		sync_say "io-done-$vers"
		sync_wait "server-counted-$vers" 600
		nfs_umount /mnt
		sync_say "unmounted-$vers"
		log "$role: vers=$vers took $((SECONDS - t)) s"
	done
	if [ -n "${PAIR_BENCH:-}" ]; then
		# The bench as users run it against another host, only the
		# server's side switched by --server-cmd; over IPv6, the server
		# named as mount.nfs takes it, [ADDR]:/EXPORT
		echo "${PAIR_BENCH_DELAY_NS:-0}" >/sys/module/inline_limit/parameters/byref_delay_ns
		ip -6 addr add "$(v6_of "$(own_addr)")/64" dev eth0 nodad
		v6_server=$(v6_of "$NFS_SERVER")
		dmesg | grep -iE 'tsc|clocksource' | tail -n 6 | sed "s/^/# $role: /"
		delays0=$(delay_now)
		# First only this client switches (the server stays at 256):
		# B - A should come out near -D for writes and reads alike
		rc=0
		/src/scripts/rpcrdma-inline bench --rounds "$bench_rounds" --runtime "$bench_runtime" --size 8 \
			--inline-size 256 --out /tmp/bench-client \
			"[$v6_server]:/export" >/tmp/bench-client.out 2>/tmp/bench-client.err || rc=$?
		sed 's/^/# bench, client only: /' /tmp/bench-client.err | tail -n 4
		check "$role: bench, only the client switching: $bench_rounds rounds exit 0 ($rc)" test "$rc" = 0
		check "$role: ... the report says only this client's Calls switch" \
			grep -q "only this client's Calls switch" /tmp/bench-client/rounds.tsv
		if [ -f /tmp/bench-client/results.md ]; then
			grep -E '^\|' /tmp/bench-client/results.md |
				sed "s/^/# bench, client only (delay ${PAIR_BENCH_DELAY_NS:-0} ns per Send by reference): /"
		fi
		delay_report "bench, client only" "$delays0"
		# A calibration (A/A) run: both arms at 256, the noise floor
		rc=0
		/src/scripts/rpcrdma-inline bench --calibrate --rounds 2 --runtime 2 --size 8 --inline-size 256 \
			--out /tmp/bench-aa "[$v6_server]:/export" >/tmp/bench-aa.out 2>/tmp/bench-aa.err || rc=$?
		sed 's/^/# bench --calibrate: /' /tmp/bench-aa.err | tail -n 3
		check "$role: bench --calibrate: exit 0 ($rc), both arms at inline_size 256" \
			test "$rc $(awk -F'\t' '$1 ~ /^[0-9]+$/ { printf "%s%s ", $2, $3 }' /tmp/bench-aa/rounds.tsv 2>/dev/null)" = "0 A256 B256 B256 A256 "
		check "$role: ... its results.md is a calibration, with the smallest difference it resolves" \
			bash -c "grep -q '^# rpcrdma-inline bench: calibration (A/A)$' /tmp/bench-aa/results.md &&
				grep -qE '^resolves from zero is [0-9.]+ us\. To resolve 0\.26 us: about [0-9]+ rounds\.$' /tmp/bench-aa/results.md"
		if [ -f /tmp/bench-aa/results.md ]; then
			grep -E '^(\||Noise|\(s\.d\.|resolves)' /tmp/bench-aa/results.md | sed 's/^/# bench --calibrate: /'
		fi
		delays0=$(delay_now)
		# Then the server too, by --server-cmd: near -2D for writes
		rc=0
		/src/scripts/rpcrdma-inline bench --rounds "$bench_rounds" --runtime "$bench_runtime" --size 8 --inline-size 256 \
			--server-cmd '/src/tests/guest/pair-server-cmd.sh {size}' --out /tmp/bench \
			"[$v6_server]:/export" >/tmp/bench.out 2>/tmp/bench.err || rc=$?
		echo 0 >/sys/module/inline_limit/parameters/byref_delay_ns
		delay_report "bench with --server-cmd, this client's Calls" "$delays0"
		sync_say bench-finished
		sed 's/^/# bench: /' /tmp/bench.err | tail -n 8
		check "$role: bench with --server-cmd: $bench_rounds rounds exit 0 ($rc)" test "$rc" = 0
		check "$role: ... rounds in the order A B, B A, ..." \
			test "$(awk -F'\t' '!/^#/ && $1 ~ /^[0-9]/ { printf "%s", $2 }' /tmp/bench/rounds.tsv 2>/dev/null)" = "$(bench_order "$bench_rounds" A B)"
		check "$role: ... the report says the server was switched by --server-cmd" \
			grep -q 'switched by --server-cmd' /tmp/bench/rounds.tsv
		check "$role: ... results.md embeds this client's rpcrdma-inline report (module ours, a client connection)" \
			bash -c "sed -n '/^## This client: rpcrdma-inline report/,/^## /p' /tmp/bench/results.md |
				grep -q '^    module: ours$' && grep -q '^    connection: client ' /tmp/bench/results.md"
		check "$role: ... and the server's, from --server-cmd (module ours, its rxe port)" \
			bash -c "sed -n '/^## The server: rpcrdma-inline report/,\$p' /tmp/bench/results.md |
				grep -q '^    module: ours$' &&
				sed -n '/^## The server: rpcrdma-inline report/,\$p' /tmp/bench/results.md |
				grep -qE '^    rdma-device: name=[^ ]+ port=1 driver=rxe '"
		check "$role: ... each of the $((bench_rounds * 2)) runs confirmed the server's size from what --server-cmd printed" \
			test "$(grep -c "^# server-cmd: round .*: the server's inline_size is" /tmp/bench/rounds.tsv)" = $((bench_rounds * 2))
		check "$role: ... over IPv6, [$v6_server]:/export: it found each B round's connection, 256 bytes granted and Calls inline" \
			test "$(grep -cF "[$v6_server]:/export" /tmp/bench/rounds.tsv) $(awk -F'\t' '$2 == "B" && $4 == 256 && $5 > 0' /tmp/bench/rounds.tsv | wc -l)" = "1 $bench_rounds"
		if [ -f /tmp/bench/results.md ]; then
			grep -E '^\|' /tmp/bench/results.md | sed "s/^/# bench (delay ${PAIR_BENCH_DELAY_NS:-0} ns per Send by reference): /"
		fi
	fi
	sync_say client-done
	sync_wait server-checked 600
	sync_say client-unmounted
fi

# Both sides: what the driver saw in all, and the kprobe's count
read -r di db <<<"$(driver_now)"
read -r ki ka <<<"$(kprobe_sends)"
log "$role: in all: driver $di inline, $db by reference; kprobe rxe_post_send: $ki of $ka posts inline"
log "$role: rxe0 counters at the start: $rxe0_start"
log "$role: rxe0 counters at the end: $(rxe_counters)"
log "$role: QP creations at the driver: $(cat /sys/module/inline_limit/parameters/created)"
check "$role: the driver was given Sends ($db by reference)" test "$db" -gt 0
if [ "$mine" = stock ]; then
	check "$role: stock: the driver saw no inline Send" test "$di" = 0
	check "$role: stock: the kprobe on rxe_post_send saw no inline Send" test "$ki" = 0
else
	check "$role: ours: the driver saw inline Sends ($di)" test "$di" -gt 0
	if [ $side = server ]; then
		# A Reply alone in its post is its chain's first WR: the kprobe sees them all
		check "$role: ours: the kprobe saw the driver's inline Sends ($ki of $di)" test "$ki" = "$di"
	else
		check "$role: ours: the kprobe saw inline posts" test "$ki" -gt 0
	fi
fi
echo 0 >"$KP/enable"
echo '!hist:keys=opcode,flags' >>"$KP/trigger"
echo '-:kprobes/pair_post' >>/sys/kernel/tracing/kprobe_events

if [ $side = server ]; then
	nfs_server_stop
	check "$role: no connection of ours left listed" bash -c "! [ -s $CONNS ]"
fi
check "$role: inline_limit unloads" rmmod inline_limit
check "$role: rpcrdma unloads" unload_rpcrdma
check "$role: no kernel warnings" test "$(kernel_problems)" = 0
trap - ERR
tap_done || {
	[ -e /sync/failed ] || echo "$role" >/sync/failed
	exit 1
}
