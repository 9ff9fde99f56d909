#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The admin command, scripts/rpcrdma-inline, without a kernel module: it
# runs against a fake sysfs, debugfs, procfs and module tree (its
# RPCRDMA_INLINE_* variables) with stub modinfo, rmmod, modprobe, insmod
# and mount first in PATH, and its output and exit codes are checked for:
# not loaded, stock loaded, ours loaded with two connections, debugfs not
# mounted, revert refused (rdma mount, nfsd rdma listener, refcount) and
# done, errors, usage; and that the man page documents what it does.
#
# usage: test-admin.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

cmd="$REPO/scripts/rpcrdma-inline"
man="$REPO/scripts/rpcrdma-inline.8"
version=$(pkg_version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
F="$work/root"
KVER=6.1.0-57-amd64
OURS_KO=updates/dkms/rpcrdma.ko
STOCK_KO=kernel/net/sunrpc/xprtrdma/rpcrdma.ko.xz
CONN1="server peer=192.0.2.1:40000 device=rxe0 asked=256 granted=256 max=256 attempts=1 inline=123 byref=45"
CONN2="client peer=192.0.2.1:20049 device=rxe0 asked=256 granted=512 max=256 attempts=2 inline=77 byref=8"
DEV1="rxe0 driver=rxe policy=on behind_reg=on want=256 accepted=256 granted=256 audited=6.1 why=copies inline data from sge.addr; up to 512 bytes"

# The stubs: each logs its arguments to $F/calls
stub() {
	{
		# shellcheck disable=SC2016 # the stub's own $* and $FAKE
		printf '#!/bin/bash\nset -eu\necho "%s $*" >>"$FAKE/calls"\n' "$1"
		cat
	} >"$F/bin/$1"
	chmod +x "$F/bin/$1"
}

# A fresh fake root: both module files installed, debugfs mounted, nothing
# loaded, nothing mounted over RDMA
new_root() {
	rm -rf "$F"
	mkdir -p "$F/sys/module/sunrpc" "$F/debug" "$F/proc/self" "$F/proc/fs/nfsd" \
		"$F/modules/$(dirname "$OURS_KO")" "$F/modules/$(dirname "$STOCK_KO")" "$F/bin"
	printf 'sysfs /sys sysfs rw 0 0\ndebugfs %s debugfs rw 0 0\n' "$F/debug" >"$F/proc/mounts"
	printf 'device sysfs mounted on /sys with fstype sysfs\n' >"$F/proc/self/mountstats"
	printf 'tcp 2049\n' >"$F/proc/fs/nfsd/portlist"
	: >"$F/modules/$OURS_KO"
	printf 'srcversion=OURS0123456789ABCDEF0123\nversion=%s\nrpcrdma_inline=%s\ndepends=sunrpc,ib_core,rdma_cm\nrpcrdma_inline_hooks=6.1:01=6.1\nrpcrdma_inline_tested=tested\n' \
		"$version" "$version" >"$F/modules/$OURS_KO.modinfo"
	: >"$F/modules/$STOCK_KO"
	printf 'srcversion=STOCK456789ABCDEF01234567\ndepends=sunrpc,ib_core,rdma_cm\n' \
		>"$F/modules/$STOCK_KO.modinfo"
	: >"$F/calls"
	stub modinfo <<'EOF'
[ "$1" = -F ] || exit 1
[ -f "$3" ] || { echo "modinfo: ERROR: Module $3 not found." >&2; exit 1; }
sed -n "s/^$2=//p" "$3.modinfo"
EOF
	stub rmmod <<'EOF'
[ -z "${FAKE_RMMOD_FAIL:-}" ] || { echo "rmmod: ERROR: Module rpcrdma is in use" >&2; exit 1; }
rm -rf "$FAKE/sys/module/$1"
EOF
	stub modprobe <<'EOF'
exit 0
EOF
	stub insmod <<'EOF'
[ -z "${FAKE_INSMOD_FAIL:-}" ] || { echo "insmod: ERROR: could not insert module $1: Invalid module format" >&2; exit 1; }
m="$FAKE/sys/module/rpcrdma"
mkdir -p "$m/holders"
echo live >"$m/initstate"
echo 0 >"$m/refcnt"
sed -n 's/^srcversion=//p' "$1.modinfo" >"$m/srcversion"
EOF
	# report's sources: DKMS, the package database, the kernel log
	stub dkms <<'EOF'
[ "$*" = "status rpcrdma-inline" ] || exit 1
echo "rpcrdma-inline/0.1.0, 6.1.0-57-amd64, x86_64: installed"
EOF
	stub dpkg-query <<'EOF'
for p in "$@"; do
	case $p in
	linux-image-6.1.0-57-amd64) echo "ii  linux-image-6.1.0-57-amd64 6.1.192-1" ;;
	rpcrdma-inline-dkms) echo "ii  rpcrdma-inline-dkms 0.1.0-1" ;;
	esac
