#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# PID 1 of a tests/vm guest (exec'ed by the initramfs after switch_root).
# Mounts the pseudo filesystems, exports the variables run-guest.sh wrote to
# /out/.run-guest/env.sh, runs RG_SCRIPT (a path relative to /src) with its
# output on the console and in /out/guest.log, then writes /out/status and
# /out/dmesg.log and powers off.  It must never exit: PID 1 exiting panics.
set -uo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8

say() { echo "rg: $*"; }

power_off() {
	sync
	busybox poweroff -f 2>/dev/null
	echo o >/proc/sysrq-trigger
	sleep 10
}
trap power_off EXIT

uptime() { local u _; read -r u _ </proc/uptime 2>/dev/null; echo "${u:-?}"; }
say "guest-init start uptime=$(uptime)"

# Few processes: every exec costs under TCG.
mounts=$(</proc/mounts) || mounts=
mnt() { # TYPE DIR [OPTIONS]
	[[ $mounts == *" $2 "* ]] && return 0
	[[ -d $2 ]] || mkdir -p "$2"
	mount -t "$1" -o "${3:-defaults}" "$1" "$2" || say "cannot mount $1 on $2"
}
mnt proc /proc
mounts=$(</proc/mounts)
mnt sysfs /sys
mnt devtmpfs /dev
mnt devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs /dev/shm mode=1777
mnt tmpfs /run mode=755
mnt tmpfs /tmp mode=1777
mnt debugfs /sys/kernel/debug
mnt tracefs /sys/kernel/tracing
[[ -d /sys/kernel/config ]] || modprobe -q configfs 2>/dev/null || true
[[ -d /sys/kernel/config ]] && mnt configfs /sys/kernel/config
mkdir -p /run/lock /var/tmp
# The share of a set of guests (run-guest.sh --sync), where they meet
for t in /sys/bus/virtio/drivers/9pnet_virtio/virtio*/mount_tag; do
	[[ -f $t && $(tr -d '\0' <"$t") == sync ]] || continue
	mkdir -p /sync
	mount -t 9p -o trans=virtio,version=9p2000.L,cache=none sync /sync || say "cannot mount the sync share"
done
# What udev would make: bash's <(...) and dkms need /dev/fd.
[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
[[ -e /dev/stdin ]] || ln -s /proc/self/fd/0 /dev/stdin
[[ -e /dev/stdout ]] || ln -s /proc/self/fd/1 /dev/stdout
[[ -e /dev/stderr ]] || ln -s /proc/self/fd/2 /dev/stderr
read -r host </etc/hostname 2>/dev/null || host=rpcrdma-guest
echo "${host:-rpcrdma-guest}" >/proc/sys/kernel/hostname
ip link set lo up

# Report hung tasks (kernel default 120 s); keep running after warnings.
echo "${RG_HUNG_TASK_TIMEOUT:-120}" >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || true
echo -1 >/proc/sys/kernel/hung_task_warnings 2>/dev/null || true
echo 0 >/proc/sys/kernel/panic_on_warn 2>/dev/null || true
# Let the console keep warnings (level 4) and worse, whatever changed it.
echo "5 4 1 5" >/proc/sys/kernel/printk
say "guest-init ready uptime=$(uptime) kernel=$(uname -r)"

RG_SCRIPT=
if [[ -f /out/.run-guest/env.sh ]]; then
	# shellcheck source=/dev/null
	. /out/.run-guest/env.sh
fi

rc=1
if [[ -z $RG_SCRIPT ]]; then
	say "no RG_SCRIPT given"
elif [[ ! -f /src/$RG_SCRIPT ]]; then
	say "no such script in the guest: /src/$RG_SCRIPT"
else
	say "running /src/$RG_SCRIPT"
	cd /src || true
	bash "/src/$RG_SCRIPT" </dev/null 2>&1 | tee /out/guest.log
	rc=${PIPESTATUS[0]}
	cd / || true
fi
say "guest script exit code $rc uptime=$(uptime)"
dmesg >/out/dmesg.log 2>&1
echo "$rc" >/out/status
sync
power_off
