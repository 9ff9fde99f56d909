#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The test command: run a tier of the suite and end with "N passed, N failed".
#
#   tests/run.sh quick   unit, style, the hooks' variants, bad input, the
#                        bench's input and report (host only), the 6.1
#                        build and guest
#   tests/run.sh check   what `make check` and CI run, sized to end within
#                        60 minutes on a fresh 2-core machine: quick, the
#                        builds of 6.12.113 and 7.3, the packaging tests,
#                        the 7.3 guest, and two machines: our client
#                        against a stock server on 6.1, NFSv4.2; and the
#                        compile against each vendor kernel kit (kits)
#   tests/run.sh full    check and the rest of the one-guest suite: builds
#                        for Debian 13's 6.12, Debian 12's 6.12 and 7.2; the
#                        other phases of the 6.1 and 7.3 guests, Debian 13's
#                        6.12 guest, the kernel-upgrade test and
#                        scripts/install.sh on a fresh Debian 12 guest; and
#                        the pairs of two machines on 6.1 (ours or stock on
#                        each side, NFSv4.2 and NFSv3) and across 6.1 and 7.3
#   tests/run.sh deep    full, then the guests of Debian 12's 6.12, of
#                        6.12.113 (Write chunks outside the WR chain) and
#                        6.12.107 (nor the accept errout backport), a
#                        build for every Debian kernel apt offers, per
#                        kernel the faults phase (device removal under load,
#                        churn, many connections) with our module and with
#                        the stock one, and the 6.12 debug kernel (lockdep,
#                        KASAN, kmemleak, failslab), the bench against
#                        a known injected delay (tests/bench/delay.sh),
#                        ours beside stock on the irdma and mlx5 models
#                        (6.1, 7.3),
#                        and each fault of the wire between two machines
#                        with ours beside stock (compare-6.1-FAULT)
#   tests/run.sh deep-extra  the entries of deep that full does not have:
#                        for a tree whose full tier has passed already
#                        (CI runs it), as deep's fault, debug and all-kernels
#                        part does not fit beside it in one session on a
#                        fresh 2-core machine
#   tests/run.sh NAME... only the named tests (see the lists below)
#   tests/run.sh --command NAME  print the command that runs NAME
#
# Guest images are built on first use and cached outside the repo
# (tests/vm/README.md). Each test's output goes to build/test-logs/NAME.log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
logs="${RPCRDMA_INLINE_OUT:-$repo/build/test-logs}"
export RPCRDMA_INLINE_OUT=$logs

# 6.12+deb13 is Debian 13's own kernel; 6.12 is Debian 12's (6.12.N+deb12)
quick=(unit style hooks bad-input package-names bench-input build-6.1 guest-6.1)
# A pair is pair-SERVER_SERIES-MODULE-CLIENT_SERIES-MODULE (tests/test-pair.sh)
check=(unit style hooks bad-input package-names bench-input build-6.1 build-6.12.113 build-7.3 packaging
	pair-6.1-stock-6.1-ours guest-6.1 guest-7.3)
# A compile against each vendor kernel's build kit (../shared/kernels:
# RHEL 8.10, 9.6, 10.0, Ubuntu 22.04's 5.15 and 6.8 HWE), about 20 s of CPU each
check+=(kits)
full=("${check[@]}" build-6.12+deb13 build-6.12 build-7.2 packaging-upgrade
	guest-install guest-install-sig guest-load-fallback pair-6.1-ours-6.1-stock pair-6.1-ours-6.1-ours pair-6.1-stock-6.1-stock
	pair-7.3-ours-6.1-ours pair-6.1-ours-7.3-ours pair-6.1-ours-6.1-ours-bench guest-6.1-more guest-7.3-more guest-6.12+deb13)
# The guests that full has not go first, the debug ones (the longest) at
# their head: the debug kernel's phases in two guests side by side (each
# arms and reads kmemleak; one guest with all of them took 7527 s, the
# critical path of the tier), the stock module's faults on it last
extra_guests=(debug-6.12 debug-data-6.12 guest-6.12.113 guest-6.12.107 guest-6.12 debug-stock-6.12)
# Ours beside stock on the NIC models: irdma on 6.1, mlx5 and irdma on 7.3
extra_guests+=(guest-6.1-models guest-7.3-models)
# The wire's faults, ours on both sides beside stock on both, compared
# check by check (tests/test-pair-compare.sh): ours must survive what
# stock survives, and what fails with both is listed as the kernel's
wire_faults=()
for f in loss1 loss5 delay10 dup1 linkdown20 kill; do
	wire_faults+=("compare-6.1-$f")