done
EOF
	stub dmesg <<'EOF'
printf '[    1.0] e1000: eth0 up\n[    2.0] rpcrdma: inline_size=4096 refused: more than 1024\n[    3.0] svcrdma: using rxe0\n'
EOF
	mkdir -p "$F/run" "$F/dkms" "$F/modroot/$KVER/kernel" "$F/modroot/6.12.57+deb13-amd64/build"
	printf 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n' >"$F/os-release"
	stub mount <<'EOF'
[ "$*" = "-t debugfs debugfs $FAKE/debug" ] || exit 32
echo "debugfs $FAKE/debug debugfs rw 0 0" >>"$FAKE/proc/mounts"
[ ! -d "$FAKE/debugfs-content" ] || cp -a "$FAKE/debugfs-content/." "$FAKE/debug/"
EOF
}

# load_ours|load_stock [nosrcversion]
load_ours() {
	local m="$F/sys/module/rpcrdma"
	mkdir -p "$m/parameters" "$m/holders"
	echo live >"$m/initstate"
	echo 0 >"$m/refcnt"
	echo "$version" >"$m/version"
	[ "${1:-}" = nosrcversion ] || echo OURS0123456789ABCDEF0123 >"$m/srcversion"
	echo 256 >"$m/parameters/inline_size"
	echo Y >"$m/parameters/server_inline"
	echo Y >"$m/parameters/client_inline"
}
load_stock() {
	local m="$F/sys/module/rpcrdma"
	mkdir -p "$m/holders"
	echo live >"$m/initstate"
	echo 0 >"$m/refcnt"
	[ "${1:-}" = nosrcversion ] || echo STOCK456789ABCDEF01234567 >"$m/srcversion"
}
# debugfs_content DIR: the module's debugfs files, two connections
debugfs_content() {
	mkdir -p "$1/rpcrdma_inline"
	printf '%s\n%s\n' "$CONN1" "$CONN2" >"$1/rpcrdma_inline/connections"
	printf '%s\n' "$DEV1" >"$1/rpcrdma_inline/devices"
}

# run ARGS...: sets out, err, rc
run() {
	rc=0
	out=$(env FAKE="$F" PATH="$F/bin:$PATH" \
		RPCRDMA_INLINE_SYSFS="$F/sys" RPCRDMA_INLINE_DEBUGFS="$F/debug" \
		RPCRDMA_INLINE_PROC="$F/proc" RPCRDMA_INLINE_KVER="$KVER" \
		RPCRDMA_INLINE_MODULES_DIR="$F/modules" RPCRDMA_INLINE_DKMS_TREE="$F/dkms" \
		RPCRDMA_INLINE_RUN="$F/run" RPCRDMA_INLINE_OS_RELEASE="$F/os-release" \
		RPCRDMA_INLINE_MODULES_ROOT="$F/modroot" \
		"$cmd" "$@" 2>"$work/err") || rc=$?
	err=$(cat "$work/err")
}
# val KEY: the value(s) of KEY in $out
val() {
	sed -n "s/^$1: //p" <<<"$out"
}
# The stub calls but modinfo's, '|'-separated
calls() {
	grep -vE '^modinfo ' "$F/calls" | paste -sd '|' || true
}

# --- not loaded
new_root
run status
expect_eq "not loaded: status exits 6 (not loaded)" 6 "$rc"
expect_eq "not loaded: module: not-loaded" not-loaded "$(val module)"
expect_eq "not loaded: version: -" - "$(val version)"
expect_eq "not loaded: installed-ours is the updates/dkms file" "$F/modules/$OURS_KO" "$(val installed-ours)"
expect_eq "not loaded: installed-ours-version: $version" "$version" "$(val installed-ours-version)"
expect_eq "not loaded: installed-stock is the kernel/ file" "$F/modules/$STOCK_KO" "$(val installed-stock)"
expect_eq "not loaded: kernel: $KVER" "$KVER" "$(val kernel)"
expect_eq "not loaded: no parameter lines" "" "$(grep '^parameter\.' <<<"$out" || true)"
run revert
expect_eq "not loaded: revert exits 4 (nothing to do)" 4 "$rc"
expect_eq "not loaded: revert says result: nothing-to-do" nothing-to-do "$(val result)"
expect_eq "not loaded: revert ran no rmmod, modprobe or insmod" "" "$(calls)"

# --- stock loaded, told by srcversion
new_root
load_stock
run status
expect_eq "stock: status exits 5 (stock loaded)" 5 "$rc"
expect_eq "stock: module: stock" stock "$(val module)"
expect_eq "stock: told-by: srcversion" srcversion "$(val told-by)"
expect_eq "stock: version: -" - "$(val version)"
expect_eq "stock: srcversion is the loaded one" STOCK456789ABCDEF01234567 "$(val srcversion)"
expect_eq "stock: no parameter lines, no connections" "|-|-" \
	"$(grep '^parameter\.' <<<"$out" || true)|$(val debugfs)|$(val connections)"
