#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# scripts/install.sh on an RPM system (rpm, no dpkg): it hands over to
# scripts/install-rpm.sh, which is run here on the host with stand-ins on
# PATH for what only an RPM system has or what would change this host
# (id, uname, rpm -qf, dnf, dkms, modinfo, modprobe; a sysfs and a
# /lib/modules of its own; no dpkg on PATH), and the real rpmbuild, patch
# and tar. The kernel is RHEL 9.6's, its source the build kit of
# ../shared/kernels (skipped, saying so, when there is none): nothing of
# the host's own kernels or sources is read. It must refuse, before dnf
# installs anything, a system with no package manager, a kernel whose
# source it cannot find (naming the source RPM's commands), a
# kernel-devel tree (xprtrdma's Makefile alone: what is missing and how
# to get it), a source RPM tarball of another release (both named), and a
# source that no hook variant fits; given the source RPM's
# linux-RELEASE.tar.xz where rpm -i puts it, or KSRC, it must ask dnf for
# the kernel's headers, build the rpcrdma-inline-dkms RPM from the tree
# and have dnf install it, with KSRC passed on to its %post, then load the
# module and say how DKMS finds the source of a new kernel.
#
# usage: test-install-rpm.sh
# env:   RPCRDMA_INLINE_KITS   the kits directory (default: the repo's
#                              ../shared/kernels)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

version=$(pkg_version)
kit=rhel-9.6-5.14.0-570.32.1.el9_6.x86_64
kver=5.14.0-570.32.1.el9_6.x86_64
rel=5.14.0-570.32.1.el9_6
kits_dir=${RPCRDMA_INLINE_KITS:-$REPO/../shared/kernels}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg_export "$work/tree"
bin=$work/bin sys=$work/sys log=$work/calls mods=$work/modules
mkdir -p "$bin" "$sys" "$mods/$kver" "$work/nodpkg" "$work/rpmbuild"
# The host's commands but dpkg's: an RPM system
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for c in "$d"/*; do
		n=${c##*/}
		case $n in dpkg*) continue ;; esac
		[ -e "$work/nodpkg/$n" ] || ln -s "$c" "$work/nodpkg/$n"
	done
done

stub() { # NAME BODY: a command on the stand-ins' PATH
	printf '#!/bin/bash\n%s\n' "$2" >"$bin/$1"
	chmod +x "$bin/$1"
}
stub id 'echo 0'
stub uname "echo $kver"
stub modinfo "echo /lib/modules/$kver/kernel/drivers/infiniband/core/ib_core.ko"
# rpm -qf names the kernel's package; anything else is the real rpm
stub rpm "[ \"\${1:-}\" = -qf ] && { echo kernel-core-$kver; exit 0; }; exec /usr/bin/rpm \"\$@\""
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
	env PATH="$bin:$work/nodpkg" RPCRDMA_INLINE_SYSFS="$sys" RPCRDMA_INLINE_MODULES_ROOT="$mods" \
		RPCRDMA_INLINE_RPM_SOURCES="$work/rpmbuild" "$@" \
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

# No source: the modules directory has none here, and KSRC is not set
run "no kernel source and no KSRC: refused, naming the source RPM's commands" 1 \
	"dnf download --source kernel-core-$kver && rpm -i kernel-$rel.src.rpm"
expect_grep "... and how to enable the source repository on RHEL, AlmaLinux and Rocky" \
	"subscription-manager repos --enable rhel-9-for-x86_64-baseos-source-rpms.*dnf config-manager --set-enabled baseos-source" \
	"$(cat "$work/out")"
expect_eq "... and dnf was not run" "" "$(cat "$log")"

if [ ! -f "$kits_dir/$kit.tar.xz" ]; then
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP not run: a kernel-devel tree, a source no hook fits, the source RPM's tarball and the install itself: no $kits_dir/$kit.tar.xz"
	tap_end
	exit 0
fi
tar -xJf "$kits_dir/$kit.tar.xz" -C "$work"
src=$work/$kit

# kernel-devel's layout: /lib/modules/KVER/build and source a tree whose
# net/sunrpc/xprtrdma/ holds only its Makefile
cp -a "$src" "$work/devel"
find "$work/devel/net/sunrpc/xprtrdma" -type f ! -name Makefile -delete
ln -s "$work/devel" "$mods/$kver/build"
ln -s build "$mods/$kver/source"
run "a kernel-devel tree (xprtrdma's Makefile alone): refused, saying what is missing and how to get it" 1 \
	"has net/sunrpc/xprtrdma/ without its sources"
expect_grep "... naming the source RPM's commands" "rpm -i kernel-$rel\.src\.rpm" "$(cat "$work/out")"
expect_eq "... and dnf was not run" "" "$(cat "$log")"
rm "$mods/$kver/source" "$mods/$kver/build"

# The source RPM's tarball, as rpm -i of it leaves it (the files the
# build reads, under linux-RELEASE/), and one of another release
tar -cJf "$work/rpmbuild/linux-$rel.tar.xz" -C "$work" --transform "s,^$kit,linux-$rel," \
	"$kit/Makefile" "$kit/Makefile.rhelver" "$kit/net/sunrpc/xprtrdma" "$kit/include/linux/sunrpc/svc_rdma.h"
cp "$work/rpmbuild/linux-$rel.tar.xz" "$work/linux-5.14.0-503.40.1.el9_5.tar.xz"
run "KSRC a source RPM tarball of another release: refused, naming both" 1 \
	"linux-5.14.0-503.40.1.el9_5.tar.xz is the source of kernel 5.14.0-503.40.1.el9_5, not of $kver" \
	KSRC="$work/linux-5.14.0-503.40.1.el9_5.tar.xz"
expect_eq "... and dnf was not run" "" "$(cat "$log")"

cp -a "$src" "$work/bad"
sed -i 's/ret = ib_post_send(ep->re_id->qp, post_wr, NULL);/ret = ib_post_send(ep->re_id->qp, wr, NULL);/' \
	"$work/bad/net/sunrpc/xprtrdma/frwr_ops.c"
run "a source no variant of hook 07 fits: refused before anything is installed" 1 \
	"does not take the hooks" KSRC="$work/bad"
expect_eq "... and dnf was not run" "" "$(cat "$log")"

run "the source RPM's tarball in ~/rpmbuild/SOURCES, no KSRC: installed and loaded" 0 \
	"rpcrdma-inline $version loaded: inline_size=256"
expect_grep "dnf installs the RPM it built, with that tarball as KSRC for its %post" \
	"^dnf install -y .*/$BIN_PKG-$version-[^ ]*\.noarch\.rpm KSRC=$work/rpmbuild/linux-$rel.tar.xz\$" "$(cat "$log")"

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