done
# and on 7.3, whose svcrdma chains its Write chunks ahead of the Reply and
# whose rxe keeps one state per QP: the faults that end with both
# modules on 6.1 (delay10's hour is 6.1's alone)
for f in loss1 loss5 dup1 kill; do
	wire_faults+=("compare-7.3-$f")
done
# The client's NIC at MTU 9000, the server's at 1500: our server refuses
# the connection, the mount fails by itself, and at 1500 the pair moves
# data. Not compared: a stock server accepts it, then moves nothing
# until the guests' timeout (docs/wire-faults.md)
wire_faults+=(pair-6.1-ours-6.1-stock-mtu9000)
extra=(pair-7.3-stock-6.1-ours pair-6.1-stock-7.3-ours pair-7.3-ours-6.1-stock pair-6.1-ours-7.3-stock
	"${wire_faults[@]}"
	pair-6.1-ours-6.1-ours-scale faults-7.3 faults-6.1 faults-6.12+deb13 all-kernels bench-delay)
# A kernel's installation never fails because of us (dkms 3.0 and 3.2)
extra+=(kernel-hooks-bookworm kernel-hooks-trixie)
deep=("${extra_guests[@]}" "${full[@]}" "${extra[@]}")
# How many QEMUs run in the background at once (a pair is two). Check
# starts its pair and two guests at once beside its three builds: a pair
# is latency-bound, about a third of a core per guest (CI's 2-core machine
# took over 2400 s per guest with four guests and six builds at once);
# deep keeps to three beside its faults guest in the foreground, so
# that each QEMU has half a core: with seven at once the debug kernel's
# fio ran slower than its limits allow
slots_check=4
slots_full=4
slots_deep=3

# Both debug-kernel entries (below): the time its slowness needs (a guard
# against a hang, not a limit on speed), fewer cycles, smaller fio files
# and integrity workload (at 8 MiB and 200 files, NFSv3's alone took
# 1655 s there beside four other guests)
debug_env="RPCRDMA_INLINE_GUEST_TIMEOUT=10800 FAULTS_CYCLES=30 FAULTS_RELOADS=10 FAULTS_FIO_LIMIT=1800 FAULTS_FIO_MIB=2 INTEGRITY_MIB=2 INTEGRITY_FILES=50"