expect_grep "stock: a note says ours is installed but not loaded" \
	'^note: rpcrdma-inline is installed .* but not loaded' "$out"
run revert
expect_eq "stock: revert exits 4 (nothing to do)" 4 "$rc"
expect_eq "stock: revert says module: stock" stock "$(val module)"
expect_eq "stock: revert ran nothing" "" "$(calls)"

# --- stock loaded on a kernel without CONFIG_MODVERSIONS (7.3)
new_root
load_stock nosrcversion
run status
expect_eq "stock, no srcversion: module: stock, told-by: no-version-file" \
	"stock no-version-file" "$(val module) $(val told-by)"

# --- ours loaded, two connections
new_root
load_ours
debugfs_content "$F/debug"
run status
expect_eq "ours: status exits 0" 0 "$rc"
expect_eq "ours: module: ours" ours "$(val module)"
expect_eq "ours: told-by: srcversion (matches the updates/dkms file)" srcversion "$(val told-by)"
expect_eq "ours: version: $version" "$version" "$(val version)"
expect_eq "ours: parameter.inline_size: 256" 256 "$(val parameter.inline_size)"
expect_eq "ours: parameter.server_inline: Y, parameter.client_inline: Y" "Y Y" \
	"$(val parameter.server_inline) $(val parameter.client_inline)"
expect_eq "ours: debugfs: ok" ok "$(val debugfs)"
expect_eq "ours: connections: 2" 2 "$(val connections)"
expect_eq "ours: both connection lines, as debugfs has them" \
	"$CONN1"$'\n'"$CONN2" "$(val connection)"
expect_grep "ours: the client line shows granted=512 and its counts" \
	'^connection: client .* granted=512 max=256 attempts=2 inline=77 byref=8$' "$out"
expect_eq "ours: device: in key=value form, the reason quoted" \
	"name=rxe0 driver=rxe policy=on behind_reg=on want=256 accepted=256 granted=256 audited=6.1 why=\"copies inline data from sge.addr; up to 512 bytes\"" \
	"$(val device)"
expect_eq "ours: every output line is 'key: value'" "" \
	"$(grep -vE '^[a-z][a-z0-9_.-]*: ' <<<"$out" || true)"
expect_eq "ours: status ran no rmmod, insmod or mount" "" \
	"$(calls)"

# --- ours on a kernel without CONFIG_MODVERSIONS: told by the version file
new_root
load_ours nosrcversion
debugfs_content "$F/debug"
run status
expect_eq "ours, no srcversion: module: ours, told-by: version-file; tested: of the installed file of its version" \
	"ours version-file tested" "$(val module) $(val told-by) $(val tested)"
# ... and rebuilt since it was loaded: srcversion matches neither file
echo OLDBUILD0000000000000000 >"$F/sys/module/rpcrdma/srcversion"
run status
expect_eq "ours, rebuilt since loaded: module: ours, told-by: version-file" \
	"ours version-file" "$(val module) $(val told-by)"
expect_grep "ours, rebuilt since loaded: a note says the loaded module is not the installed file" \
	'^note: the loaded module is not the installed' "$out"
# ... and a module that is neither
rm "$F/sys/module/rpcrdma/version" "$F/sys/module/rpcrdma/parameters/inline_size"
run status
expect_eq "srcversion of neither file and no version file: module: unknown" unknown "$(val module)"

# --- ours loaded, debugfs not mounted
new_root
load_ours
printf 'sysfs /sys sysfs rw 0 0\n' >"$F/proc/mounts"
debugfs_content "$F/debugfs-content"
run status
expect_eq "debugfs not mounted: status exits 0" 0 "$rc"
expect_eq "debugfs not mounted: debugfs: not-mounted, connections: -" "not-mounted -" \
	"$(val debugfs) $(val connections)"
expect_grep "debugfs not mounted: a note says so and names --mount-debugfs" \
	'^note: debugfs is not mounted at .*--mount-debugfs' "$out"
expect_eq "debugfs not mounted: status does not mount it" "" "$(grep '^mount ' "$F/calls" || true)"
run -p status
expect_eq "--porcelain: no note lines" "" "$(val note)"
expect_eq "--porcelain: still debugfs: not-mounted" not-mounted "$(val debugfs)"
run status --mount-debugfs
expect_eq "--mount-debugfs: mounts debugfs at the debugfs path" "mount -t debugfs debugfs $F/debug" \
	"$(grep '^mount ' "$F/calls" || true)"
expect_eq "--mount-debugfs: then shows debugfs: ok, connections: 2" "ok 2" \
	"$(val debugfs) $(val connections)"

