#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Bad input stops the build with a message that says what to do, and
# builds nothing: missing headers, missing or mismatched source, a source
# of another series, a source whose shape no variant of a hook fits or
# two variants fit, a hook that no longer applies. And the source is found where other distributions put it (a
# linux-source package of Ubuntu's shape, a tree behind
# /lib/modules/KVER/source as after make modules_install or on SUSE). Runs in the bookworm image's userland (6.1 headers and source).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

img=$(image_dir bookworm)
kver=$(image_kver "$img" 6.1)
srcver=$(awk '$3 == "6.1" { print $2 }' "$img/kernels")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"

# in_chroot LOG CMD: run CMD (a bash script) in a throwaway chroot of the
# image with the tree at /src; its output goes to LOG. Returns its status.
in_chroot() {
	local log=$1
	shift
	"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work/src:/src" \
		--cwd /src -- bash -c "$1" >"$log" 2>&1
}

# refused NAME CMD PATTERN: CMD (in the chroot) failed, said PATTERN and
# built nothing. Its output stays in $work/last.log.
refused() {
	local name=$1 cmd=$2 pattern=$3 log="$work/last.log" rc=0
	in_chroot "$log" "$cmd" || rc=$?
	if [ "$rc" -ne 0 ] && grep -qF -- "$pattern" "$log" &&
		[ ! -e "$work/src/rpcrdma.ko" ]; then
		tap_ok "$name"
	else
		cat "$log"
		tap_fail "$name (exit $rc; expected: $pattern)"
	fi
	rm -rf "$work/src/build" "$work/src/rpcrdma.ko"
}

refused "missing headers: names the apt command" \
	"make KVER=6.1.0-999-amd64" \
	"apt-get install linux-headers-6.1.0-999-amd64"

refused "missing source: names the exact apt command" \
	"rm /usr/src/linux-source-6.1.tar.xz && make KVER=$kver" \
	"apt-get install linux-source-6.1=$srcver"

# A linux-source-6.1 of another version: dpkg-query reports one
# shellcheck disable=SC2016 # expanded in the chroot
stub='mkdir -p /tmp/stub && cat >/tmp/stub/dpkg-query <<"EOS"
#!/bin/sh
case "$*" in *linux-source-6.1) echo 6.1.170-3; exit 0 ;; esac
exec /usr/bin/dpkg-query "$@"
EOS
chmod +x /tmp/stub/dpkg-query && export PATH=/tmp/stub:$PATH'
refused "mismatched source: refused, naming the matching version" \
	"$stub && make KVER=$kver" \
	"Install the matching source with: apt-get install linux-source-6.1=$srcver"
rc=0
in_chroot "$work/override.log" \
	"$stub && RPCRDMA_INLINE_ALLOW_SOURCE_MISMATCH=1 scripts/find-kernel-source.sh $kver" || rc=$?
if [ "$rc" -eq 0 ] && grep -q "warning: building for $kver" "$work/override.log"; then
	tap_ok "mismatched source: accepted with a warning when the override is set"
else
	cat "$work/override.log"
	tap_fail "mismatched source: accepted with a warning when the override is set"
fi

# accepted NAME CMD PATTERN: CMD (in the chroot) succeeded and said PATTERN
accepted() {
	local name=$1 cmd=$2 pattern=$3 log="$work/last.log" rc=0
	in_chroot "$log" "$cmd" || rc=$?
	if [ "$rc" -eq 0 ] && grep -qF -- "$pattern" "$log"; then
		tap_ok "$name"
	else
		cat "$log"
		tap_fail "$name (exit $rc; expected: $pattern)"
	fi
	rm -rf "$work/src/build" "$work/src/rpcrdma.ko"
}

# Sources where other distributions put them. Ubuntu: linux-source-6.8.0,
# its tarball in /usr/src/linux-source-6.8.0/; here a package of that
# shape for 6.1, of the kernel's version, the Debian one purged
ubuntu_pkg="mkdir -p /opt && mv /usr/src/linux-source-6.1.tar.xz /opt/real.tar.xz &&
	dpkg --purge linux-source-6.1 >/dev/null && d=/tmp/pkg &&
	mkdir -p \$d/DEBIAN \$d/usr/src/linux-source-6.1.0 &&
	ln -s /opt/real.tar.xz \$d/usr/src/linux-source-6.1.0/linux-source-6.1.0.tar.xz &&
	printf 'Package: linux-source-6.1.0\nVersion: $srcver\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: source, named as Ubuntu does\n' >\$d/DEBIAN/control &&
	dpkg-deb --build \$d /tmp/ls.deb >/dev/null && dpkg -i /tmp/ls.deb >/dev/null"
accepted "a linux-source package of another name (Ubuntu's shape), of the kernel's version: found" \
	"$ubuntu_pkg && scripts/find-kernel-source.sh $kver" \
	"/usr/src/linux-source-6.1.0/linux-source-6.1.0.tar.xz"
