#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Run a command in the userland of a cached guest image, as a chroot.
#
#   tests/vm/chroot-run.sh --image DIR [--bind HOSTDIR:/path ...]
#                          [--env NAME=VALUE ...] [--cwd /path] -- COMMAND [ARGS...]
#
# e.g. build modules for a kernel with its own compiler (7.3 needs trixie's gcc-14):
#   img=$(tests/vm/build-image.sh trixie)
#   tests/vm/chroot-run.sh --image "$img" --bind "$PWD:/src" -- \
#       make -C /src KVER=7.3.4+deb13-amd64
#
# The chroot is an overlay over DIR/rootfs with a throwaway upper directory, so
# the cached image never changes; only --bind directories receive writes.
# Everything runs in a private mount namespace: proc, sys, dev (bind), a tmpfs
# on /tmp and the binds vanish when the command ends, however it ends.
# Exit status: the command's.
set -euo pipefail

log() { printf '[chroot-run] %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 2
}
usage() {
	sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

self=$(readlink -f "${BASH_SOURCE[0]}")
image='' cwd=/ binds=() envs=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--image) image=${2:?}; shift 2 ;;
	--bind) binds+=("${2:?}"); shift 2 ;;
	--env) envs+=("${2:?}"); shift 2 ;;
	--cwd) cwd=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ -n $image && $# -gt 0 ]] || die "--image DIR and a command after -- are required"
[[ -d $image/rootfs/usr ]] || die "$image/rootfs is not a root filesystem"
[[ $(id -u) -eq 0 ]] || die "must run as root"
image=$(cd "$image" && pwd)
for b in "${binds[@]}"; do
	[[ $b == *:/* && -d ${b%%:*} ]] || die "--bind takes HOSTDIR:/path with an existing HOSTDIR, not '$b'"
done
for e in "${envs[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env takes NAME=VALUE, not '$e'"
done

if [[ ${_CHROOT_RUN_WORK:-} == "" ]]; then
	# Outer half: make the scratch directory, re-run in a new mount namespace.
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/chroot-run.XXXXXX")
	trap 'rm -rf --one-file-system "$work"' EXIT
	args=(--image "$image" --cwd "$cwd")
	for b in "${binds[@]}"; do args+=(--bind "$b"); done
	for e in "${envs[@]}"; do args+=(--env "$e"); done
	rc=0
	_CHROOT_RUN_WORK=$work unshare --mount --propagation private -- "$self" "${args[@]}" -- "$@" || rc=$?
	exit "$rc"
fi

# Inner half, in the private mount namespace.
work=$_CHROOT_RUN_WORK
root=$work/root
mkdir -p "$work/upper" "$work/work" "$root"
# shellcheck disable=SC2317 # called by the trap
cleanup() { umount -R "$root" 2>/dev/null || umount -R -l "$root" 2>/dev/null || true; }
trap cleanup EXIT
mount -t overlay overlay -o "lowerdir=$image/rootfs,upperdir=$work/upper,workdir=$work/work" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
for b in "${binds[@]}"; do
	src=${b%%:*} dst=${b#*:}
	mkdir -p "$root$dst"
	mount --bind "$src" "$root$dst"
done
rc=0
chroot "$root" /usr/bin/env -i -C "$cwd" HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	"${envs[@]}" "$@" || rc=$?
exit "$rc"