# --- ours loaded, debugfs mounted but without our directory
new_root
load_ours
run status
expect_eq "debugfs without rpcrdma_inline/: debugfs: absent, connections: -" "absent -" \
	"$(val debugfs) $(val connections)"

# --- revert refused: an NFS mount over RDMA (from mountstats)
new_root
load_ours
echo 1 >"$F/sys/module/rpcrdma/refcnt"
cat >>"$F/proc/self/mountstats" <<'EOF'
device 192.0.2.1:/export mounted on /mnt/rdma with fstype nfs statvers=1.1
	opts:	rw,vers=3,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,proto=rdma,port=20049,timeo=600
	age:	42
device 192.0.2.1:/other mounted on /mnt/tcp with fstype nfs4 statvers=1.1
	opts:	rw,vers=4.1,rsize=1048576,proto=tcp,port=0
	age:	42
EOF
run revert
expect_eq "rdma mount: revert exits 3 (in use)" 3 "$rc"
expect_eq "rdma mount: result: refused" refused "$(val result)"
expect_grep "rdma mount: held-by names /mnt/rdma and its export" \
	'^held-by: mount /mnt/rdma \(192\.0\.2\.1:/export\) proto=rdma$' "$out"
expect_eq "rdma mount: the TCP mount is not named" "" "$(grep '/mnt/tcp' <<<"$out" || true)"
expect_grep "rdma mount: held-by names the refcount" '^held-by: refcnt 1$' "$out"
expect_grep "rdma mount: stderr says what to do" 'unmount the NFS/RDMA mounts' "$err"
expect_eq "rdma mount: nothing was unloaded or loaded" "" "$(calls)"
expect "rdma mount: ours is still loaded" test -e "$F/sys/module/rpcrdma/version"

# --- revert refused: the same mount, seen in /proc/mounts only
new_root
load_ours
echo '192.0.2.1:/export /mnt/rdma6 nfs4 rw,relatime,vers=4.1,proto=rdma6,port=20049 0 0' >>"$F/proc/mounts"
run revert
expect_eq "rdma6 mount in /proc/mounts: revert exits 3" 3 "$rc"
expect_grep "rdma6 mount in /proc/mounts: held-by names /mnt/rdma6" \
	'^held-by: mount /mnt/rdma6 \(192\.0\.2\.1:/export\) proto=rdma$' "$out"

# --- revert refused: nfsd's rdma listener
new_root
load_ours
printf 'rdma 20049\ntcp 2049\n' >"$F/proc/fs/nfsd/portlist"
run revert
expect_eq "nfsd rdma listener: revert exits 3 (in use)" 3 "$rc"
expect_grep "nfsd rdma listener: held-by names 'rdma 20049' from portlist" \
	'^held-by: nfsd listener rdma 20049 \(.*/fs/nfsd/portlist\)$' "$out"
expect_eq "nfsd rdma listener: the tcp listener is not named" "" "$(grep 'tcp 2049' <<<"$out" || true)"
expect_eq "nfsd rdma listener: nothing was unloaded" "" "$(grep -E '^(rmmod|insmod) ' "$F/calls" || true)"

# --- revert refused: a reference nobody is named for
new_root
load_ours
echo 2 >"$F/sys/module/rpcrdma/refcnt"
run revert
expect_eq "refcnt 2: revert exits 3, held-by: refcnt 2" "3 refcnt 2" "$rc $(val held-by)"

# --- revert done
new_root
load_ours
run revert
expect_eq "revert: exits 0" 0 "$rc"
expect_eq "revert: result: reverted, module: stock" "reverted stock" "$(val result) $(val module)"
expect_eq "revert: told-by: srcversion (of the stock file)" srcversion "$(val told-by)"
expect_eq "revert: loaded-file is the stock kernel/ file" "$F/modules/$STOCK_KO" "$(val loaded-file)"
expect_eq "revert: rmmod rpcrdma, modprobe its deps, then insmod the stock file" \
	"rmmod rpcrdma|modprobe sunrpc|modprobe ib_core|modprobe rdma_cm|insmod $F/modules/$STOCK_KO" \
	"$(calls)"
expect_grep "revert: a note says it lasts until rpcrdma is loaded again, and how to make it permanent" \
	'^note: rpcrdma-inline stays installed.*dkms remove rpcrdma-inline/' "$out"
run status
expect_eq "after revert: status says module: stock" stock "$(val module)"

# --- revert errors
new_root
load_ours
run revert
: >"$F/calls"
load_ours
FAKE_INSMOD_FAIL=1 run revert
expect_eq "insmod fails: revert exits 1" 1 "$rc"
expect_grep "insmod fails: the error says rpcrdma is not loaded now" \
	'insmod .* failed: rpcrdma is not loaded now' "$err"
