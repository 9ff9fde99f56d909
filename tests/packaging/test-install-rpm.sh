#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# scripts/install.sh on an RPM system (rpm, no dpkg): it hands over to
# scripts/install-rpm.sh, which is run here on the host with stand-ins on
# PATH for what only an RPM system has or what would change this host
# (id, uname, rpm -qf, dnf, dkms, modinfo, modprobe; a sysfs of its own),
# and the real rpmbuild, patch and tar. It must refuse, before dnf
# installs anything, a system with no package manager, a kernel whose
# source it cannot find (naming the source RPM's commands), and a source
# that no hook variant fits; given KSRC (Debian 12's 6.1 source, from the
# guest images' package cache: skipped when there is none) it must ask dnf
# for the kernel's headers, build the rpcrdma-inline-dkms RPM from the
# tree and have dnf install it, with KSRC passed on to its %post, then
# load the module and say how DKMS finds the source of a new kernel.
#
# usage: test-install-rpm.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

version=$(pkg_version)
kver=6.1.0-57-amd64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg_export "$work/tree"
bin=$work/bin sys=$work/sys log=$work/calls
mkdir -p "$bin" "$sys"

stub() { # NAME BODY: a command on the stand-ins' PATH
	printf '#!/bin/bash\n%s\n' "$2" >"$bin/$1"
	chmod +x "$bin/$1"
}
stub id 'echo 0'
stub uname "echo $kver"
stub modinfo "echo /lib/modules/$kver/kernel/drivers/infiniband/core/ib_core.ko"
# rpm -qf names the kernel's package; anything else is the real rpm
stub rpm "[ \"\${1:-}\" = -qf ] && { echo kernel-core-6.1.0-57.x86_64; exit 0; }; exec /usr/bin/rpm \"\$@\""
# dnf records its calls; installing our RPM stands for its %post, which
# builds with DKMS when it is given KSRC
stub dnf "echo \"dnf \$* KSRC=\${KSRC:-}\" >>$log
for a; do case \$a in *.rpm) cp \"\$a\" $work/installed.rpm; [ -z \"\${KSRC:-}\" ] || : >$work/dkms-installed ;; esac; done"
stub dkms "echo \"dkms \$*\" >>$log
case \$1 in
status) [ ! -e $work/dkms-installed ] || echo \"rpcrdma-inline/$version, $kver, x86_64: installed\" ;;
install) : >$work/dkms-installed ;;
esac"
stub modprobe "echo \"modprobe \$*\" >>$log
if [ \"\$*\" = rpcrdma ]; then mkdir -p $sys/module/rpcrdma/parameters; echo 256 >$sys/module/rpcrdma/parameters/inline_size; fi"

# run NAME WANT-RC MESSAGE [ENV...]: install-rpm.sh exits WANT-RC, saying
# MESSAGE; its output in $work/out
run() {
	local name=$1 want=$2 msg=$3 rc=0
	shift 3
	: >"$log"
	rm -f "$work/installed.rpm" "$work/dkms-installed"
	env PATH="$bin:/usr/bin:/bin" RPCRDMA_INLINE_SYSFS="$sys" "$@" \
		"$work/tree/scripts/install-rpm.sh" >"$work/out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$msg" "$work/out"; then
		tap_ok "$name"
	else
		tap_fail "$name (exit $rc, wanted $want, saying: $msg)"
		sed 's/^/#   | /' "$work/out" | tail -n 15
	fi
}

# install.sh hands over where there is rpm and no dpkg: a PATH of the
# stand-ins and the few commands it needs before that
lim=$work/limited
mkdir -p "$lim"
for c in bash env sed dirname cat; do
	ln -s "$(command -v "$c")" "$lim/$c"
done
for c in id uname rpm; do
	ln -s "$bin/$c" "$lim/$c"
done
rc=0
env PATH="$lim" "$work/tree/scripts/install.sh" >"$work/out" 2>&1 || rc=$?
expect_grep "install.sh with rpm and no dpkg runs install-rpm.sh (here: no dnf, yum or zypper, exit $rc)" \
	"no dnf, yum or zypper here: build the package by hand, rpmbuild -bb" "$(cat "$work/out")"

# No source: /lib/modules/KVER/source has none here, and KSRC is not set
run "no kernel source and no KSRC: refused, naming the source RPM's commands" 1 \
	"dnf download --source kernel-core-6.1.0-57.x86_64"
expect_eq "... and dnf was not run" "" "$(cat "$log")"

srcdeb=$(find /var/cache/rpcrdma-inline/debs -name 'linux-source-6.1_*_all.deb' 2>/dev/null | sort | tail -n 1)
if [ -z "$srcdeb" ]; then
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP a source no hook fits, and the install itself: no linux-source-6.1 in /var/cache/rpcrdma-inline/debs (the guest images' package cache)"
	tap_end
	exit 0
fi
# The source as a tree of what the build reads
dpkg-deb --fsys-tarfile "$srcdeb" | tar -x -O --wildcards '*usr/src/linux-source-6.1.tar.xz' |
	tar -xJ -C "$work" linux-source-6.1/Makefile linux-source-6.1/net/sunrpc/xprtrdma \
		linux-source-6.1/include/linux/sunrpc/svc_rdma.h
src=$work/linux-source-6.1
cp -a "$src" "$work/bad"
sed -i 's/ret = ib_post_send(ep->re_id->qp, post_wr, NULL);/ret = ib_post_send(ep->re_id->qp, wr, NULL);/' \
	"$work/bad/net/sunrpc/xprtrdma/frwr_ops.c"
run "a source no variant of hook 07 fits: refused before anything is installed" 1 \
	"does not take the hooks" KSRC="$work/bad"
expect_eq "... and dnf was not run" "" "$(cat "$log")"

run "KSRC given: installed and loaded" 0 "rpcrdma-inline $version loaded: inline_size=256" KSRC="$src"
calls=$(cat "$log")
expect_grep "dnf installs the running kernel's headers" "^dnf install -y kernel-devel-$kver " "$calls"
expect_grep "dnf installs the RPM it built, with KSRC passed on to its %post" \
	"^dnf install -y .*/$BIN_PKG-$version-[^ ]*\.noarch\.rpm KSRC=$src\$" "$calls"
if [ -f "$work/installed.rpm" ]; then
	files=$(rpm -qlp "$work/installed.rpm" 2>/dev/null)
	for f in /usr/sbin/rpcrdma-inline /etc/modprobe.d/rpcrdma-inline.conf \
		"/usr/src/$NAME-$version/dkms.conf" "/usr/src/$NAME-$version/scripts/prepare-source.sh"; do
		expect_grep "the RPM holds $f" "^$f\$" "$files"
	done
else
	tap_fail "dnf was given no RPM"
fi
expect_grep "rpcrdma is loaded after DKMS installed the module" "^modprobe rpcrdma\$" "$calls"
expect_grep "it says how DKMS finds a new kernel's source" "add KSRC=/path/to/it" "$(cat "$work/out")"
tap_end
