#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build the .deb with dpkg-buildpackage -b from an export of the tree (the
# git-tracked and untracked-but-not-ignored files, never in the repo), then
# check what it holds: the DKMS source tree (exactly what the build needs,
# byte for byte), the admin command, its man page, the conffile, the
# control fields, the maintainer scripts' dkms calls, lintian; and, when
# this host has a kernel with headers and its matching linux-source, that
# the shipped tree builds rpcrdma.ko with dkms.conf's own MAKE line.
#
# usage: test-deb.sh
# env:   RPCRDMA_INLINE_PKG_BUILD=auto|0|1   the build from the shipped tree:
#        when possible (default), never, or required
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

version=$(pkg_version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg_export "$work/src"

debver=$(cd "$work/src" && dpkg-parsechangelog -S Version)
expect_eq "debian/changelog's upstream version is dkms.conf's PACKAGE_VERSION ($version)" \
	"$version" "${debver%-*}"

t0=$SECONDS
if (cd "$work/src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tap_ok "dpkg-buildpackage -us -uc -b ($((SECONDS - t0)) s)"
else
	tail -n 30 "$work/build.log" | sed 's/^/#   /'
	tap_fail "dpkg-buildpackage -us -uc -b"
	tap_end
	exit 1
fi
echo "# dpkg-buildpackage took $((SECONDS - t0)) s"

deb="$work/${BIN_PKG}_${debver}_all.deb"
if [ ! -f "$deb" ]; then
	tap_fail "the build made $(basename "$deb") (made: $(cd "$work" && echo *.deb))"
	tap_end
	exit 1
fi
tap_ok "the build made $(basename "$deb")"

# The file list, from dpkg-deb -c: "MODE OWNER SIZE DATE TIME ./PATH"
listing=$(dpkg-deb -c "$deb")
files=$(awk '$1 ~ /^-/ { sub(/^\./, "", $6); print $6 }' <<<"$listing" | LC_ALL=C sort)
srcdir="/usr/src/$NAME-$version"
want_src=$(expected_dkms_files "$work/src")
got_src=$(sed -n "s,^$srcdir/,,p" <<<"$files")
diff_lists "$srcdir holds exactly dkms.conf, Makefile, Kbuild, src/, include/ and the build's scripts" \
	"$want_src" "$got_src"
expect_grep "$srcdir/scripts/prepare-source.sh is shipped (what the Makefile runs)" \
	'^scripts/prepare-source\.sh$' "$got_src"
# dh_compress compresses the docs of more than 4 KiB (not copyright)
gz() { if [ "$(stat -c %s "$REPO/$1")" -gt 4096 ]; then echo .gz; fi; }
want_other=$(LC_ALL=C sort <<EOF
/etc/kernel/header_postinst.d/50-rpcrdma-inline
/etc/kernel/postinst.d/50-rpcrdma-inline
/etc/kernel/postrm.d/rpcrdma-inline
/etc/modprobe.d/rpcrdma-inline.conf
/usr/lib/modprobe.d/rpcrdma-inline-load.conf
/usr/libexec/rpcrdma-inline/build-for-kernels
/usr/libexec/rpcrdma-inline/load-rpcrdma
/usr/libexec/rpcrdma-inline/stale-module-notice
/usr/libexec/rpcrdma-inline/rpcrdma-inline-bench
/usr/libexec/rpcrdma-inline/rpcrdma-inline-bench-report
/usr/sbin/rpcrdma-inline
/usr/share/doc/$BIN_PKG/README.Debian$(gz debian/README.Debian)
/usr/share/doc/$BIN_PKG/README.md.gz
/usr/share/doc/$BIN_PKG/changelog.Debian.gz
/usr/share/doc/$BIN_PKG/copyright
/usr/share/man/man8/rpcrdma-inline.8.gz
$(for d in "$REPO"/docs/*.md; do echo "/usr/share/doc/$BIN_PKG/docs/${d##*/}$(gz "docs/${d##*/}")"; done)
EOF
)
diff_lists "outside $srcdir: the command, its bench, its load helper and install rule, its man page, the conffile, the kernel hooks and their scripts, the docs; nothing else" \
	"$want_other" "$(grep -v "^$srcdir/" <<<"$files")"

mode_of() {
	awk -v p="./${1#/}" '$6 == p { print $1 " " $2 }' <<<"$listing"
}
expect_eq "/usr/sbin/rpcrdma-inline is -rwxr-xr-x root/root" \
	"-rwxr-xr-x root/root" "$(mode_of /usr/sbin/rpcrdma-inline)"
expect_eq "$srcdir/scripts/prepare-source.sh is executable" \
	"-rwxr-xr-x root/root" "$(mode_of "$srcdir/scripts/prepare-source.sh")"
expect_eq "$srcdir/dkms.conf is -rw-r--r-- root/root" \
	"-rw-r--r-- root/root" "$(mode_of "$srcdir/dkms.conf")"

# Contents, byte for byte
dpkg-deb -x "$deb" "$work/root"
bad=
while read -r f; do
	cmp -s "$work/src/$f" "$work/root$srcdir/$f" || bad="$bad $f"
done <<<"$want_src"
expect_eq "every file of $srcdir is the tree's own, byte for byte" "" "$bad"
expect "/usr/sbin/rpcrdma-inline is scripts/rpcrdma-inline" \
	cmp -s "$work/src/scripts/rpcrdma-inline" "$work/root/usr/sbin/rpcrdma-inline"
expect "the man page is scripts/rpcrdma-inline.8" \
	cmp -s "$work/src/scripts/rpcrdma-inline.8" \
	<(zcat "$work/root/usr/share/man/man8/rpcrdma-inline.8.gz")
conf="$work/root/etc/modprobe.d/rpcrdma-inline.conf"
expect "/etc/modprobe.d/rpcrdma-inline.conf is scripts/rpcrdma-inline.modprobe.conf" \
	cmp -s "$work/src/scripts/rpcrdma-inline.modprobe.conf" "$conf"
expect_grep "the conffile shows the options line, commented out" \
	'^#options rpcrdma inline_size=256 server_inline=Y client_inline=Y$' "$(cat "$conf")"
expect_eq "the conffile sets nothing (every line a comment or blank)" \
	"" "$(grep -vE '^[[:space:]]*(#|$)' "$conf" || true)"

expect_eq "/usr/libexec/rpcrdma-inline/load-rpcrdma is -rwxr-xr-x root/root" \
	"-rwxr-xr-x root/root" "$(mode_of /usr/libexec/rpcrdma-inline/load-rpcrdma)"
expect "load-rpcrdma is scripts/load-rpcrdma" \
	cmp -s "$work/src/scripts/load-rpcrdma" "$work/root/usr/libexec/rpcrdma-inline/load-rpcrdma"
rule="$work/root/usr/lib/modprobe.d/rpcrdma-inline-load.conf"
expect "/usr/lib/modprobe.d/rpcrdma-inline-load.conf is scripts/rpcrdma-inline-load.modprobe.conf" \
	cmp -s "$work/src/scripts/rpcrdma-inline-load.modprobe.conf" "$rule"
# shellcheck disable=SC2016 # modprobe's $CMDLINE_OPTS, literally
expect_eq "its one rule: modprobe rpcrdma runs load-rpcrdma, or a plain modprobe without it" \
	'install rpcrdma if [ -x /usr/libexec/rpcrdma-inline/load-rpcrdma ]; then /usr/libexec/rpcrdma-inline/load-rpcrdma $CMDLINE_OPTS; else modprobe --ignore-install rpcrdma $CMDLINE_OPTS; fi' \
	"$(grep -vE '^[[:space:]]*(#|$)' "$rule")"

dpkg-deb -e "$deb" "$work/control"
expect_eq "conffiles: the kernel hooks and /etc/modprobe.d/rpcrdma-inline.conf" \
	"$(printf '%s\n' /etc/kernel/header_postinst.d/50-rpcrdma-inline /etc/kernel/postinst.d/50-rpcrdma-inline \
		/etc/kernel/postrm.d/rpcrdma-inline /etc/modprobe.d/rpcrdma-inline.conf)" \
	"$(LC_ALL=C sort "$work/control/conffiles")"
for h in postinst.d/50-rpcrdma-inline header_postinst.d/50-rpcrdma-inline postrm.d/rpcrdma-inline; do
	expect "/etc/kernel/$h is scripts/kernel-hook.sh, -rwxr-xr-x" \
		cmp -s "$work/src/scripts/kernel-hook.sh" "$work/root/etc/kernel/$h"
	expect_eq "/etc/kernel/$h is -rwxr-xr-x root/root" "-rwxr-xr-x root/root" "$(mode_of "/etc/kernel/$h")"
done
# run-parts runs a directory's hooks in the C locale's order
expect_eq "the kernel hook runs before dkms's in run-parts' order" \
	"50-rpcrdma-inline dkms" "$(printf '%s\n' dkms 50-rpcrdma-inline | LC_ALL=C sort | paste -sd' ')"
expect_grep "the trigger: interest-noawait /usr/src" '^interest-noawait /usr/src$' \
	"$(cat "$work/control/triggers" 2>/dev/null)"

field() {
	dpkg-deb -f "$deb" "$1"
}
# "a (>= 1), b | c" -> one alternative group a line, versions dropped
relations() {
	field "$1" | tr ',' '\n' | sed -E 's/\([^)]*\)//g; s/[[:space:]]+//g' | grep .
}
expect_eq "Package: $BIN_PKG" "$BIN_PKG" "$(field Package)"
expect_eq "Source: $NAME" "$NAME" "$(field Source)"
expect_eq "Architecture: all" all "$(field Architecture)"
expect_eq "Version: $debver" "$debver" "$(field Version)"
depends=$(relations Depends)
for d in dkms kmod make; do
	expect_grep "Depends on $d" "^$d(\||$)" "$depends"
done
expect_grep "Depends on gcc or build-essential" '^(gcc|build-essential)(\||$)' "$depends"
expect_grep "Depends on dkms (>= 3.0.3-4~)" \
	'(^|, )dkms \(>= 3\.0\.3-4~\)' "$(field Depends)"
recommends=$(relations Recommends)
# Not the linux-source metapackage: it pulls the newest source, the wrong
# version whenever the running kernel is not the newest (README.Debian)
expect_eq "does not Recommend the linux-source metapackage" "" \
	"$(grep -E '(^|\|)linux-source(\||$)' <<<"$recommends" || true)"
expect_grep "Recommends linux-headers-amd64 | linux-headers" \
	'^linux-headers-amd64\|.*linux-headers$' "$recommends"
# Debian's 6.12 and later ship vmlinux in their headers: every module
# build generates BTF with pahole (their linux-kbuild Depends on it)
expect_grep "Recommends pahole | dwarves (BTF of 6.12 and later)" '^pahole\|dwarves$' "$recommends"
expect_grep "Recommends openssl (DKMS signs with it under Secure Boot)" '^openssl$' "$recommends"
suggests=$(relations Suggests)
for s in rdma-core nfs-kernel-server nfs-common fio python3 python3-matplotlib mokutil; do
	expect_grep "Suggests $s" "^$s$" "$suggests"
done

postinst=$(cat "$work/control/postinst")
expect_grep "postinst: configure builds for every kernel, failing on a build error" \
	'^[[:space:]]*/usr/libexec/rpcrdma-inline/build-for-kernels --strict$' "$postinst"
expect_grep "postinst: the trigger builds for the kernels that lack ours, never failing" \
	'^[[:space:]]*/usr/libexec/rpcrdma-inline/build-for-kernels \|\| true$' "$postinst"
expect_grep "postinst: says when the loaded rpcrdma is not the one installed" \
	'^[[:space:]]*/usr/libexec/rpcrdma-inline/stale-module-notice' "$postinst"
expect_eq "postinst: not dkms's common.postinst (it stops at the first kernel that does not build)" "" \
	"$(grep -F common.postinst <<<"$postinst" | grep -v '^#' || true)"
prerm=$(cat "$work/control/prerm")
# shellcheck disable=SC2016 # the $ are the script's own
expect_grep "prerm runs dkms remove --all" \
	'^[[:space:]]*dkms remove -m rpcrdma-inline -v "\$v" --all' "$prerm"
expect_grep "prerm removes on remove, upgrade and deconfigure" \
	'remove\|upgrade\|deconfigure\)' "$prerm"
expect_grep "postrm: purge removes the kept kernel sources" \
	'for d in /var/lib/rpcrdma-inline/\*/; do' "$(cat "$work/control/postrm")"

dkmsconf=$(cat "$work/root$srcdir/dkms.conf")
expect_grep "dkms.conf: PACKAGE_VERSION=\"$version\"" "^PACKAGE_VERSION=\"$version\"$" "$dkmsconf"
expect_grep "dkms.conf installs in /updates/dkms" \
	'^DEST_MODULE_LOCATION\[0\]="/updates/dkms"$' "$dkmsconf"

if command -v lintian >/dev/null; then
	lint=$(lintian --pedantic --info --display-experimental \
		"$work/${NAME}_${debver}_"*.changes 2>/dev/null || true)
	printf '%s\n' "$lint" | grep -E '^[EWIPX]:' | sed 's/^/# lintian: /' || true
	expect_eq "lintian: no error" "" "$(grep -E '^E:' <<<"$lint" || true)"
fi

# The shipped tree builds, with dkms.conf's MAKE line, for a kernel whose
# headers and matching linux-source this host has
mode=${RPCRDMA_INLINE_PKG_BUILD:-auto}
tree="$work/root$srcdir"
kver=
if [ "$mode" != 0 ]; then
	mapfile -t kernels < <(find /lib/modules -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -V)
	for d in "${kernels[@]}"; do
		[ -f "/lib/modules/$d/build/Makefile" ] || continue
		if (cd "$tree" &&
			scripts/find-kernel-source.sh "$d") >/dev/null 2>&1; then
			kver=$d
			break
		fi
	done
fi
if [ -z "$kver" ]; then
	if [ "$mode" = 1 ]; then
		tap_fail "a kernel with headers and its linux-source to build for (RPCRDMA_INLINE_PKG_BUILD=1)"
	else
		tap_ok "# SKIP build from the shipped tree: no kernel with headers and matching linux-source here"
	fi
	tap_end
	exit $?
fi
make_cmd=$(sed -n 's/^MAKE\[0\]="\(.*\)"$/\1/p' "$tree/dkms.conf")
t0=$SECONDS
# shellcheck disable=SC2034 # kernelver and kernel_source_dir are for $make_cmd
if (cd "$tree" && kernelver=$kver kernel_source_dir=/lib/modules/$kver/build &&
	eval "$make_cmd") >"$work/make.log" 2>&1; then
	tap_ok "the shipped tree builds for $kver: $make_cmd ($((SECONDS - t0)) s)"
	echo "# build for $kver took $((SECONDS - t0)) s"
	expect_eq "the module built from the shipped tree says rpcrdma_inline: $version" \
		"$version" "$(modinfo -F rpcrdma_inline "$tree/rpcrdma.ko")"
	expect_eq "its vermagic names $kver" \
		"$kver" "$(modinfo -F vermagic "$tree/rpcrdma.ko" | cut -d' ' -f1)"
else
	tail -n 30 "$work/make.log" | sed 's/^/#   /'
	tap_fail "the shipped tree builds for $kver: $make_cmd"
fi
tap_end