command_of() {
	case $1 in
	unit) echo "$here/test-unit.sh" ;;
	style) echo "$here/test-style.sh" ;;
	bad-input) echo "$here/test-bad-input.sh" ;;
	# The source package messages name, per platform (a stand-in dpkg-query)
	package-names) echo "$here/test-package-names.sh" ;;
	# The bench's space check, fio error messages and report, on the host
	bench-input) echo "$here/test-bench-input.sh" ;;
	# Each hook's variants on the shapes of tests/hooks/fixtures
	hooks) echo "$here/test-hooks.sh" ;;
	# The project compiled against each vendor kernel build kit (W=1)
	kits) echo "$here/test-kits.sh" ;;
	build-*) echo "$here/test-build.sh ${1#build-}" ;;
	# Every Debian kernel of the supported series that apt offers
	all-kernels) echo "$here/test-all-kernels.sh" ;;
	# The README's install command on a fresh Debian 12 guest (DKMS builds
	# in the guest: the longest guest, so it starts first)
	guest-install) echo "$here/packaging/test-install-script.sh" ;;
	# The same on Debian 12's 6.12 booted with module.sig_enforce=1 and
	# without pahole: pahole installed, ours refused, the stock module
	# loaded at modprobe and at nfsd's start, NFS over RDMA up
	guest-install-sig) echo "$here/packaging/test-install-script.sh sig-enforce" ;;
	# modprobe rpcrdma when the kernel refuses ours, on Debian 13 (dkms 3.2
	# moves the stock module into original_module/), module.sig_enforce=1
	guest-load-fallback) echo "$here/packaging/test-load-fallback.sh" ;;
	# The size negotiation, the server-only measurement and the Send size
	# table on 6.1 only, the bench's smoke run on Debian 13's 6.12 only:
	# each costs minutes under TCG, and they exercise our code, not the
	# kernel's (split so that no guest runs long after the others); the
	# per-driver policy and the non-refusal retry on every kernel
	# check's 6.1 and 7.3 guests: the install, NFSv3 and NFSv4.1 counted
	# against the driver, the size negotiation (6.1), the retries and the
	# accept error path, and back to stock; full's -more guests the rest
	# (4 MiB and 100 files: the pair moves data too)
	guest-6.1) echo "env INTEGRITY_MIB=4 INTEGRITY_FILES=100 MODELS=mlx5 GUEST_PHASES=install,integrity,negotiation,models,retry,errreply,acceptleak,revert $here/test-guest.sh 6.1" ;;
	guest-7.3) echo "env INTEGRITY_MIB=4 INTEGRITY_FILES=100 GUEST_PHASES=install,integrity,retry,errreply,acceptleak,revert $here/test-guest.sh 7.3" ;;
	guest-6.1-more) echo "env GUEST_TAG=more GUEST_MEASURE=1 GUEST_PHASES=install,datapath,server,drivers,client,sizes,revert $here/test-guest.sh 6.1" ;;
	# Ours beside stock on the NIC models (tests/guest/phase-models.sh);
	# check's guest-6.1 runs the mlx5 one
	guest-6.1-models) echo "env GUEST_TAG=models MODELS=irdma,irdma-pre62 GUEST_PHASES=install,models $here/test-guest.sh 6.1" ;;
	guest-*-models) t=${1#guest-} && echo "env GUEST_TAG=models MODELS=mlx5,irdma GUEST_PHASES=install,models $here/test-guest.sh ${t%-models}" ;;
	guest-*-more) t=${1#guest-} && echo "env GUEST_TAG=more GUEST_PHASES=install,datapath,server,drivers,client,revert $here/test-guest.sh ${t%-more}" ;;
	guest-6.12+deb13) echo "env GUEST_PHASES=install,integrity,datapath,server,drivers,retry,client,bench,revert $here/test-guest.sh 6.12+deb13" ;;
	guest-*) echo "env GUEST_PHASES=install,integrity,datapath,server,drivers,retry,errreply,client,revert $here/test-guest.sh ${1#guest-}" ;;
	# Two machines: check's pair on NFSv4.2, the others on NFSv4.2 and NFSv3
	pair-6.1-stock-6.1-ours) echo "env PAIR_VERS=4.2 $here/test-pair.sh 6.1:stock 6.1:ours" ;;
	pair-*) pair_args "${1#pair-}" ;;
	# Two pairs with one fault, ours and stock side by side, compared
	compare-*) t=${1#compare-} && echo "$here/test-pair-compare.sh ${t%%-*} ${t#*-}" ;;
	# Faults with ours, then the same with the stock module after revert
	faults-*) echo "env GUEST_TAG=faults GUEST_PHASES=install,faults,revert,faults $here/test-guest.sh ${1#faults-}" ;;
	# The debug kernel (built on first use, tests/vm/build-debug-kernel.sh):
	# kmemleak armed first and read last. Lockdep and KASAN make each step
	# 5 to 15 times slower than on Debian's kernel, so the fault scenarios
	# run fewer cycles, and the per-driver policy (no code of its own to
	# check) is left to the other guests
	# The same fault scenarios on the debug kernel with the stock module
	# alone, to stand beside ours. Both debug entries write 2 MiB files:
	# with 8 MiB neither module's NFSv3 fio ended within 900 s there
	debug-stock-*) echo "env GUEST_TAG=debug-stock $debug_env GUEST_PHASES=stock,faults $here/test-guest.sh ${1#debug-stock-}-debug" ;;
	debug-data-*) echo "env GUEST_TAG=debug-data $debug_env GUEST_PHASES=kmemleak,install,integrity,negotiation,retry,kmemleak $here/test-guest.sh ${1#debug-data-}-debug" ;;
	debug-*) echo "env GUEST_TAG=debug $debug_env GUEST_PHASES=kmemleak,install,faults,failslab,kmemleak $here/test-guest.sh ${1#debug-}-debug" ;;
	# The bench against a known emulated PCIe read per Send by
	# reference, under instruction counting (reports numbers; fails only
	# when none came out)
	bench-delay) echo "$here/bench/delay.sh 6.1" ;;
	packaging) echo "$here/packaging/run.sh" ;;
	packaging-upgrade) echo "$here/packaging/test-upgrade.sh" ;;
	kernel-hooks-bookworm | kernel-hooks-trixie) echo "$here/packaging/test-kernel-hooks.sh ${1#kernel-hooks-}" ;;
	*) return 1 ;;
	esac
}

