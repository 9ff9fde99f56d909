#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# scripts/load-rpcrdma, what `modprobe rpcrdma` runs through the package's
# install rule, without a kernel: a fake module tree, dkms tree, sysfs,
# procfs and kernel log (its RPCRDMA_INLINE_* variables) with stub
# modprobe, modinfo, insmod and logger first in PATH. Checked: ours loads
# (a stale record is removed); ours refused with the stock module in
# kernel/ (dkms 3.0) or in dkms's original_module/ (dkms 3.2): the stock
# file is loaded after its dependencies with only the options it knows,
# the record and the kernel log say why; no stock file, or the stock file
# refused too: exit 1 and fallback=none; and the install rule itself runs
# the helper, or a plain modprobe where the helper is absent.
#
# usage: test-load-rpcrdma.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

helper="$REPO/scripts/load-rpcrdma"
rule="$REPO/scripts/rpcrdma-inline-load.modprobe.conf"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
F="$work/root"
KVER=6.12.57+deb13-amd64
OURS=updates/dkms/rpcrdma.ko.xz
STOCK=kernel/net/sunrpc/xprtrdma/rpcrdma.ko.xz
ORIG="dkms/rpcrdma-inline/original_module/$KVER/x86_64/rpcrdma.ko.xz"
REFUSED="modprobe: ERROR: could not insert 'rpcrdma': Key was rejected by service"

stub() {
	{
		# shellcheck disable=SC2016 # the stub's own $* and $FAKE
		printf '#!/bin/bash\nset -eu\necho "%s $*" >>"$FAKE/calls"\n' "$1"
		cat
	} >"$F/bin/$1"
	chmod +x "$F/bin/$1"
}

# new_root LAYOUT: kernel (the stock file in kernel/), moved (in dkms's
# original_module/, as dkms 3.2 keeps it while ours is installed) or none
new_root() {
	rm -rf "$F"
	mkdir -p "$F/sys/module/sunrpc" "$F/proc" "$F/bin" "$F/run" \
		"$F/modules/$(dirname "$OURS")" "$F/modules/$(dirname "$STOCK")" "$F/$(dirname "$ORIG")"
	echo "BOOT_IMAGE=/vmlinuz root=/dev/vda rpcrdma.inline_size=64 rpcrdma.stock_param=7 quiet" >"$F/proc/cmdline"
	: >"$F/modules/$OURS"
	printf 'depends=sunrpc,ib_core,rdma_cm\nparm=inline_size:bytes (uint)\n' >"$F/modules/$OURS.modinfo"
	case $1 in
	kernel) stock="$F/modules/$STOCK" ;;
	moved) stock="$F/$ORIG" ;;
	none) stock= ;;
	esac
	if [ -n "$stock" ]; then
		: >"$stock"
		printf 'depends=sunrpc,ib_core,rdma_cm\nparm=stock_param:a parameter of the stock module (int)\n' >"$stock.modinfo"
		# dkms 3.2 leaves where it was beside it
		[ "$1" != moved ] || echo "$F/modules/$STOCK" >"$stock.origin"
	fi
	: >"$F/calls"
	: >"$F/kmsg"
	stub modprobe <<'EOF'
case $1 in
--ignore-install)
	if [ -n "${FAKE_OURS_OK:-}" ]; then
		mkdir -p "$FAKE/sys/module/rpcrdma" && echo live >"$FAKE/sys/module/rpcrdma/initstate"
		exit 0
	fi
	echo "modprobe: ERROR: could not insert 'rpcrdma': Key was rejected by service" >&2
	exit 1 ;;
-c) echo "options rpcrdma inline_size=128 stock_param=3"; echo "options other x=1" ;;
-a) ;;
*) exit 1 ;;
esac
EOF
	stub modinfo <<'EOF'
case $1 in
-k) echo "$FAKE/modules/updates/dkms/rpcrdma.ko.xz" ;;
-F) [ -f "$3" ] || exit 1; sed -n "s/^$2=//p" "$3.modinfo" ;;
*) exit 1 ;;
esac
EOF
	stub insmod <<'EOF'
if [ -n "${FAKE_INSMOD_FAIL:-}" ]; then
	echo "insmod: ERROR: could not insert module $1: Invalid module format" >&2
	exit 1
fi
mkdir -p "$FAKE/sys/module/rpcrdma" && echo live >"$FAKE/sys/module/rpcrdma/initstate"
EOF
	stub logger </dev/null
}

# run OPTION...: the helper against the fake root; sets rc, out (stderr)
run() {
	rc=0
	out=$(env FAKE="$F" PATH="$F/bin:$PATH" RPCRDMA_INLINE_RUN="$F/run" RPCRDMA_INLINE_KVER="$KVER" \
		RPCRDMA_INLINE_MODULES_DIR="$F/modules" RPCRDMA_INLINE_DKMS_TREE="$F/dkms" \
		RPCRDMA_INLINE_SYSFS="$F/sys" RPCRDMA_INLINE_PROC="$F/proc" RPCRDMA_INLINE_KMSG="${kmsg:-$F/kmsg}" \
		"$helper" "$@" 2>&1 >/dev/null) || rc=$?
}
record() { sed -n "s/^$1=//p" "$F/run/load-failure"; }

