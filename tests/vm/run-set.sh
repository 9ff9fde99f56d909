#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Boot a set of guests joined by virtual wires and run one script in each.
#
#   tests/vm/run-set.sh --out OUTDIR --script PATH_IN_GUEST
#                       --guest NAME:IMAGE_DIR:KERNEL ... [--share HOSTDIR]
#                       [--timeout SECONDS] [--env NAME=VALUE ...]
#                       [--allow REGEX ...] [--mem 2G] [--append KERNEL-ARGS]
#                       [--disk NAME=FILE ...] [--restart NAME ...]
#
# The first --guest is the hub (the NFS server): it has one virtio-net NIC
# per other guest, eth0 to the second, eth1 to the third, ...; each other
# guest has one, eth0. Each wire is a QEMU socket on 127.0.0.1 between two
# QEMU processes (run-guest.sh --nic): UDP datagrams from one port to the
# other (RPCRDMA_INLINE_WIRE=tcp: a TCP stream the hub listens on, which
# costs each small frame up to 40 ms of Nagle against delayed ACKs). No
# bridge, tap or route, so no packet leaves the guests. Each guest has one
# vCPU and sees:
#   RG_ROLE      its NAME
#   RG_INDEX     0 for the hub, 1, 2, ... for the others
#   RG_GUESTS    every NAME, in order
#   RG_ADDRS     on the hub, its address on eth0, eth1, ...; on the others,
#                their own on eth0
#   RG_PEER      on the others, the hub's address on their wire
# Addresses are of the documentation range 192.0.2.0/24: wire i (1, 2, ...)
# is 192.0.2.(16i)/28, the hub at .16i+1, the other guest at .16i+2.
# The guests meet in OUTDIR/sync, mounted at /sync in each (run-guest.sh
# --sync); --append is every guest's extra kernel command line. Each
# guest's console, log and status land in OUTDIR/NAME.
# --disk gives guest NAME a disk image that outlives its QEMU (/dev/vdb).
# A guest named by --restart may be killed on request: when any guest
# creates /sync/kill-NAME, its QEMU gets SIGKILL (a power cut, as far as
# the guest can tell), its output moves to OUTDIR/NAME-bootN, and it is
# booted again with RG_BOOT=N+1 (RG_BOOT is 1 on the first boot), the same
# wires and disk; its peers carry on.
# When a guest fails (non-zero exit), the others are stopped; the exit
# status is the first failure's (run-guest.sh's codes), or 0. A guest
# killed on request is not a failure.
set -euo pipefail

log() { printf '[run-set] %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 2
}
usage() {
	sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out='' script='' share='' timeout=1800 mem=2G
guests=() common=() restart=()
declare -A disks=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--script) script=${2:?}; shift 2 ;;
	--guest) guests+=("${2:?}"); shift 2 ;;
	--share) share=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--env) common+=(--env "${2:?}"); shift 2 ;;
	--allow) common+=(--allow "${2:?}"); shift 2 ;;
	--append) common+=(--append "${2:?}"); shift 2 ;;
	--disk) [[ ${2:-} == *=* ]] || die "--disk takes NAME=FILE"; disks[${2%%=*}]=${2#*=}; shift 2 ;;
	--restart) restart+=("${2:?}"); shift 2 ;;
	-h | --help) usage ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ -n $out && -n $script ]] || die "--out and --script are required (see --help)"
