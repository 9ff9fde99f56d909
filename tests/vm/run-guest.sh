#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Boot a cached guest image under QEMU and run one script in it.
#
#   tests/vm/run-guest.sh --image DIR --kernel KVER --share HOSTDIR --out OUTDIR
#                         --script PATH_IN_GUEST [--mem 3G] [--timeout SECONDS]
#                         [--env NAME=VALUE ...] [--append KERNEL-ARGS]
#                         [--allow REGEX ...] [--quiet] [--smp N]
#                         [--nic udp:PORT:PEERPORT|listen:PORT|connect:PORT ...]
#                         [--sync HOSTDIR]
#                         [--name NAME] [--disk FILE]
#
#   --image DIR      an image directory printed by tests/vm/build-image.sh
#   --kernel KVER    a kernel of that image (uname -r, or its series: 6.1, 6.12,
#                    7.3); default: the first one of DIR/kernels
#   --share HOSTDIR  mounted read-only at /src in the guest (default: repo root)
#   --out OUTDIR     mounted read-write at /out; gets console.log, guest.log,
#                    dmesg.log, status (the script's exit code), qemu.log
#   --script PATH    the script to run, relative to /src (run with bash)
#   --env NAME=VAL   exported to the script (repeatable)
#   --append ARGS    extra kernel command line
#   --allow REGEX    kernel lines matching REGEX are not counted as failures
#   --quiet          do not copy the console to stderr while the guest runs
#   --smp N          vCPUs (default 2; 1 with RPCRDMA_INLINE_ICOUNT)
#   --nic udp:PORT:PEERPORT | listen:PORT | connect:PORT
#                    a virtio-net NIC (eth0, eth1, ... in order) whose only
#                    wire is a QEMU socket on 127.0.0.1 to the QEMU of
#                    another guest (-netdev socket): UDP from PORT to
#                    PEERPORT, or TCP, where one listens on PORT and the
#                    other connects (QEMU sends each frame on the TCP stream
#                    without TCP_NODELAY, and Nagle against delayed ACKs
#                    costs a small request up to 40 ms: UDP has no such
#                    wait); repeatable. MAC 52:54:00:LL:PP:PP, PP:PP the
#                    local port (for connect, the port plus 1), LL 01 for
#                    TCP, 02 for UDP
#   --sync HOSTDIR   mounted read-write at /sync (guests of one set meet there)
#   --name NAME      QEMU's -name (default rpcrdma-guest-KVER)
#   --disk FILE      a raw disk image the guest keeps (/dev/vdb): written
#                    through to FILE, so that it outlives this QEMU; QEMU's
#                    pid is in OUTDIR/qemu.pid, for a test that kills it
#
# With no --nic the guest has no network device (-nic none). No guest gets
# a host bridge, tap or route: no packet can leave the guests. The disk is
# a snapshot of root.ext4, so every run starts from the pristine image.
# Accelerator: KVM unless the host's KVM is PVM (/sys/module/kvm_pvm) or
# /dev/kvm is unusable, then TCG; RPCRDMA_INLINE_ACCEL=kvm|tcg forces one.
# TCG is single-threaded with QEMU < 8.1 (RPCRDMA_INLINE_TCG_THREAD=multi|single).
# RPCRDMA_INLINE_ICOUNT=SHIFT: TCG, single-threaded, with QEMU's instruction
# counting (-icount shift=SHIFT,sleep=off): the guest's clock advances 2^SHIFT
# ns per instruction executed and skips idle time, so the times the guest
# measures follow its instructions, not the host's speed or load; the
# guest has one CPU.
#
# Exit status: the guest script's exit code when non-zero; 1 when the guest
# wrote no status; 3 when the script passed but the kernel logged a WARNING,
# BUG, Oops, Call Trace, hung task, lockup, RCU stall or panic; 124 on timeout;
# 2 on usage errors.
set -euo pipefail

log() { printf '[run-guest] %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 2
}
usage() {
	sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
image='' kernel='' out='' script='' append='' mem=3G timeout=1800 quiet=0
share=$(cd "$here/../.." && pwd)
envs=() allows=() nics=() sync='' smp='' qname='' disk=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--image) image=${2:?}; shift 2 ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--share) share=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--script) script=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--env) envs+=("${2:?}"); shift 2 ;;
	--append) append=${2:?}; shift 2 ;;
	--allow) allows+=("${2:?}"); shift 2 ;;
	--quiet) quiet=1; shift ;;
	--smp) smp=${2:?}; shift 2 ;;
	--nic) nics+=("${2:?}"); shift 2 ;;
	--sync) sync=${2:?}; shift 2 ;;
	--name) qname=${2:?}; shift 2 ;;
	--disk) disk=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ -n $image && -n $out && -n $script ]] || die "--image, --out and --script are required (see --help)"