# pair_args S_SERIES-S_MODULE-C_SERIES-C_MODULE[-FAULT]: test-pair.sh's
# command; FAULT is the wire's (tests/guest/pair.sh): loss1, loss5
# (netem loss 1%, 5%), delay10 (10 ms +- 5 ms), dup1 (1% duplicated),
# linkdown20 (the server's link down 20 s under the 4 KiB writes). A lossy
# or reordering wire runs 2 MiB and 50 files: RoCE recovers a lost packet
# only when its ack timer fires
pair_args() {
	local ss sm cs cm fault env="PAIR_VERS=4.2,3"
	IFS=- read -r ss sm cs cm fault <<<"$1"
	[[ $sm =~ ^(ours|stock)$ && $cm =~ ^(ours|stock)$ ]] || return 1
	case ${fault:-} in
	'') ;;
	loss[0-9]*) env+=" PAIR_NETEM=loss,${fault#loss}% PAIR_FIO_MIB=2 PAIR_FILES=50" ;;
	# (reordering: the server's RDMA Writes reach the client shuffled,
	# rxe's RC resends from the first one out of order on, and each
	# such round without an ACK costs one of the QP's 7 retries: a
	# 4 KiB READ (4 packets) took about 2 s, ours and stock alike, but
	# the Write WRs of a 64 KiB or 1 MiB READ ran out of retries, the
	# connection ended and the RPC was sent again, for good. So the
	# sequential pass too is in 4 KiB blocks, 1 MiB of each, and 10 files;
	# about 28 minutes per version, so the guests get 90)
	delay10) env+=" PAIR_NETEM=delay,10ms,5ms PAIR_FIO_MIB=1 PAIR_FILES=10 PAIR_SEQ_BS=4k PAIR_SEQ_MIB=1 RPCRDMA_INLINE_GUEST_TIMEOUT=5400" ;;
	dup1) env+=" PAIR_NETEM=duplicate,1%" ;;
	# (fails with either module, in rxe: its QP1 does not survive the
	# CM's send that failed while the link was down, and deleting rxe0
	# afterwards blocks: docs/wire-faults.md)
	linkdown[0-9]*) env+=" PAIR_LINKDOWN=${fault#linkdown}" ;;
	# The server's QEMU killed under the client's writes and booted
	# again, NFSv3 then NFSv4.2 (tests/guest/pair-kill.sh)
	kill) env="PAIR_KILL=1 PAIR_VERS=3,4.2" ;;
	# The client's NIC at another MTU than the server's
	mtu[0-9]*) env+=" PAIR_CLIENT_MTU=${fault#mtu}" ;;
	# Not a fault: the bench from the client, first with only the client
	# switching, then the server too by --server-cmd, with 2 ms per Send
	# by reference on both sides (an effect TCG's noise cannot hide: 20 us
	# came out as -2.8 ms +- 27 ms)
	bench) env="PAIR_VERS=4.2 PAIR_FIO_MIB=2 PAIR_FILES=20 PAIR_BENCH=1 PAIR_BENCH_DELAY_NS=2000000 PAIR_BENCH_ROUNDS=4 PAIR_BENCH_RUNTIME=10" ;;
	# Not a fault: 64 connections, stock then ours, what each costs with
	# 256 possible CPUs (tests/guest/pair-scale.sh)
	scale) env="PAIR_SCALE=1" ;;
	*) return 1 ;;
	esac
	echo "env $env GUEST_TAG=${fault:-} $here/test-pair.sh $ss:$sm $cs:$cm"
}

slots=$slots_full
if [ "${1:-}" = --command ]; then
	command_of "${2:-}" || {
		echo "unknown test '${2:-}'" >&2
		exit 2
	}
	exit 0