# Ours loads: nothing else is done, a record left by an earlier refusal goes
new_root kernel
echo "fallback=none" >"$F/run/load-failure"
FAKE_OURS_OK=1 run inline_size=128
expect_eq "ours loads: exit 0" 0 "$rc"
expect_eq "ours loads: one modprobe --ignore-install with the given options" \
	"modprobe --ignore-install rpcrdma inline_size=128" "$(grep -v '^modinfo' "$F/calls")"
expect_eq "ours loads: the old load-failure record is removed" no \
	"$(test -e "$F/run/load-failure" && echo yes || echo no)"
expect_eq "ours loads: nothing logged" "" "$(cat "$F/kmsg")"

# Ours refused, the stock file in kernel/ (dkms 3.0, RPM systems)
for layout in kernel moved; do
	new_root "$layout"
	run inline_size=128 stock_param=5
	expect_eq "$layout: ours refused, stock loaded: exit 0" 0 "$rc"
	expect_eq "$layout: the stock module's dependencies are loaded first" \
		"modprobe -a sunrpc ib_core rdma_cm" "$(grep '^modprobe -a' "$F/calls")"
	expect_eq "$layout: insmod of $stock with only the options it knows (modprobe.d, kernel command line, given)" \
		"insmod $stock stock_param=3 stock_param=7 stock_param=5" "$(grep '^insmod' "$F/calls")"
	expect_eq "$layout: the dependencies come before insmod" "modprobe -a|insmod" \
		"$(grep -oE '^(modprobe -a|insmod)' "$F/calls" | paste -sd '|')"
	expect_eq "$layout: the record has time, kernel, module, error, fallback in that order" \
		"time kernel module error fallback" "$(sed 's/=.*//' "$F/run/load-failure" | paste -sd ' ')"
	expect_grep "$layout: time= is UTC ISO 8601" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "$(record time)"
	expect_eq "$layout: kernel=" "$KVER" "$(record kernel)"
	expect_eq "$layout: module= the file of ours refused" "$F/modules/$OURS" "$(record module)"
	expect_eq "$layout: error= modprobe's message" "$REFUSED" "$(record error)"
	expect_eq "$layout: fallback= the stock file" "$stock" "$(record fallback)"
	expect "$layout: the kernel log says ours was refused, why, and what was loaded" \
		grep -qF "<4>rpcrdma-inline: the kernel refused $F/modules/$OURS ($REFUSED); loaded the stock $stock instead" "$F/kmsg"
	expect_grep "$layout: and so does stderr (modprobe's caller sees it)" "refused .*Key was rejected by service.*loaded the stock" "$out"
done

# No stock file anywhere
new_root none
run
expect_eq "no stock file: exit 1" 1 "$rc"
expect_eq "no stock file: fallback=none" none "$(record fallback)"
expect_eq "no stock file: no insmod" "" "$(grep '^insmod' "$F/calls" || true)"
expect "no stock file: the log says rpcrdma is not loaded" \
	grep -qF "no stock rpcrdma.ko was found for $KVER: rpcrdma is not loaded" "$F/kmsg"

# The stock file refused too
new_root kernel
FAKE_INSMOD_FAIL=1 run
expect_eq "stock refused too: exit 1" 1 "$rc"
expect_eq "stock refused too: fallback=none" none "$(record fallback)"
expect_grep "stock refused too: the log names both errors" \
	"Key was rejected by service.*the stock .*/$STOCK failed too \\(insmod: ERROR: .*Invalid module format\\)" "$(cat "$F/kmsg")"

# No /dev/kmsg to write (none in this root): logger
new_root kernel
kmsg="$F/none/kmsg" run
expect_grep "no /dev/kmsg: logged with logger" '^logger -p kern.warning -t rpcrdma-inline -- the kernel refused' "$(cat "$F/calls")"

# The install rule: one line; through sh as modprobe runs it, with the
# helper's path pointed at the tree's copy, or at nothing
line=$(grep -vE '^[[:space:]]*(#|$)' "$rule")
expect_grep "the rule is an install rule of rpcrdma" '^install rpcrdma ' "$line"
cmd=${line#install rpcrdma }
new_root kernel
mkdir -p "$F/libexec"
cp "$helper" "$F/libexec/load-rpcrdma"
rc=0
env FAKE="$F" PATH="$F/bin:$PATH" RPCRDMA_INLINE_RUN="$F/run" RPCRDMA_INLINE_KVER="$KVER" \
	RPCRDMA_INLINE_MODULES_DIR="$F/modules" RPCRDMA_INLINE_DKMS_TREE="$F/dkms" \
	RPCRDMA_INLINE_SYSFS="$F/sys" RPCRDMA_INLINE_PROC="$F/proc" RPCRDMA_INLINE_KMSG="$F/kmsg" \
	sh -c "${cmd//\/usr\/libexec\/rpcrdma-inline/$F/libexec}" sh 2>/dev/null || rc=$?
expect_eq "the rule runs the helper: exit 0, the stock file loaded" "0 $F/modules/$STOCK" "$rc $(record fallback)"
new_root kernel
rm -rf "$F/libexec"
rc=0
env FAKE="$F" PATH="$F/bin:$PATH" sh -c "${cmd//\/usr\/libexec\/rpcrdma-inline/$F/libexec}" sh 2>/dev/null || rc=$?
expect_eq "without the helper, the rule is a plain modprobe --ignore-install" \
	"1 modprobe --ignore-install rpcrdma" "$rc $(cat "$F/calls")"
tap_end