[[ -f $image/info && -f $image/root.ext4 ]] || die "$image is not a built image (run tests/vm/build-image.sh)"
[[ -d $share ]] || die "--share $share is not a directory"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout takes seconds"
[[ -z $smp || $smp =~ ^[1-8]$ ]] || die "--smp takes 1 to 8"
[[ -z $sync || -d $sync ]] || die "--sync $sync is not a directory"
image=$(cd "$image" && pwd)
share=$(cd "$share" && pwd)
[[ -z $sync ]] || sync=$(cd "$sync" && pwd)
netargs=()
if [[ ${#nics[@]} -eq 0 ]]; then
	netargs=(-nic none)
fi
for i in "${!nics[@]}"; do
	n=${nics[$i]}
	if [[ $n =~ ^udp:([0-9]+):([0-9]+)$ ]]; then
		port=${BASH_REMATCH[1]} peer=${BASH_REMATCH[2]}
		netdev="socket,id=net$i,udp=127.0.0.1:$peer,localaddr=127.0.0.1:$port" kind=2
	elif [[ $n =~ ^(listen|connect):([0-9]+)$ ]]; then
		port=${BASH_REMATCH[2]} peer=$port
		netdev="socket,id=net$i,${BASH_REMATCH[1]}=127.0.0.1:$port" kind=1
		[[ ${BASH_REMATCH[1]} == listen ]] || port=$((port + 1))
	else
		die "--nic takes udp:PORT:PEERPORT, listen:PORT or connect:PORT, not '$n'"
	fi
	for p in "$port" "$peer"; do
		((p > 1023 && p < 65536)) || die "--nic: port $p is not between 1024 and 65535"
	done
	mac=$(printf '52:54:00:%02x:%02x:%02x' "$kind" $(((port >> 8) & 255)) $((port & 255)))
	netargs+=(-netdev "$netdev" -device "virtio-net-pci,netdev=net$i,mac=$mac")
done

# Kernel: exact KVER, or a series from the third column of DIR/kernels.
if [[ -z $kernel ]]; then
	read -r kernel _ <"$image/kernels"
elif ! awk -v k="$kernel" '$1 == k { f = 1 } END { exit !f }' "$image/kernels"; then
	kver=$(awk -v k="$kernel" '$3 == k { print $1; exit }' "$image/kernels")
	[[ -n $kver ]] || die "kernel '$kernel' is not in $image/kernels: $(cut -d' ' -f1 "$image/kernels" | tr '\n' ' ')"
	kernel=$kver
fi
kimage=
for f in "$image/vmlinux-$kernel" "$image/bzImage-$kernel" "$image/rootfs/boot/vmlinuz-$kernel"; do
	if [[ -f $f ]]; then kimage=$f; break; fi
done
initrd=$image/initramfs-$kernel.cpio.gz
[[ -n $kimage && -f $initrd ]] || die "no kernel image or initramfs for $kernel in $image"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/.run-guest"
rm -f "$out/status" "$out/guest.log" "$out/dmesg.log" "$out/console.log" "$out/qemu.log"
mkdir -p "$out/.run-guest"
cp "$here/guest-init.sh" "$out/.run-guest/guest-init.sh"
{
	printf 'export RG_SCRIPT=%q\n' "$script"
	printf 'export RG_KERNEL=%q\n' "$kernel"
	for e in "${envs[@]}"; do
		name=${e%%=*}
		[[ $e == *=* && $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "--env takes NAME=VALUE, not '$e'"
		printf 'export %s=%q\n' "$name" "${e#*=}"
	done
} >"$out/.run-guest/env.sh"

# ---------------------------------------------------------------- accelerator
kvm_usable() {
	[[ -c /dev/kvm && -r /dev/kvm && -w /dev/kvm ]] || return 1
	(exec 3<>/dev/kvm) 2>/dev/null
}
accel=${RPCRDMA_INLINE_ACCEL:-}
icount=${RPCRDMA_INLINE_ICOUNT:-}
if [[ -n $icount ]]; then
	[[ $icount =~ ^[0-9]+$ && $icount -le 10 ]] || die "RPCRDMA_INLINE_ICOUNT takes a shift from 0 to 10"
	[[ -z $accel || $accel == tcg ]] || die "RPCRDMA_INLINE_ICOUNT needs TCG, not RPCRDMA_INLINE_ACCEL=$accel"
	accel=tcg reason="RPCRDMA_INLINE_ICOUNT=$icount"
elif [[ -n $accel ]]; then
	[[ $accel == kvm || $accel == tcg ]] || die "RPCRDMA_INLINE_ACCEL must be kvm or tcg"
	reason="RPCRDMA_INLINE_ACCEL"
elif [[ -d /sys/module/kvm_pvm ]]; then
	accel=tcg reason="host KVM is PVM (/sys/module/kvm_pvm): stock kernels hang on it"
elif kvm_usable; then
	accel=kvm reason="/dev/kvm usable"
else
	accel=tcg reason="/dev/kvm missing or unusable"
fi

qemu_escape() { printf '%s' "${1//,/,,}"; }

# Multi-threaded TCG, unless QEMU is older than 8.1: those race when the guest
# patches its own code (jump labels, alternatives) and run stale translations,
# e.g. "Oops: int3" in the kernel (fixed by QEMU commit deba78709a, "accel/tcg:
# Always lock pages before translation").  Single-threaded TCG is safe there.
tcg_thread=${RPCRDMA_INLINE_TCG_THREAD:-}
# Instruction counting runs every vCPU on one thread, and with QEMU 7.2 a
# 2-CPU guest stops for good at "Booting SMP configuration" (the guest
# clock waits for a vCPU that never runs): one CPU then
smp=${smp:-2}
[[ -z $icount ]] || tcg_thread=single smp=1
if [[ -z $tcg_thread ]]; then
	qemu_version=$(qemu-system-x86_64 --version | awk 'NR == 1 { print $4 }')
	if [[ $(printf '%s\n' "$qemu_version" 8.1 | sort -V | head -1) == 8.1 ]]; then
		tcg_thread=multi
	else
		tcg_thread=single
	fi
fi
[[ $tcg_thread == multi || $tcg_thread == single ]] || die "RPCRDMA_INLINE_TCG_THREAD must be multi or single"

cmdline="console=ttyS0 loglevel=5 panic=-1 rg.init=/out/.run-guest/guest-init.sh"

qemu_pid='' tail_pid=''
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null
	[[ -n $tail_pid ]] && kill "$tail_pid" 2>/dev/null
	return 0
}
trap cleanup EXIT
# Stopped by tests/vm/run-set.sh (another guest of the set died) or by
# Ctrl-C: QEMU goes too
trap 'log "stopped by a signal"; exit 143' TERM INT

now() { printf '%s' "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# boot ACCEL PROBE_SECONDS: run QEMU until it exits; 0 = exited, 124 = timed
# out, 125 = no sign of the initramfs within PROBE_SECONDS (KVM probe).
boot() {
	local acc=$1 probe=$2 args extra=
	args=(-name "${qname:-rpcrdma-guest-$kernel}" -machine pc -smp "$smp" -m "$mem"
		-nodefaults -no-user-config -display none -monitor none -no-reboot
		"${netargs[@]}"
		-serial "file:$out/console.log"
		-kernel "$kimage" -initrd "$initrd"
		-drive "file=$(qemu_escape "$image/root.ext4"),if=virtio,format=raw,snapshot=on,cache=unsafe"
		-fsdev "local,id=src,path=$(qemu_escape "$share"),security_model=none,readonly=on"
		-device "virtio-9p-pci,fsdev=src,mount_tag=src"
		-fsdev "local,id=out,path=$(qemu_escape "$out"),security_model=none"
		-device "virtio-9p-pci,fsdev=out,mount_tag=out"
		-device virtio-rng-pci -pidfile "$out/qemu.pid")
	if [[ -n $disk ]]; then
		args+=(-drive "file=$(qemu_escape "$disk"),if=virtio,format=raw,cache=writeback")
	fi
	if [[ -n $sync ]]; then
		args+=(-fsdev "local,id=sync,path=$(qemu_escape "$sync"),security_model=none"
			-device "virtio-9p-pci,fsdev=sync,mount_tag=sync")
	fi
	if [[ $acc == kvm ]]; then
		args+=(-accel kvm -cpu host)
	else
		args+=(-accel "tcg,thread=$tcg_thread" -cpu max)
		[[ -z $icount ]] || args+=(-icount "shift=$icount,sleep=off")
		# Emulation is slow and the host may be busy: do not report the
		# emulator's pauses as RCU stalls or soft lockups.
		extra="rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
	fi
	: >"$out/console.log"
	t_start=$(now) t_init=
	qemu-system-x86_64 "${args[@]}" -append "$cmdline $extra $append" \
		</dev/null >"$out/qemu.log" 2>&1 &
	qemu_pid=$!
	if ((!quiet)); then
		tail -n +1 -F --pid="$qemu_pid" "$out/console.log" >&2 2>/dev/null &
		tail_pid=$!
	fi
	local deadline=$((SECONDS + timeout)) probe_deadline=$((SECONDS + probe)) res=0
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [[ -z $t_init ]] && grep -q 'rg: guest-init start' "$out/console.log" 2>/dev/null; then
			t_init=$(now)
		fi
		if ((probe > 0 && SECONDS > probe_deadline)) && ! grep -q 'rg: initramfs start' "$out/console.log"; then
			kill "$qemu_pid" 2>/dev/null
			res=125
			break
		fi
		if ((SECONDS > deadline)); then
			log "timeout: the guest ran for more than $timeout s; killing QEMU"
			kill "$qemu_pid" 2>/dev/null
			res=124
			break
		fi
		sleep 0.2
	done
	wait "$qemu_pid" 2>/dev/null || true
	qemu_pid=
	t_end=$(now)
	if [[ -n $tail_pid ]]; then
		sleep 0.3
		kill "$tail_pid" 2>/dev/null || true
		wait "$tail_pid" 2>/dev/null || true
		tail_pid=
	fi
	if [[ -z $t_init ]] && grep -q 'rg: guest-init start' "$out/console.log" 2>/dev/null; then
		t_init=$t_end
	fi
	return "$res"
}

log "kernel $kernel, image $image"
if [[ $accel == tcg ]]; then
	log "accelerator: tcg, thread=$tcg_thread${icount:+, icount shift=$icount sleep=off} ($reason)"
else
	log "accelerator: kvm ($reason)"
fi
rc=0
if [[ $accel == kvm ]]; then
	boot kvm "${RPCRDMA_INLINE_KVM_PROBE:-30}" || rc=$?
	if ((rc == 125)); then
		log "KVM guest showed no sign of life in ${RPCRDMA_INLINE_KVM_PROBE:-30} s; falling back to TCG"
		accel=tcg
		rc=0
		boot tcg 0 || rc=$?
	fi
else
	boot tcg 0 || rc=$?
fi

total=$(elapsed "$t_start" "$t_end")
if [[ -n $t_init ]]; then
	log "timing ($accel): boot to guest init $(elapsed "$t_start" "$t_init") s, total $total s"
else
	log "timing ($accel): guest init never started, total $total s"
fi
guest_uptime=$(grep -ao 'rg: guest-init start uptime=[0-9.]*' "$out/console.log" | head -1 | cut -d= -f2 || true)
[[ -n $guest_uptime ]] && log "guest uptime at guest init: $guest_uptime s"

if ((rc == 124)); then
	status=124
elif [[ -s $out/status ]]; then
	status=$(tr -dc '0-9' <"$out/status")
	status=${status:-1}
	log "guest script exit code: $status"
else
	log "guest wrote no status (see $out/console.log and $out/qemu.log)"
	tail -n 20 "$out/qemu.log" >&2 || true
	status=1
fi

# ---------------------------------------------------------------- kernel problems
# Only kernel lines (with a printk timestamp) are matched.
bad='\[ *[0-9]+\.[0-9]+\] .*(WARNING:|BUG:|kernel BUG|Oops|general protection fault|Call Trace|hung_task|blocked for more than|soft lockup|hard LOCKUP|rcu: INFO|detected stall|self-detected stall|Kernel panic|UBSAN:)'
problems=$(cat "$out/console.log" "$out/dmesg.log" 2>/dev/null | tr -d '\r' | grep -aE "$bad" || true)
for a in "${allows[@]}"; do
	problems=$(grep -avE -- "$a" <<<"$problems" || true)
done
if [[ -n $problems ]]; then
	log "kernel problems found in console.log/dmesg.log:"
	awk '!seen[$0]++' <<<"$problems" | head -n 60 >&2
	((status != 0)) || status=3
fi
log "result: exit $status"
exit "$status"