new_root
load_ours
FAKE_RMMOD_FAIL=1 run revert
expect_eq "rmmod fails: revert exits 1, nothing inserted" "1 " "$rc $(grep '^insmod ' "$F/calls" || true)"
new_root
load_ours
rm "$F/modules/$STOCK_KO"
run revert
expect_eq "no stock module file: revert exits 1 before unloading" "1 " "$rc $(grep '^rmmod ' "$F/calls" || true)"
expect_grep "no stock module file: says so" 'no stock module for kernel' "$err"
rm -rf "$F/sys/module"
run status
expect_eq "no sysfs: status exits 1" 1 "$rc"

# --- ours, and an empty inline_drivers: '-', as the man page says
new_root
load_ours
: >"$F/sys/module/rpcrdma/parameters/inline_drivers"
run status
expect_eq "empty inline_drivers: parameter.inline_drivers: -" - "$(val parameter.inline_drivers)"
expect_eq "ours, srcversion of the installed file: stale: no, why-not-ours: -, load-failure: -" \
	"no - -" "$(val stale) $(val why-not-ours) $(val load-failure)"

# --- JSON: status -j parses, and says what the lines say
jq_py() { # EXPR: EXPR of the JSON document $out, d, in python3
	python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$1" <<<"$out" 2>&1
}
new_root
load_ours
debugfs_content "$F/debug"
# A reason holding a quote, a backslash and a tab: escaped in JSON
printf '%s\n' 'rxe0 driver=rxe policy=on want=256 accepted=256 granted=256 why=a "b" \c	d' \
	>"$F/debug/rpcrdma_inline/devices"
run -j status
expect_eq "status -j: exits 0 (ours), as status" 0 "$rc"
expect_eq "status -j: one line of JSON" 1 "$(wc -l <<<"$out")"
expect_eq "status -j: parses; module ours, told_by srcversion" "ours srcversion" \
	"$(jq_py 'd["module"] + " " + d["told-by"]')"
expect_eq "status -j: connection is an array of 2 objects; the second's side client, granted 512 (a number)" \
	"2 client 512" "$(jq_py '"%d %s %r" % (len(d["connection"]), d["connection"][1]["side"], d["connection"][1]["granted"])')"
expect_eq "status -j: parameter.inline_size nests as parameter: {inline_size: 256}" 256 \
	"$(jq_py 'd["parameter"]["inline_size"]')"
expect_eq "status -j: the device's why keeps its quote, backslash and tab" \
	"'a \"b\" \\\\c\\td'" "$(jq_py 'repr(d["device"][0]["why"])')"
expect_eq "status -j: a '-' is null (load-failure)" None "$(jq_py 'd["load-failure"]')"
run --json status
expect_eq "status --json: the same document" 0 "$rc"
new_root
load_stock
run -j status
expect_eq "status -j, stock: exits 5, module stock" "5 stock" "$rc $(jq_py 'd["module"]')"
expect_eq "status -j, stock: the notes are an array of strings" "list str" \
	"$(jq_py 'type(d["note"]).__name__ + " " + type(d["note"][0]).__name__')"

# --- DKMS 3.2 keeps the stock module in original_module/ while ours is installed
new_root
orig="$F/dkms/rpcrdma-inline/original_module/$KVER/x86_64"
mkdir -p "$orig"
mv "$F/modules/$STOCK_KO" "$F/modules/$STOCK_KO.modinfo" "$orig/"
run status
expect_eq "dkms 3.2: installed-stock is original_module/KVER/ARCH's file" \
	"$orig/rpcrdma.ko.xz" "$(val installed-stock)"
load_ours
run revert
expect_eq "dkms 3.2: revert exits 0, and insmods the stock file from original_module/" \
	"0 rmmod rpcrdma|modprobe sunrpc|modprobe ib_core|modprobe rdma_cm|insmod $orig/rpcrdma.ko.xz" \
	"$rc $(calls)"
expect_eq "dkms 3.2: after revert, module: stock" stock "$(val module)"

# --- RPM systems: ours in extra/ (Fedora, RHEL) or updates/ (SUSE)
for rel in extra updates; do
	new_root
	mkdir -p "$F/modules/$rel"
	mv "$F/modules/$OURS_KO" "$F/modules/$rel/rpcrdma.ko.xz"
	mv "$F/modules/$OURS_KO.modinfo" "$F/modules/$rel/rpcrdma.ko.xz.modinfo"
	load_ours
	run status
	expect_eq "$rel/: installed-ours is $rel/rpcrdma.ko.xz, module: ours by srcversion" \
		"$F/modules/$rel/rpcrdma.ko.xz ours srcversion" \
		"$(val installed-ours) $(val module) $(val told-by)"
done
# ... and another vendor's rpcrdma in updates/dkms is not ours
new_root
grep -v '^rpcrdma_inline=' "$F/modules/$OURS_KO.modinfo" >"$F/other" && mv "$F/other" "$F/modules/$OURS_KO.modinfo"
run status
expect_eq "an rpcrdma in updates/dkms without rpcrdma_inline in modinfo: installed-ours: none" none "$(val installed-ours)"