[[ ${#guests[@]} -ge 2 ]] || die "a set takes two --guest or more"
[[ -z $share ]] || common+=(--share "$share")
names=()
for g in "${guests[@]}"; do
	IFS=: read -r n _ _ <<<"$g"
	[[ $g =~ ^[a-z][a-z0-9-]*:[^:]+:[^:]+$ ]] || die "--guest takes NAME:IMAGE_DIR:KERNEL, not '$g'"
	[[ " ${names[*]} " != *" $n "* ]] || die "two guests named $n"
	names+=("$n")
done

wire=${RPCRDMA_INLINE_WIRE:-udp}
[[ $wire == udp || $wire == tcp ]] || die "RPCRDMA_INLINE_WIRE must be udp or tcp"
# Free ports on the loopback, two per wire (its ends: base+2i, base+2i+1)
listening() { ss -Htuln 2>/dev/null | awk '{ print $5 }' | sed 's/.*://' | sort -u; }
nwires=$((${#guests[@]} - 1))
for _ in $(seq 50); do
	base=$((20000 + RANDOM % 30000))
	busy=$(listening)
	ok=1
	for i in $(seq 0 $((2 * nwires - 1))); do
		if grep -qx "$((base + i))" <<<"$busy"; then ok=0; fi
	done
	((ok)) && break
done
((ok)) || die "no $((2 * nwires)) free ports on 127.0.0.1"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/sync"
mkdir -p "$out/sync"

addr() { echo "192.0.2.$((16 * $1 + $2))"; } # WIRE HOST(1 hub, 2 other)
pids=() boots=()
start() { # INDEX
	local i=$1 n img k nicargs=() envs=() a=() disk=()
	IFS=: read -r n img k <<<"${guests[$i]}"
	boots[i]=$((${boots[i]:-0} + 1))
	[[ -z ${disks[$n]:-} ]] || disk=(--disk "${disks[$n]}")
	if ((i == 0)); then
		for w in $(seq 1 "$nwires"); do
			if [[ $wire == udp ]]; then
				nicargs+=(--nic "udp:$((base + 2 * w - 2)):$((base + 2 * w - 1))")
			else
				nicargs+=(--nic "listen:$((base + 2 * w - 2))")
			fi
			a+=("$(addr "$w" 1)")
		done
	else
		if [[ $wire == udp ]]; then
			nicargs=(--nic "udp:$((base + 2 * i - 1)):$((base + 2 * i - 2))")
		else
			nicargs=(--nic "connect:$((base + 2 * i - 2))")
		fi
		a=("$(addr "$i" 2)")
		envs+=(--env "RG_PEER=$(addr "$i" 1)")
	fi
	envs+=(--env "RG_ROLE=$n" --env "RG_INDEX=$i" --env "RG_GUESTS=${names[*]}"
		--env "RG_ADDRS=${a[*]}" --env "RG_BOOT=${boots[i]}")
	mkdir -p "$out/$n"
	"$here/run-guest.sh" --image "$img" --kernel "$k" --out "$out/$n" --script "$script" \
		--name "rpcrdma-$n" --smp 1 --mem "$mem" --sync "$out/sync" --timeout "$timeout" --quiet \
		"${nicargs[@]}" "${disk[@]}" "${envs[@]}" "${common[@]}" >"$out/$n/run-guest.log" 2>&1 &
	pids[i]=$!
	log "$n: boot ${boots[i]}: $k on $(basename "$img"), ${nicargs[*]}, pid ${pids[i]}"
}

# kill_and_boot INDEX: the QEMU of a --restart guest killed (SIGKILL) as
# it asked, its output kept apart, and the guest booted again
kill_and_boot() {
	local i=$1 n=${names[$1]} q
	q=$(cat "$out/$n/qemu.pid" 2>/dev/null || true)
	log "$n: killing its QEMU (pid ${q:-unknown}) as /sync/kill-$n asks"
	[[ -z $q ]] || kill -KILL "$q" 2>/dev/null || true
	wait "${pids[i]}" 2>/dev/null || true
	rm -rf "$out/$n-boot${boots[i]}"
	mv "$out/$n" "$out/$n-boot${boots[i]}"
	rm -f "$out/sync/kill-$n"
	start "$i"
}

stop_all() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
}
trap 'stop_all; exit 143' TERM INT

start 0
# Over TCP the others connect once the hub's QEMU listens on every wire
for _ in $(seq 600); do
	[[ $wire == tcp ]] || break
	busy=$(listening)
	ok=1
	for w in $(seq 1 "$nwires"); do
		grep -qx "$((base + 2 * w - 2))" <<<"$busy" || ok=0
	done
	((ok)) && break
	kill -0 "${pids[0]}" 2>/dev/null || break
	sleep 0.1
done
((ok)) || {
	stop_all
	cat "$out/${names[0]}/run-guest.log" >&2 || true
	die "the hub's QEMU never listened on its ports from $base"
}
for i in $(seq 1 "$nwires"); do
	start "$i"
done

# Wait for all; the first failure stops the rest
status=0
declare -A rcs=()
while [[ ${#rcs[@]} -lt ${#pids[@]} ]]; do
	for i in "${!pids[@]}"; do
		[[ -z ${rcs[$i]:-} ]] || continue
		if [[ -e $out/sync/kill-${names[i]} && " ${restart[*]} " == *" ${names[i]} "* ]]; then
			kill_and_boot "$i"
			continue
		fi
		kill -0 "${pids[i]}" 2>/dev/null && continue
		rc=0
		wait "${pids[i]}" || rc=$?
		rcs[$i]=$rc
		log "${names[i]}: exit $rc"
		if ((rc != 0 && status == 0)); then
			status=$rc
			log "${names[i]} failed: stopping the others"
			stop_all
		fi
	done
	sleep 0.5
done
for i in "${!pids[@]}"; do
	log "${names[i]}: exit ${rcs[$i]}; $(tail -n 1 "$out/${names[i]}/run-guest.log" 2>/dev/null)"
done
exit "$status"