fi
case ${1:-quick} in
quick) tests=("${quick[@]}") ;;
check) tests=("${check[@]}") slots=$slots_check ;;
full) tests=("${full[@]}") ;;
deep) tests=("${deep[@]}") slots=$slots_deep ;;
deep-extra) tests=("${extra_guests[@]}" "${extra[@]}") slots=$slots_deep ;;
*) tests=("$@") ;;
esac
slots=${RPCRDMA_INLINE_GUEST_SLOTS:-$slots}
for t in "${tests[@]}"; do
	command_of "$t" >/dev/null || {
		echo "unknown test '$t'; known: ${deep[*]}" >&2
		exit 2
	}
done

"$here/install-host-deps.sh"
mkdir -p "$logs"
passed=0
failed=0
notrun=()
start=$SECONDS

report() { # NAME STATUS SECONDS
	if [ "$2" -eq 77 ]; then
		# Nothing to run it on (tests/test-kits.sh without kits): not a pass
		notrun+=("$1")
		echo "# $1: not run ($3 s)"
		grep -E '^# .*not run' "$logs/$1.log" | head -n 10 | sed 's/^/#   /' || true
		return
	fi
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $((passed + failed)) - $1 ($3 s)"
	else
		failed=$((failed + 1))
		echo "not ok $((passed + failed)) - $1 ($3 s)"
		# (a log with none of these lines, a guest killed, must not end
		# the suite under pipefail)
		{ grep -E '^not ok|rpcrdma-inline:|error' "$logs/$1.log" || true; } | head -n 20 | sed 's/^/#   /'
		tail -n 15 "$logs/$1.log" | sed 's/^/#   /'
	fi
	grep -E '^# ' "$logs/$1.log" | grep -E 'took|Sends|granted|attempts|faults|not run' |
		head -n 30 | sed 's/^/#   /' || true
}

# The guests run in the background, side by side (single-threaded TCG keeps
# each QEMU on one core), at most $slots at once in list order, while the
# other tests, the faults guests of the deep tier among them, run one after
# the other. Each guest leaves "RC SECONDS" in build/test-logs/NAME.status.
run_guests() {
	local t cmd rc t0
	local need
	declare -A qemus=()
	for t in "${guests[@]}"; do
		need=1
		case $t in pair-*) need=2 ;; compare-*) need=4 ;; esac
		while :; do
			local busy=0 p
			for p in $(jobs -rp); do
				busy=$((busy + ${qemus[$p]:-1}))
			done
			[ $((busy + need)) -le "$slots" ] || [ "$busy" -eq 0 ] && break
			wait -n || true
		done
		(
			t0=$SECONDS
			read -ra cmd <<<"$(command_of "$t")"
			rc=0
			"${cmd[@]}" >"$logs/$t.log" 2>&1 || rc=$?
			echo "$rc $((SECONDS - t0))" >"$logs/$t.status"
		) &
		qemus[$!]=$need
	done
	wait
}

guests=()
others=()
for t in "${tests[@]}"; do
	case $t in
	guest-* | debug-* | pair-* | compare-*) guests+=("$t") ;;
	*) others+=("$t") ;;
	esac
done
scheduler=
if [ ${#guests[@]} -gt 0 ]; then
	# Their images first, one at a time, so that no two builds race
	for dist in bookworm trixie; do
		"$here/vm/build-image.sh" "$dist" >"$logs/image-$dist.log" 2>&1 || true
	done
	# Every later lookup takes these images, with the lists just refreshed:
	# no apt-get update while the guests run, and one kernel per series
	export RPCRDMA_INLINE_NO_UPDATE=1
	for t in "${guests[@]}"; do
		rm -f "$logs/$t.status"
	done
	run_guests &
	scheduler=$!
fi
for t in "${others[@]}"; do
	t0=$SECONDS
	read -ra cmd <<<"$(command_of "$t")"
	rc=0
	"${cmd[@]}" >"$logs/$t.log" 2>&1 || rc=$?
	report "$t" "$rc" $((SECONDS - t0))
done
if [ -n "$scheduler" ]; then
	wait "$scheduler" || true
fi
for t in "${guests[@]}"; do
	rc=1 secs=0
	read -r rc secs <"$logs/$t.status" || echo "# $t left no status" >>"$logs/$t.log"
	report "$t" "$rc" "$secs"
done
echo "# suite took $((SECONDS - start)) s; logs in $logs"
[ ${#notrun[@]} -eq 0 ] || echo "# not run (neither passed nor failed): ${notrun[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