# --- ours refused at load: the modprobe.d fallback loaded the stock module
new_root
load_stock
printf 'time=2026-12-07T01:02:03Z\nkernel=%s\nmodule=%s\nerror=Key was rejected by service\nfallback=stock\n' \
	"$KVER" "$F/modules/$OURS_KO" >"$F/run/load-failure"
run status
expect_eq "refused at load: status exits 7" 7 "$rc"
expect_eq "refused at load: module: stock" stock "$(val module)"
expect_eq "refused at load: why-not-ours says so, with the error" \
	"refused at load: Key was rejected by service" "$(val why-not-ours)"
expect_eq "refused at load: the load-failure record, key=value" \
	"time=2026-12-07T01:02:03Z kernel=$KVER module=$F/modules/$OURS_KO error=\"Key was rejected by service\" fallback=stock" \
	"$(val load-failure)"
expect_grep "refused at load: a note says 'ours refused at load: <error>; stock loaded'" \
	'^note: ours refused at load: Key was rejected by service; stock loaded$' "$out"
expect_grep "refused at load: ... and how to enroll the key" '^note: .*mokutil --import' "$out"
run -j status
expect_eq "refused at load: -j has load-failure.error and exits 7" "7 Key was rejected by service" \
	"$rc $(jq_py 'd["load-failure"]["error"]')"
sed -i 's/^kernel=.*/kernel=6.12.57+deb13-amd64/' "$F/run/load-failure"
run status
expect_eq "a load failure of another kernel: ignored (exit 5, load-failure: -)" "5 -" "$rc $(val load-failure)"
rm -rf "$F/run"
run status
expect_eq "no run directory: exit 5" 5 "$rc"

# --- stale: an older build of ours, or the stock module while ours is installed
new_root
load_ours
echo OLDBUILD0000000000000000 >"$F/sys/module/rpcrdma/srcversion"
echo 0.0.9 >"$F/sys/module/rpcrdma/version"
run status
expect_eq "older build loaded: exits 0, stale: older-build, tested: - (unknown)" "0 older-build -" \
	"$rc $(val stale) $(val tested)"
expect_grep "older build loaded: a note says what to run" \
	'^note: the loaded module is not the installed .*modprobe -r rpcrdma && modprobe rpcrdma$' "$out"
new_root
load_stock
run status
expect_eq "stock loaded, ours installed: stale: stock-loaded" stock-loaded "$(val stale)"
rm "$F/modules/$OURS_KO"
run status
expect_eq "stock loaded, ours not installed: stale: no, why-not-ours says so" \
	"no|not installed for kernel $KVER" "$(val stale)|$(val why-not-ours)"
expect_grep "ours not installed: a note names dkms status and make.log" '^note: rpcrdma-inline is not installed .*dkms status' "$out"

# --- report: everything, as key: value lines; --json the same
new_root
load_ours
debugfs_content "$F/debug"
printf '%s\n' 'rxe0 side=client max_send_wr=256 max_send_sge=8 max_rdma_ctxs=0 want=256 accepted=256 granted=256 uses=3' \
	>"$F/debug/rpcrdma_inline/memos"
printf '%s\n' 'client how=inline le64=0 le128=5 le256=72 le512=0 le1024=0 gt1024=0 counted=1' \
	'server how=inline le64=3 le128=120 le256=0 le512=0 le1024=0 gt1024=0 counted=1' >"$F/debug/rpcrdma_inline/sends"
ib="$F/sys/class/infiniband/rxe0"
mkdir -p "$ib/ports/1/gid_attrs/ndevs" "$F/sys/class/net/eth0"
echo "board-7" >"$ib/board_id"
echo "16.35.2000" >"$ib/fw_ver"
echo "0250:b6ff:fe12:3456" >"$ib/node_guid"
echo "Ethernet" >"$ib/ports/1/link_layer"
echo "4: ACTIVE" >"$ib/ports/1/state"
echo "100 Gb/sec (4X EDR)" >"$ib/ports/1/rate"
echo eth0 >"$ib/ports/1/gid_attrs/ndevs/0"
echo 9000 >"$F/sys/class/net/eth0/mtu"
echo '192.0.2.1:/export /mnt/rdma nfs rw,vers=3,rsize=1048576,wsize=1048576,proto=rdma,port=20049,addr=192.0.2.1 0 0' \
	>>"$F/proc/mounts"
