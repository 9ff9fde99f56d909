#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The bench's input and report, on the host: no guest, no RDMA, a few
# seconds. The report of a fixture run (tests/bench-input/fixture) writes
# the Markdown and CSV of tests/bench-input/expected byte for byte, with
# matplotlib (and a PNG of a sane size) and without it (and then the
# apt-get hint); the bench refuses an export without room for its two
# test files, naming the --size that fits (a fake df, and a real tmpfs
# when root); and its messages tell a full export, a verify error, a lost
# server and another I/O error apart (fio's output as it prints it; a
# real fio that fills a tmpfs, when root).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

BENCH=$REPO/scripts/rpcrdma-inline-bench
REPORT=$REPO/scripts/rpcrdma-inline-bench-report
fixture=$REPO/tests/bench-input/fixture
expected=$REPO/tests/bench-input/expected
# The distribution's interpreter, which python3-matplotlib installs for
py=/usr/bin/python3
work=$(mktemp -d)
tmpfs=''
cleanup() {
	if [ -n "$tmpfs" ]; then
		umount "$tmpfs" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# same NAME FILE EXPECTED: FILE is byte for byte EXPECTED
same() {
	if cmp -s "$2" "$3"; then
		tap_ok "$1"
	else
		diff -u "$3" "$2" | head -n 40 || true
		tap_fail "$1"
	fi
}

# report DIR [ENV...]: the report of the fixture, run in DIR; its exit
# status in DIR/rc, its output in DIR/stdout and DIR/stderr
report() {
	local dir=$1 rc=0
	shift
	mkdir -p "$dir"
	cp "$fixture"/* "$dir"/
	env "$@" "$py" "$REPORT" "$dir" >"$dir/stdout" 2>"$dir/stderr" || rc=$?
	echo "$rc" >"$dir/rc"
}

# --- The report, with matplotlib
if "$py" -c 'import matplotlib' 2>/dev/null; then
	d=$work/with
	report "$d"
	expect "report with matplotlib: exit 0 ($(cat "$d/rc"))" test "$(cat "$d/rc")" = 0
	same "report with matplotlib: results.md as before" "$d/results.md" "$expected/results.md"
	same "report with matplotlib: results.csv as before" "$d/results.csv" "$expected/results.csv"
	same "report with matplotlib: prints results.md" "$d/stdout" "$expected/results.md"
	expect "report with matplotlib: nothing on stderr" test ! -s "$d/stderr"
	sig=$(head -c 8 "$d/latency.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	expect "report with matplotlib: latency.png has the PNG signature ($sig)" \
		test "$sig" = 89504e470d0a1a0a
	# IHDR: width and height, big-endian, at bytes 16..23
	read -r w h < <(od -An -tu1 -j16 -N8 "$d/latency.png" |
		awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }')
	expect "report with matplotlib: latency.png is ${w}x$h pixels, wider than high, 600-2400 x 300-1600" \
		test "$w" -ge 600 -a "$w" -le 2400 -a "$h" -ge 300 -a "$h" -le 1600 -a "$w" -gt "$h"
	# A blank canvas of that size compresses to a few KiB; two panels
	# with axes, labels and a legend do not
	expect "report with matplotlib: latency.png holds a drawing ($(stat -c %s "$d/latency.png") bytes)" \
		test "$(stat -c %s "$d/latency.png")" -gt 20000
else
	tap_fail "python3-matplotlib is not installed for $py: tests/install-host-deps.sh installs it"
fi

# --- The report without matplotlib: an import of it fails
mkdir -p "$work/nompl/matplotlib"
echo 'raise ImportError("No module named matplotlib (tests/test-bench-input.sh)")' \
	>"$work/nompl/matplotlib/__init__.py"
d=$work/without
report "$d" PYTHONPATH="$work/nompl"
expect "report without matplotlib: exit 0 ($(cat "$d/rc"))" test "$(cat "$d/rc")" = 0
same "report without matplotlib: results.md as before" "$d/results.md" "$expected/results.md"
same "report without matplotlib: results.csv as before" "$d/results.csv" "$expected/results.csv"
same "report without matplotlib: prints results.md" "$d/stdout" "$expected/results.md"
expect "report without matplotlib: no latency.png" test ! -e "$d/latency.png"
expect "report without matplotlib: says how to get the plot ($(head -c 120 "$d/stderr"))" \
	grep -qF "apt-get install python3-matplotlib" "$d/stderr"
expect "report without matplotlib: and how to draw it then" \
	grep -qF "then draw it with: $py $REPORT $d" "$d/stderr"

# --- The bench's functions, sourced (it runs nothing when sourced).
# bench_fn NAME WANT-RC MESSAGE CODE [ENV...]: CODE (bash, the bench's
# functions defined, SERVER:/EXPORT server:/export) exits WANT-RC, and its
# output holds MESSAGE (empty: holds no "rpcrdma-inline bench:" message)
mkdir -p "$work/proc" "$work/out"
: >"$work/proc/mounts"
bench_fn() {
	local name=$1 want=$2 msg=$3 code=$4 rc=0 ok=1
	shift 4
	# shellcheck disable=SC2016 # expanded by that bash
	env RPCRDMA_INLINE_PROC="$work/proc" "$@" bash -c '
		. "$1"
		server=server export_path=/export spec=server:/export out=$2/out
		eval "$3"' bash "$BENCH" "$work" "$code" >"$work/fn.out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || ok=0
	if [ -n "$msg" ]; then
		grep -qF -- "$msg" "$work/fn.out" || ok=0
	elif grep -q 'rpcrdma-inline bench:' "$work/fn.out"; then
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		tap_ok "$name"
	else
		cat "$work/fn.out"
		tap_fail "$name (exit $rc, wanted $want${msg:+ saying: $msg})"
	fi
}

# The reasons by reference per round, from two readings of a connection
b="client peer=x asked=256 inline=5 byref=10 off=0 chunks=7 chained=0 pages=3 unpulled=0 large=0 sge=0"
a="client peer=x asked=256 inline=9 byref=15 off=0 chunks=9 chained=0 pages=3 unpulled=0 large=3 sge=0"
bench_fn "why_byref: the reasons that grew, in the connection line's order" 0 "chunks=2,large=3" \
	"why_byref '$b' '$a'"
bench_fn "why_byref: none grew" 0 "-" "why_byref '$a' '$a'"

# SERVER:/EXPORT: a name, an IPv4 address, an IPv6 address in brackets
# (as mount.nfs takes it); a bare IPv6 address is ambiguous: refused
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "SERVER:/EXPORT: [2001:db8::17]:/export is server 2001:db8::17, export /export" 0 \
	"2001:db8::17 /export [2001:db8::17]:/export" \
	'parse_args "[2001:db8::17]:/export"; echo "$server $export_path $spec"'
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "SERVER:/EXPORT: 192.0.2.17:/x/y is server 192.0.2.17, export /x/y" 0 "192.0.2.17 /x/y 192.0.2.17:/x/y" \
	'parse_args 192.0.2.17:/x/y; echo "$server $export_path $spec"'
bench_fn "SERVER:/EXPORT: 2001:db8::17:/export, no brackets: refused, naming the bracketed form" 2 \
	"is not SERVER:/EXPORT (an IPv6 address in brackets: [ADDR]:/EXPORT)" 'parse_args 2001:db8::17:/export'

# --server-cmd: what the server says it set is held to what was asked
# (inline_size=N, or rpcrdma-inline -p status's lines); a command that
# says nothing is run but marked unconfirmed; a stock server is refused;
# on every exit the server is set back to --server-restore
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: it says inline_size=256 when asked 256: confirmed in rounds.tsv" 0 \
	"round 1, mode B: the server's inline_size is 256" \
	'server_cmd="echo inline_size={size}"; server_switch 256 "round 1, mode B"; cat "$out/rounds.tsv"'
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: status says parameter.inline_size: 128 when asked 256: stops, naming both" 1 \
	"--server-cmd set the server's inline_size to 128, not 256 as asked" \
	'server_cmd="printf \"module: ours\nparameter.inline_size: 128\n\""; server_switch 256 "round 1, mode B"'
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: it prints nothing: run, and marked not confirmed" 0 \
	"round 2, mode A: inline_size=0 asked, not confirmed" \
	'server_cmd="true {size}"; server_switch 0 "round 2, mode A"; cat "$out/rounds.tsv"'
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: the server's status says the stock module: stops" 1 \
	"the server's rpcrdma is the stock module" \
	'server_cmd="echo module: stock; echo {size}"; server_switch 256 "round 1, mode B"'
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: a failing command stops the bench, and the exit sets the server back to --server-restore" 1 \
	"set back to 64 by --server-cmd" \
	'server_restore=64 server_cmd="echo {size} >>$out/sizes; [ {size} != 256 ]"
	trap cleanup EXIT; server_switch 256 "round 1, mode B"'
expect "server-cmd: ... asked 256, then 64 on the way out" \
	test "$(tr '\n' ' ' <"$work/out/sizes")" = "256 64 "

# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: a stock server's status exits 5: stops as a stock server, not as a failed command" 1 \
	"the server's rpcrdma is the stock module" \
	'server_cmd="echo module: stock; echo {size} >/dev/null; exit 5"; server_switch 256 "round 1, mode B"'
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "server-cmd: a report it prints is kept, from its report: line, as the server's (the first only)" 0 \
	"report: rpcrdma-inline 9.9|parameter.inline_size: 256|kernel: server-1|" \
	'rm -f "$out/server-report.txt"
	server_cmd="echo set {size}; printf \"report: rpcrdma-inline 9.9\nmodule: ours\nparameter.inline_size: {size}\nkernel: server-1\n\""
	server_switch 256 "round 1, mode B"
	server_cmd="printf \"report: rpcrdma-inline 9.9\nparameter.inline_size: {size}\nkernel: server-2\n\""
	server_switch 0 "round 1, mode A"
	grep -v "^module:" "$out/server-report.txt" | tr "\n" "|"'
# The negotiated mount options in the header, from /proc/mounts
echo "192.0.2.1:/export /tmp/rpcrdma-inline-bench.x nfs rw,relatime,vers=3,rsize=262144,wsize=262144,namlen=255,hard,proto=rdma,port=20049,timeo=100,retrans=3,sec=sys,mountaddr=192.0.2.1 0 0" \
	>"$work/proc/mounts"
# shellcheck disable=SC2016 # expanded by bench_fn's bash
bench_fn "mount_line: vers, rsize, wsize, proto and port of the bench's mount" 0 \
	"[vers=3 rsize=262144 wsize=262144 proto=rdma port=20049]" \
	'mnt=/tmp/rpcrdma-inline-bench.x; echo "[$(mount_line)]"'
: >"$work/proc/mounts"

# --- The report: a calibration (A/A) run, and one without the server's report
d=$work/calibrate
mkdir -p "$d"
cp "$fixture"/* "$d"/
sed -i -e '/^# order:/a # calibrate: A/A, both arms inline_size=256' -e 's/^\([0-9]*\tA\t\)0\t/\1256\t/' "$d/rounds.tsv"
rm "$d/server-report.txt"
rc=0
"$py" "$REPORT" "$d" >/dev/null 2>&1 || rc=$?
expect "report, --calibrate run: exit 0 ($rc)" test "$rc" = 0
expect_grep_md() { # NAME ERE: a line of $d/results.md matches
	if grep -qE -- "$2" "$d/results.md"; then tap_ok "$1"; else sed 's/^/#   | /' "$d/results.md" | head -n 30; tap_fail "$1"; fi
}
expect_grep_md "report, --calibrate run: titled as a calibration" '^# rpcrdma-inline bench: calibration \(A/A\)$'
expect_grep_md "report, --calibrate run: says both arms ran the same size, so the differences are noise" \
	'^Calibration \(A/A\): both arms ran inline_size=256, so every difference$'
expect_grep_md "report, --calibrate run: mode line says both arms" '^Mode A and mode B: both inline_size=256\.$'
expect_grep_md "report, --calibrate run: the noise and the smallest resolvable difference, per workload" \
	'^resolves from zero is [0-9]+\.[0-9]{2} us\. To resolve 0\.26 us: about [0-9]+ rounds\.$'
expect_grep_md "report without server-report.txt: says the server printed no report" \
	"^none: --server-cmd printed no report \\(end it with 'rpcrdma-inline report'\\)\\.$"
expect_grep_md "report without server-report.txt: the Server line says so" \
	"^Server: no report \\(end --server-cmd with 'rpcrdma-inline report'\\)\\.$"
expect_grep_md "report: the client's summary: kernel, module, NIC with board and firmware, CPU" \
	'^Client: kernel 6\.1\.0-57-amd64 \(Debian GNU/Linux 12 \(bookworm\)\), rpcrdma ours 0\.9, inline_size=256; NIC mlx5_0 port 1 \(mlx5, board MT_0000000359, firmware 22\.36\.1010, Ethernet, 100 Gb/sec \(2X HDR\), MTU 4200\); CPU Fixture CPU @ 3\.00GHz x 16, governor performance\.$'
expect_grep_md "report: the client's report, embedded whole" '^    rdma-device: name=mlx5_0 port=1 '

# The NIC's identity in the report's header, from a sysfs of one
# ConnectX port on a RoCE netdev at MTU 4200 (and a port with no netdev)
sys=$work/sys
mkdir -p "$sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs" "$sys/class/infiniband/mlx5_0/ports/2" \
	"$sys/class/net/ens1f0np0"
echo MT4129 >"$sys/class/infiniband/mlx5_0/hca_type"
echo MT_0000000838 >"$sys/class/infiniband/mlx5_0/board_id"
echo 28.39.1002 >"$sys/class/infiniband/mlx5_0/fw_ver"
echo Ethernet >"$sys/class/infiniband/mlx5_0/ports/1/link_layer"
echo "4: ACTIVE" >"$sys/class/infiniband/mlx5_0/ports/1/state"
echo "100 Gb/sec (4X EDR)" >"$sys/class/infiniband/mlx5_0/ports/1/rate"
echo ens1f0np0 >"$sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"
echo 4200 >"$sys/class/net/ens1f0np0/mtu"
bench_fn "nic_identity: a RoCE port, its board, firmware, link and netdev MTU" 0 \
	"mlx5_0 port 1: hca_type=MT4129 board_id=MT_0000000838 fw_ver=28.39.1002 link_layer=Ethernet state=4:_ACTIVE rate=100_Gb/sec_(4X_EDR) netdev=ens1f0np0 mtu=4200" \
	"nic_identity" RPCRDMA_INLINE_SYSFS="$sys"
bench_fn "nic_identity: a port without a netdev or attributes prints - for each" 0 \
	"mlx5_0 port 2: hca_type=MT4129 board_id=MT_0000000838 fw_ver=28.39.1002 link_layer=- state=- rate=- netdev=- mtu=-" \
	"nic_identity" RPCRDMA_INLINE_SYSFS="$sys"

# A df that reports FAKE_DF_KIB KiB available
mkdir -p "$work/bin"
cat >"$work/bin/df" <<'EOF'
#!/bin/sh
echo "Filesystem 1024-blocks Used Available Capacity Mounted on"
echo "server:/export 104857600 0 $FAKE_DF_KIB 0% /mnt"
EOF
chmod +x "$work/bin/df"
fake=("PATH=$work/bin:$PATH")
mkdir -p "$work/export"
space() { # NAME WANT-RC MESSAGE FREE-MIB SIZE-MIB
	bench_fn "space: $1" "$2" "$3" "size_mib=$5; check_space $work/export" \
		"${fake[@]}" FAKE_DF_KIB=$(($4 * 1024))
}
space "1024 MiB files, 600 MiB free: refused, naming --size 296" 1 \
	"server:/export has 600 MiB free (df $work/export), and the bench's two test files of --size 1024 MiB need 2056 MiB with 8 MiB to spare: run it with --size 296 (or less)" 600 1024
space "296 MiB files, 600 MiB free: fit" 0 "" 600 296
space "297 MiB files, 600 MiB free: refused" 1 "run it with --size 296 (or less)" 600 297
space "1 MiB files, 10 MiB free: fit" 0 "" 10 1
space "9 MiB free: too little for any size" 1 \
	"has 9 MiB free (df $work/export): too little for the bench's two test files of even 1 MiB each" 9 1
fallocate -l 100M "$work/export/rpcrdma-inline-bench.r"
space "an earlier run's 100 MiB file counts as room: 146 MiB files, 200 free: fit" 0 "" 200 146
space "an earlier run's 100 MiB file counts as room: 147 MiB files, 200 free: refused" 1 \
	"need 202 MiB beyond the 100 MiB an earlier run left in them with 8 MiB to spare: run it with --size 146 (or less)" 200 147
rm "$work/export/rpcrdma-inline-bench.r"
truncate -s 100M "$work/export/rpcrdma-inline-bench.w"
space "a sparse file of an earlier run holds no room: 146 MiB files, 200 free: refused" 1 \
	"run it with --size 96 (or less)" 200 146
rm "$work/export/rpcrdma-inline-bench.w"
# A df that fails as it does on a stale mount
cat >"$work/bin/df" <<'EOF'
#!/bin/sh
echo "df: $3: Stale file handle" >&2
exit 1
EOF
bench_fn "space: df failing is a lost server" 1 \
	"cannot tell the free space of server:/export (df -Pk $work/export: df: $work/export: Stale file handle): the server may have gone away" \
	"size_mib=1; check_space $work/export" "${fake[@]}"
rm "$work/bin/df"

# A real file system of 64 MiB, as df reports it
can_mount=0
if [ "$(id -u)" = 0 ]; then
	tmpfs=$work/tmpfs
	mkdir -p "$tmpfs"
	if mount -t tmpfs -o size=64m tmpfs "$tmpfs"; then
		can_mount=1
	else
		tmpfs=''
	fi
fi
if [ "$can_mount" = 1 ]; then
	bench_fn "space: a 64 MiB tmpfs takes 28 MiB files" 0 "" "size_mib=28; check_space $tmpfs"
	bench_fn "space: a 64 MiB tmpfs refuses 29 MiB files, naming --size 28" 1 \
		"server:/export has 64 MiB free (df $tmpfs), and the bench's two test files of --size 29 MiB need 66 MiB with 8 MiB to spare: run it with --size 28 (or less)" \
		"size_mib=29; check_space $tmpfs"
else
	tap_ok "space: a real tmpfs # skip: not root, or no tmpfs"
fi

# --- fio's failures, told apart. fail NAME MESSAGE MOUNTED LOG-TEXT
# [JSON-TEXT] [ENV...]: fio_failed, with fio's log (and JSON) holding
# these, the mount $work/mnt listed in /proc/mounts (MOUNTED=1) or not,
# stops with MESSAGE
mkdir -p "$work/mnt"
fail() {
	local name=$1 msg=$2 mounted=$3 log=$4 json=${5:-}
	shift 5 2>/dev/null || shift $#
	printf '%s\n' "$log" >"$work/out/x.log"
	printf '%s\n' "$json" >"$work/out/x.json"
	if [ "$mounted" = 1 ]; then
		echo "server:/export $work/mnt nfs rw,vers=3,proto=rdma,addr=192.0.2.1 0 0" >"$work/proc/mounts"
	else
		: >"$work/proc/mounts"
	fi
	bench_fn "fio error: $name" 1 "$msg" \
		"mnt=$work/mnt size_mib=1024; fio_failed randwrite 1 $work/out/x.log $work/out/x.json" "$@"
}
enospc_log="fio: io_u error on file $work/mnt/rpcrdma-inline-bench.w: No space left on device: write offset=11366400, buflen=4096"
cat >"$work/bin/df" <<'EOF'
#!/bin/sh
echo "Filesystem 1024-blocks Used Available Capacity Mounted on"
echo "server:/export 104857600 0 $FAKE_DF_KIB 0% /mnt"
EOF
chmod +x "$work/bin/df"
fail "ENOSPC (fio --output-format=json: the words in the log, the number in the JSON)" \
	"fio randwrite stopped: the export is full (ENOSPC: no space left on the server's file system; $work/out/x.log: $enospc_log). server:/export has 20 MiB free now: run with --size 6 or less" \
	1 "$enospc_log" '{ "jobs" : [ { "jobname" : "x", "groupid" : 0, "error" : 28, "eta" : 0 } ] }' \
	"${fake[@]}" FAKE_DF_KIB=$((20 * 1024))
fail "ENOSPC (fio's text output: err=28)" "the export is full (ENOSPC" 1 \
	"fio: pid=4172, err=28/file:io_u.c:1876, func=io_u error, error=No space left on device" '' \
	"${fake[@]}" FAKE_DF_KIB=0
fail "EDQUOT" "the export is full (EDQUOT: the server's disk quota is exhausted" 1 \
	"fio: io_u error on file $work/mnt/f: Disk quota exceeded: write offset=0, buflen=4096" '' \
	"${fake[@]}" FAKE_DF_KIB=0
fail "a verify error" \
	"fio randwrite read back data that differs from what it wrote (verify=crc32c; $work/out/x.log: verify: bad magic header 0, wanted acca at file $work/mnt/f offset 4096, length 4096 (requested block: offset=4096, length=4096)): the data was corrupted" \
	1 "verify: bad magic header 0, wanted acca at file $work/mnt/f offset 4096, length 4096 (requested block: offset=4096, length=4096)
fio: pid=7, err=84/file:io_u.c:2228, func=io_u_sync_complete, error=Invalid or incomplete multibyte or wide character"
fail "EIO, the mount gone" \
	"fio randwrite failed (exit 1; the mount $work/mnt is gone; $work/out/x.log: fio: io_u error on file $work/mnt/f: Input/output error: write offset=0, buflen=4096): the server may have gone away" \
	0 "fio: io_u error on file $work/mnt/f: Input/output error: write offset=0, buflen=4096"
fail "EIO, the export still answering: a soft mount's timeout" \
	"EIO: on this soft mount, NFS requests timed out; $work/out/x.log" 1 \
	"fio: io_u error on file $work/mnt/f: Input/output error: write offset=0, buflen=4096"
fail "ETIMEDOUT" "fio randwrite failed (exit 1; ETIMEDOUT; " 1 \
	"fio: pid=7, err=110/file:io_u.c:1876, func=io_u error, error=Connection timed out"
fail "ESTALE" "fio randwrite failed (exit 1; ESTALE; " 1 \
	"fio: pid=7, err=116/file:filesetup.c:805, func=open(), error=Stale file handle"
# A stat that fails as statfs does on a server that does not answer
cat >"$work/bin/stat" <<'EOF'
#!/bin/sh
echo "stat: cannot read file system information: Input/output error" >&2
exit 1
EOF
chmod +x "$work/bin/stat"
fail "no error number, the export not answering" \
	"fio randwrite failed (exit 1; the export does not answer (statfs of $work/mnt failed or took over 20 s); $work/out/x.log): the server may have gone away" \
	1 "fio: terminating on signal 15" '' "${fake[@]}"
rm "$work/bin/stat"
fail "EACCES, the export answering: another I/O error, not a lost server" \
	"fio randwrite failed (exit 1, EACCES, err=13; $work/out/x.log: fio: pid=7, err=13/file:filesetup.c:805, func=open(), error=Permission denied): an error of the export or of fio, not a lost server (it still answers)" \
	1 "fio: pid=7, err=13/file:filesetup.c:805, func=open(), error=Permission denied"
fail "an unknown error number" "fio randwrite failed (exit 1, err=75; " 1 \
	"fio: pid=7, err=75/file:io_u.c:1876, func=io_u error, error=Value too large for defined data type"
fail "no error at all, the export answering" \
	"fio randwrite failed (exit 1; $work/out/x.log): an error of the export or of fio, not a lost server" \
	1 "fio: unknown option --nonsense"

# A real fio, the bench's own run, filling a 64 MiB tmpfs (O_DIRECT on
# tmpfs needs Linux 6.6)
if [ "$can_mount" = 1 ] && command -v fio >/dev/null &&
	dd if=/dev/zero of="$tmpfs/direct" bs=4k count=1 oflag=direct 2>/dev/null; then
	rm -f "$tmpfs/direct"
	echo "server:/export $tmpfs tmpfs rw 0 0" >"$work/proc/mounts"
	bench_fn "fio error: a real fio randwrite of 100 MiB on a 64 MiB tmpfs: the export is full, --size 28" 1 \
		"fio randwrite stopped: the export is full (ENOSPC: no space left on the server's file system; $work/out/full.log: fio: io_u error on file $tmpfs/rpcrdma-inline-bench.w: No space left on device" \
		"mnt=$tmpfs size_mib=100 runtime=5 seed_opt=(); run_fio full randwrite $tmpfs/rpcrdma-inline-bench.w"
	expect "fio error: ... and says which --size fits: $(grep -o -- '--size [0-9]* or less' "$work/fn.out" || true)" \
		grep -qF -- "has 0 MiB free now: run with --size 28 or less" "$work/fn.out"
else
	tap_ok "fio error: a real fio on a full tmpfs # skip: not root, no fio, or no O_DIRECT on tmpfs"
fi
tap_end