refused "... of another version: refused, naming the apt command" \
	"$ubuntu_pkg && sed -i 's/^Version: .*/Version: 6.1.1-1/' /tmp/pkg/DEBIAN/control &&
	dpkg-deb --build /tmp/pkg /tmp/ls.deb >/dev/null && dpkg -i /tmp/ls.deb >/dev/null && make KVER=$kver" \
	"apt-get install linux-source-6.1=$srcver"

# A self-built kernel after make modules_install: its tree behind
# /lib/modules/KVER/source, with include/config/kernel.release; no
# linux-source package. The module is built from that tree.
tree="mkdir /tmp/k && tar -xf /usr/src/linux-source-6.1.tar.xz -C /tmp/k --strip-components=1 \
	linux-source-6.1/Makefile linux-source-6.1/net/sunrpc/xprtrdma linux-source-6.1/include/linux/sunrpc/svc_rdma.h &&
	mkdir -p /tmp/k/include/config && rm /usr/src/linux-source-6.1.tar.xz &&
	rm -f /lib/modules/$kver/source && ln -s /tmp/k /lib/modules/$kver/source"
accepted "a tree behind /lib/modules/KVER/source (self-built): found, and the module built from it" \
	"$tree && echo $kver >/tmp/k/include/config/kernel.release && scripts/find-kernel-source.sh $kver &&
	make KVER=$kver && test -f rpcrdma.ko" \
	"/tmp/k"
refused "a tree behind /lib/modules/KVER/source of another kernel: refused" \
	"$tree && echo 6.1.0-99-amd64 >/tmp/k/include/config/kernel.release && make KVER=$kver" \
	"/lib/modules/$kver/source is the source of kernel 6.1.0-99-amd64, not of $kver"
refused "... of another version, told by its Makefile: refused" \
	"$tree && make KVER=$kver" \
	"is Linux $(cut -d- -f1 <<<"$srcver"), not the 6.1.0 of kernel $kver"
# SUSE: kernel-source's tree (no kernel.release) behind source, the build
# directory (kernel-default-devel) with it behind build
accepted "SUSE's layout: the source tree, told by the build directory's kernel.release: found" \
	"mkdir -p /tmp/mods/$kver /tmp/obj/include/config /tmp/suse && tar -xf /usr/src/linux-source-6.1.tar.xz -C /tmp/suse \
	--strip-components=1 linux-source-6.1/Makefile linux-source-6.1/net/sunrpc/xprtrdma &&
	echo $kver >/tmp/obj/include/config/kernel.release &&
	ln -s /tmp/suse /tmp/mods/$kver/source && ln -s /tmp/obj /tmp/mods/$kver/build &&
	RPCRDMA_INLINE_MODULES_ROOT=/tmp/mods scripts/find-kernel-source.sh $kver" \
	"/tmp/suse"

refused "KSRC of another series: refused" \
	"make KVER=$kver KSRC=/usr/src/linux-source-6.12.tar.xz" \
	"is Linux 6.12, but kernel $kver is 6.1"

# Hooks chosen by what the source holds: 6.1's xprtrdma, altered so that
# a hook's variants no longer tell one shape
posing="mkdir /tmp/k && tar -xf /usr/src/linux-source-6.1.tar.xz -C /tmp/k --strip-components=1 \
	linux-source-6.1/Makefile linux-source-6.1/net/sunrpc/xprtrdma linux-source-6.1/include/linux/sunrpc/svc_rdma.h"
refused "a shape no variant fits (6.1 with 6.5's sc_page_count): refused, naming the hook and what each variant expects" \
	"$posing && sed -i 's/^\(\tint\t\t\tsc_cur_sge_no;\)$/\tint\t\t\tsc_page_count;\n\1/' /tmp/k/include/linux/sunrpc/svc_rdma.h &&
	grep -q sc_page_count /tmp/k/include/linux/sunrpc/svc_rdma.h &&
	KSRC=/tmp/k scripts/prepare-source.sh $kver build/x; rc=\$?; ls build/x; exit \$rc" \
	"no variant of hook 02-svc-struct fits this source"
expect "... it says what the 6.1 variant expected that the source does not meet" \
	grep -qF "6.1: no: it expects include/linux/sunrpc/svc_rdma.h lacks sc_page_count;" "$work/last.log"
expect "... and what the 6.12 variant expected" \
	grep -qF "6.12: no: it expects include/linux/sunrpc/svc_rdma.h has sc_wr_chain;" "$work/last.log"
if grep -qx linux "$work/last.log"; then
	tap_fail "... no hooked tree is left"
else
	tap_ok "... no hooked tree is left"