printf 'processor\t: 0\nmodel name\t: Test CPU 3000\nprocessor\t: 1\nmodel name\t: Test CPU 3000\n' >"$F/proc/cpuinfo"
run report
expect_eq "report: exits 0" 0 "$rc"
expect_eq "report: every line is 'key: value'" "" "$(grep -vE '^[a-z][a-z0-9_.-]*: ' <<<"$out" || true)"
expect_eq "report: report: rpcrdma-inline $version" "rpcrdma-inline $version" "$(val report)"
expect_eq "report: module ours, version, srcversion; hooks and tested of the installed file it matches" \
	"ours $version OURS0123456789ABCDEF0123 6.1:01=6.1 tested" \
	"$(val module) $(val version) $(val srcversion) $(val hooks) $(val tested)"
expect_eq "report: distribution from os-release" "Debian GNU/Linux 12 (bookworm)" "$(val distribution)"
expect_eq "report: kernel-package" "linux-image-6.1.0-57-amd64 6.1.192-1" "$(val kernel-package)"
expect_eq "report: package" "rpcrdma-inline-dkms 0.1.0-1" "$(val package)"
expect_eq "report: cpu, cpus" "Test CPU 3000|2" "$(val cpu)|$(val cpus)"
expect_eq "report: ofed: no" no "$(val ofed)"
expect_eq "report: dkms: one line per kernel, from dkms status and for the kernel it does not know" \
	"kernel=$KVER version=0.1.0 arch=x86_64 state=\"installed\""$'\n'"kernel=6.12.57+deb13-amd64 version=- arch=- state=\"not built\"" \
	"$(val dkms)"
expect_eq "report: rdma-device: driver, verdict, board, firmware, GUID, link layer, rate, MTU, why" \
	"name=rxe0 port=1 driver=rxe driver_id=- policy=on behind_reg=on want=256 accepted=256 granted=256 audited=6.1 kernel_driver=- hca_type=\"\" board_id=\"board-7\" fw_ver=\"16.35.2000\" node_guid=0250:b6ff:fe12:3456 link_layer=\"Ethernet\" state=\"4: ACTIVE\" rate=\"100 Gb/sec (4X EDR)\" netdev=eth0 mtu=9000 why=\"copies inline data from sge.addr; up to 512 bytes\"" \
	"$(val rdma-device)"
expect_eq "report: the client connection with its mount, vers, rsize, wsize" \
	"$CONN2 mount=\"/mnt/rdma\" vers=3 rsize=1048576 wsize=1048576" "$(val connection | grep '^client')"
expect_eq "report: the server connection, served by nfsd" "$CONN1 served=nfsd" "$(val connection | grep '^server')"
expect_eq "report: memo lines, name=" "name=rxe0 side=client max_send_wr=256 max_send_sge=8 max_rdma_ctxs=0 want=256 accepted=256 granted=256 uses=3" \
	"$(val memo)"
expect_eq "report: sends: both sides' lines" 2 "$(val sends | grep -c 'how=inline')"
expect_eq "report: log: the rpcrdma and svcrdma lines of the kernel log, not the others" \
	"[    2.0] rpcrdma: inline_size=4096 refused: more than 1024"$'\n'"[    3.0] svcrdma: using rxe0" "$(val log)"
expect_eq "report: no export path (only the mount point)" "" "$(grep -F ':/export' <<<"$out" || true)"
report_text=$out
run -j report
expect_eq "report -j: exits 0, one line" "0 1" "$rc $(wc -l <<<"$out")"
expect_eq "report -j: parses, and has every key the text has" \
	"$(sed 's/: .*//; s/\..*//' <<<"$report_text" | awk '!s[$0]++' | LC_ALL=C sort | paste -sd ' ')" \
	"$(jq_py '" ".join(sorted(d.keys()))')"
expect_eq "report -j: rdma-device[0]: board_id, rate, mtu (a number)" "board-7|100 Gb/sec (4X EDR)|9000" \
	"$(jq_py '"%s|%s|%r" % (d["rdma-device"][0]["board_id"], d["rdma-device"][0]["rate"], d["rdma-device"][0]["mtu"])')"
expect_eq "report -j: connection[1] (client): mount /mnt/rdma, vers 3" "/mnt/rdma 3" \
	"$(jq_py '"%s %r" % (d["connection"][1]["mount"], d["connection"][1]["vers"])')"
expect_eq "report -j: dkms[1] state 'not built'" "not built" "$(jq_py 'd["dkms"][1]["state"]')"
# Not root: says what needs root
stub id <<'EOF'
echo 1000
EOF
run report
expect_eq "report as a user: root: no" no "$(val root)"
expect_grep "report as a user: a note says what needs root" '^note: not run as root: debugfs .* need root' "$out"
run -p report
expect_eq "report -p: usage error" 2 "$rc"
run -j revert
expect_eq "revert -j: usage error" 2 "$rc"

# --- --version, -p bench, and the bench report's --help
run --version
expect_eq "--version: rpcrdma-inline $version (dkms.conf's), exit 0" "0 rpcrdma-inline $version" "$rc $out"
run -p bench --help
expect_eq "-p bench --help: the bench's usage, exit 0" "0 usage: rpcrdma-inline bench [options] SERVER:/EXPORT" \
	"$rc $(head -n 1 <<<"$out")"
rc=0
out=$(python3 "$REPO/scripts/rpcrdma-inline-bench-report" --help 2>&1) || rc=$?
expect_eq "bench-report --help: exit 0, usage first, no traceback" "0 usage: rpcrdma-inline-bench-report [--help] DIR|" \
	"$rc $(head -n 1 <<<"$out")|$(grep Traceback <<<"$out" || true)"
rc=0
out=$(python3 "$REPO/scripts/rpcrdma-inline-bench-report" 2>&1) || rc=$?
expect_eq "bench-report without DIR: exit 2, usage, no traceback" "2 usage: rpcrdma-inline-bench-report [--help] DIR|" \
	"$rc $(head -n 1 <<<"$out")|$(grep Traceback <<<"$out" || true)"

# --- usage
run
expect_eq "no command: exit 2" 2 "$rc"
run frobnicate
expect_eq "unknown command: exit 2" 2 "$rc"
expect_grep "unknown command: says which" 'unknown command: frobnicate' "$err"
run --bogus status
expect_eq "unknown option: exit 2" 2 "$rc"
run status revert
expect_eq "two commands: exit 2" 2 "$rc"
run revert --mount-debugfs
expect_eq "revert --mount-debugfs: exit 2" 2 "$rc"
run --help
expect_eq "--help: exit 0" 0 "$rc"
expect_grep "--help: prints the usage on stdout" '^usage: rpcrdma-inline' "$out"
expect_grep "--help: lists the exit codes" '^Output is .* Exit codes: 0 done \(status: ours$' "$out"
expect_grep "--help: ... status' 5, 6, 7 and 8" '^6 no rpcrdma is loaded, 7 ours was refused at load' "$out"

# --- the man page
expect_eq "the man page renders without groff warnings" "" \
	"$(LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$man" 2>&1)"
sect() {
	awk -v s="$1" '/^\.SH / { on = ($0 == ".SH " s) ; next } on' "$man"
}
expect_grep "the man page's title names rpcrdma-inline $version (dkms.conf)" \
	"^\\.TH RPCRDMA-INLINE 8 \"[^\"]*\" \"rpcrdma-inline $version\"" "$(cat "$man")"
codes=$(sect "EXIT STATUS" | grep -A1 '^\.TP' | grep -E '^\.B [0-9]$' | sed 's/^\.B //' | paste -sd ' ')
expect_eq "the man page documents exit codes 0 to 8" "0 1 2 3 4 5 6 7 8" "$codes"
for s in status report revert --porcelain --json --version --mount-debugfs RPCRDMA_INLINE_SYSFS RPCRDMA_INLINE_DEBUGFS \
	RPCRDMA_INLINE_PROC RPCRDMA_INLINE_KVER RPCRDMA_INLINE_MODULES_DIR RPCRDMA_INLINE_DKMS_TREE \
	RPCRDMA_INLINE_RUN RPCRDMA_INLINE_OS_RELEASE RPCRDMA_INLINE_MODULES_ROOT original_module; do
	expect_grep "the man page covers $s" "${s//-/\\\\-}" "$(cat "$man")"
done
for k in module told-by version srcversion refcnt kernel installed-ours installed-ours-version \
	installed-stock hooks tested stale why-not-ours load-failure debugfs connections connection device \
	result held-by report root distribution kernel-package package cpu cpus cpu-governor ofed dkms \
	rdma-device memo sends log; do
	expect_grep "the man page documents the key $k" "^\\.B(R|I)? ${k//-/\\\\-}( |$)" "$(sect OUTPUT)"
done
expect_grep "the man page's FILES names the conffile" 'rpcrdma\\-inline\.conf' "$(sect FILES)"
expect_grep "the man page's NAME mentions bench" 'bench' "$(sect NAME)"
expect_grep "the man page's DESCRIPTION mentions bench" 'bench' "$(sect DESCRIPTION)"
for p in inline_size server_inline client_inline inline_drivers; do
	expect_grep "the man page documents the parameter $p" "^\\.B $p\$" "$(sect "MODULE PARAMETERS")"
done
expect_grep "the man page documents inline_drivers' alone" '^\.B alone$' "$(sect "MODULE PARAMETERS")"
for f in connections devices memos sends; do
	expect_grep "the man page's FILES names debugfs $f" "^\\.I /sys/kernel/debug/rpcrdma_inline/$f\$" "$(sect FILES)"
done
bench_codes=$(sect "EXIT STATUS" | grep -E '^\.B 1[0-9]{2}$' | sed 's/^\.B //' | paste -sd ' ')
expect_eq "the man page documents the bench's exit codes 130 143" "130 143" "$bench_codes"
tap_end