fi
refused "two variants fit (a copy of 05-xprt-struct/6.1 beside it): refused, naming both" \
	"cp src/hooks/05-xprt-struct/6.1.patch src/hooks/05-xprt-struct/6.1-copy.patch &&
	scripts/prepare-source.sh $kver build/x; rc=\$?; rm src/hooks/05-xprt-struct/6.1-copy.patch; exit \$rc" \
	"2 variants of hook 05-xprt-struct fit this source (6.1-copy 6.1), where one must"

# MLNX_OFED / DOCA-OFED hosts: their sources under /usr/src/ofa_kernel,
# or an ib_core that is not the kernel's own (here moved to updates/)
refused "an OFED host (/usr/src/ofa_kernel): refused, naming mlnx-nfsrdma" \
	"mkdir -p /usr/src/ofa_kernel/default && make KVER=$kver" \
	"Use OFED's own NFS over RDMA module (mlnx-nfsrdma) instead"
refused "an OFED host (ib_core outside kernel/): refused" \
	"m=\$(modinfo -k $kver -n ib_core) && mkdir -p /lib/modules/$kver/updates/ofed &&
	mv \$m /lib/modules/$kver/updates/ofed/ && depmod $kver && make KVER=$kver" \
	"this host runs an OFED RDMA stack (MLNX_OFED or DOCA-OFED): ib_core of kernel $kver is /lib/modules/$kver/updates/ofed/"

# A kernel whose svc_rdma_sendto.c changed where a hook goes
refused "stale hook: names the hook and the series" \
	"mkdir /tmp/k && tar -xf /usr/src/linux-source-6.1.tar.xz -C /tmp/k --strip-components=1 \
	linux-source-6.1/Makefile linux-source-6.1/net/sunrpc/xprtrdma linux-source-6.1/include/linux/sunrpc/svc_rdma.h &&
	sed -i 's/wr->sg_list\[0\].addr,/wr->sg_list[0].addr ,/' /tmp/k/net/sunrpc/xprtrdma/svc_rdma_sendto.c &&
	make KVER=$kver KSRC=/tmp/k; rc=\$?; ls build/$kver; exit \$rc" \
	"hook 04-svc-post-send (variant 6.1, chosen by what it expects) does not apply"
if grep -qx linux "$work/last.log"; then
	tap_fail "stale hook: no half-patched tree is left"
else
	tap_ok "stale hook: no half-patched tree is left"
fi
# scripts/install.sh on a host it cannot serve stops before it installs
# anything: apt-get (a stand-in that records each call and fails) is
# never run, and nothing is put in /usr/src; uname -r says the image's
# 6.1 kernel (or one no package installed)
inst_stub="mkdir -p /tmp/stub && cat >/tmp/stub/apt-get <<'EOS'
#!/bin/sh
echo \"apt-get \$*\" >>/tmp/apt.calls
exit 1
EOS
cat >/tmp/stub/uname <<'EOS'
#!/bin/sh
[ \"\$1\" = -r ] && echo \"\${STUB_KVER:-$kver}\" && exit 0
exec /bin/uname \"\$@\"
EOS
chmod +x /tmp/stub/* && export PATH=/tmp/stub:\$PATH"
# install_refused NAME SETUP PATTERN: SETUP, then install.sh: refused
# saying PATTERN, and nothing installed
install_refused() {
	refused "install.sh: $1" "$inst_stub && $2 && scripts/install.sh; rc=\$?;
		if [ -e /tmp/apt.calls ]; then echo 'CHANGED:'; cat /tmp/apt.calls; fi
		ls -d /usr/src/rpcrdma-inline-* 2>/dev/null && echo 'CHANGED: /usr/src'; exit \$rc" "$3"
	if grep -q '^CHANGED' "$work/last.log"; then
		tap_fail "install.sh: $1: nothing installed"
	else
		tap_ok "install.sh: $1: nothing installed"
	fi
}
install_refused "an OFED host" "mkdir -p /usr/src/ofa_kernel/default" \
	"Use OFED's own NFS over RDMA module (mlnx-nfsrdma) instead"
install_refused "a kernel no Debian or Ubuntu package installed" "export STUB_KVER=6.1.0-999-amd64" \
	"the running kernel 6.1.0-999-amd64 is not from a Debian or Ubuntu package"
install_refused "a kernel source no variant of hook 03 fits" \
	"mkdir /tmp/k && tar -xf /usr/src/linux-source-6.1.tar.xz -C /tmp/k linux-source-6.1/Makefile \
	linux-source-6.1/net/sunrpc/xprtrdma linux-source-6.1/include/linux/sunrpc/svc_rdma.h &&
	sed -i 's/ret = rdma_create_qp(newxprt->sc_cm_id,/ret = rdma_create_qp( newxprt->sc_cm_id,/' \
		/tmp/k/linux-source-6.1/net/sunrpc/xprtrdma/svc_rdma_transport.c &&
	tar -cJf /usr/src/linux-source-6.1.tar.xz -C /tmp/k linux-source-6.1" \
	"does not take the hooks"

tap_end
