#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build the noarch RPM as the spec says, 'make dist && rpmbuild -tb
# rpcrdma-inline-VERSION.tar.gz', in an export of the tree (never in the
# repo), then check what it holds: the same DKMS source
# tree as the .deb (exactly what the build needs, byte for byte), the
# admin command, its man page, the config file, the dependencies, the
# scriptlets' dkms add/build/install/remove, and that a spec whose Version
# is not dkms.conf's PACKAGE_VERSION does not build.
#
# usage: test-rpm.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

version=$(pkg_version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
top="$work/rpmbuild"
mkdir -p "$top/SOURCES"
pkg_export "$work/$NAME-$version"
spec="$work/$NAME-$version/$NAME.spec"
# The export is no git checkout, as an unpacked release is not
if (cd "$work/$NAME-$version" && make -s dist >"$work/dist.log" 2>&1); then
	tap_ok "make dist"
else
	sed 's/^/#   /' "$work/dist.log"
	tap_fail "make dist"
fi
tarball="$work/$NAME-$version/$NAME-$version.tar.gz"
expect_eq "make dist: $NAME-$version.tar.gz holds the tree under $NAME-$version/, as the export" \
	"$(cd "$work" && find "$NAME-$version" -type f ! -name '*.tar.gz' | LC_ALL=C sort)" \
	"$(tar -tzf "$tarball" | grep -v '/$' | LC_ALL=C sort)"
expect_grep "the spec documents 'make dist && rpmbuild -tb'" \
	'^# Build, in the source tree: make dist && rpmbuild -tb rpcrdma-inline-VERSION\.tar\.gz$' "$(cat "$spec")"
expect_grep "the spec has URL:" '^URL:[[:space:]]+https://' "$(cat "$spec")"

expect_eq "the spec's Version is dkms.conf's PACKAGE_VERSION ($version)" \
	"$version" "$(rpmspec -q --srpm --qf '%{VERSION}' "$spec" 2>/dev/null ||
		sed -n 's/^Version:[[:space:]]*//p' "$spec")"

t0=$SECONDS
if rpmbuild -tb --define "_topdir $top" "$tarball" >"$work/build.log" 2>&1; then
	tap_ok "rpmbuild -tb $NAME-$version.tar.gz ($((SECONDS - t0)) s)"
else
	tail -n 30 "$work/build.log" | sed 's/^/#   /'
	tap_fail "rpmbuild -tb $NAME-$version.tar.gz"
	tap_end
	exit 1
fi
echo "# rpmbuild took $((SECONDS - t0)) s"

rpms=("$top/RPMS/noarch/$BIN_PKG-$version"-*.noarch.rpm)
if [ ! -f "${rpms[0]}" ]; then
	tap_fail "the build made RPMS/noarch/$BIN_PKG-$version-*.noarch.rpm (made: $(cd "$top" && find RPMS -name '*.rpm'))"
	tap_end
	exit 1
fi
rpm=${rpms[0]}
tap_ok "the build made RPMS/noarch/$(basename "$rpm")"

q() {
	rpm -qp "$@" "$rpm" 2>/dev/null
}
expect_eq "Name: $BIN_PKG" "$BIN_PKG" "$(q --qf '%{NAME}')"
expect_eq "Version: $version" "$version" "$(q --qf '%{VERSION}')"
expect_eq "BuildArch noarch" noarch "$(q --qf '%{ARCH}')"
requires=$(q --requires | sed -E 's/[[:space:]].*//' | sort -u)
for r in dkms kernel-devel make gcc; do
	expect_grep "Requires: $r" "^$r$" "$requires"
done
suggests=$(q --suggests | sed -E 's/[[:space:]].*//' | sort -u)
for s in fio python3 python3-matplotlib; do
	expect_grep "Suggests: $s (the bench, its report, its plot)" "^$s$" "$suggests"
done

files=$(q --list --qf '' | LC_ALL=C sort)
dirs=$(q --qf '[%{FILENAMES} %{FILEMODES:perms}\n]' | awk '$2 ~ /^d/ { print $1 }')
plain=$(grep -vxF -f <(printf '%s\n' "$dirs") <<<"$files")
srcdir="/usr/src/$NAME-$version"
want_src=$(expected_dkms_files "$work/$NAME-$version")
got_src=$(sed -n "s,^$srcdir/,,p" <<<"$plain")
diff_lists "$srcdir holds exactly dkms.conf, Makefile, Kbuild, src/, include/ and the build's scripts" \
	"$want_src" "$got_src"
expect_grep "the package owns $srcdir itself (removed with it)" "^$srcdir$" "$dirs"
want_other=$(LC_ALL=C sort <<EOF
/etc/modprobe.d/rpcrdma-inline.conf
/usr/lib/modprobe.d/rpcrdma-inline-load.conf
/usr/libexec/rpcrdma-inline/load-rpcrdma
/usr/libexec/rpcrdma-inline/rpcrdma-inline-bench
/usr/libexec/rpcrdma-inline/rpcrdma-inline-bench-report
/usr/sbin/rpcrdma-inline
/usr/share/doc/$BIN_PKG-$version/README.md
/usr/share/man/man8/rpcrdma-inline.8.gz
/usr/share/licenses/$BIN_PKG-$version/COPYING
/usr/share/licenses/$BIN_PKG-$version/GPL-2.0.txt
/usr/share/licenses/$BIN_PKG-$version/BSD-3-Clause.txt
$(for d in "$REPO"/docs/*.md; do echo "/usr/share/doc/$BIN_PKG-$version/docs/${d##*/}"; done)
EOF
)
diff_lists "outside $srcdir: the command, its bench, its load helper and install rule, its man page, the config file, README.md, docs/ and the license texts; nothing else" \
	"$want_other" "$(grep -v "^$srcdir/" <<<"$plain")"
expect_eq "config files: /etc/modprobe.d/rpcrdma-inline.conf" \
	"/etc/modprobe.d/rpcrdma-inline.conf" "$(q --configfiles)"
modes=$(q --qf '[%{FILEMODES:perms} %{FILENAMES}\n]')
expect_grep "/usr/sbin/rpcrdma-inline is -rwxr-xr-x" '^-rwxr-xr-x /usr/sbin/rpcrdma-inline$' "$modes"
expect_grep "the bench is -rwxr-xr-x" '^-rwxr-xr-x /usr/libexec/rpcrdma-inline/rpcrdma-inline-bench$' "$modes"
expect_grep "$srcdir/scripts/prepare-source.sh is executable" \
	"^-rwxr-xr-x $srcdir/scripts/prepare-source\\.sh\$" "$modes"

mkdir "$work/root"
(cd "$work/root" && rpm2cpio "$rpm" | cpio -idm --quiet)
bad=
while read -r f; do
	cmp -s "$work/$NAME-$version/$f" "$work/root$srcdir/$f" || bad="$bad $f"
done <<<"$want_src"
expect_eq "every file of $srcdir is the tree's own, byte for byte" "" "$bad"
expect "/usr/sbin/rpcrdma-inline is scripts/rpcrdma-inline" \
	cmp -s "$work/$NAME-$version/scripts/rpcrdma-inline" "$work/root/usr/sbin/rpcrdma-inline"
expect "/etc/modprobe.d/rpcrdma-inline.conf is scripts/rpcrdma-inline.modprobe.conf" \
	cmp -s "$work/$NAME-$version/scripts/rpcrdma-inline.modprobe.conf" \
	"$work/root/etc/modprobe.d/rpcrdma-inline.conf"

expect_grep "/usr/libexec/rpcrdma-inline/load-rpcrdma is -rwxr-xr-x" \
	'^-rwxr-xr-x /usr/libexec/rpcrdma-inline/load-rpcrdma$' "$modes"
expect "load-rpcrdma is scripts/load-rpcrdma" \
	cmp -s "$work/$NAME-$version/scripts/load-rpcrdma" "$work/root/usr/libexec/rpcrdma-inline/load-rpcrdma"
expect "/usr/lib/modprobe.d/rpcrdma-inline-load.conf is scripts/rpcrdma-inline-load.modprobe.conf" \
	cmp -s "$work/$NAME-$version/scripts/rpcrdma-inline-load.modprobe.conf" \
	"$work/root/usr/lib/modprobe.d/rpcrdma-inline-load.conf"

scripts=$(q --scripts)
# The body of one scriptlet in rpm -q --scripts output
scriptlet() {
	awk -v h="$1 scriptlet" 'index($0, h) == 1 { on = 1; next }
		/^[a-z]+ scriptlet/ { on = 0 } on' <<<"$scripts"
}
post=$(scriptlet postinstall)
preun=$(scriptlet preuninstall)
expect_grep "%post: dkms add -m $NAME -v $version" "dkms add -m $NAME -v $version( |$)" "$post"
expect_grep "%post: dkms build -m $NAME -v $version for the running kernel" \
	"dkms build -m $NAME -v $version -k \"\\\$kver\"" "$post"
expect_grep "%post: dkms install -m $NAME -v $version for the running kernel" \
	"dkms install -m $NAME -v $version -k \"\\\$kver\"" "$post"
expect_grep "%post: the running kernel is uname -r" 'kver=\$\(uname -r\)' "$post"
# shellcheck disable=SC2016 # the scriptlet's own $kver
expect_grep "%post: a failed build is reported" 'DKMS build for kernel \$kver failed' "$post"
expect_grep "%post: ... saying that the stock module stays in use" \
	'The stock rpcrdma module stays in use' "$post"
expect_grep "%post ends with exit 0 (a failed build does not fail the install)" '^exit 0$' "$post"
expect_grep "%preun: dkms remove -m $NAME -v $version --all" \
	"^dkms remove -m $NAME -v $version --all( |$)" "$preun"

# The failed-build path of %post, run against stub dkms and uname
stub="$work/stub"
mkdir -p "$stub" "$work/modules/9.9.9-test/build/include"
# shellcheck disable=SC2016 # the stub's own $* and $1
printf '#!/bin/sh\necho "dkms $*" >>"%s/dkms.calls"\ncase $1 in build) exit 10;; esac\nexit 0\n' \
	"$work" >"$stub/dkms"
# shellcheck disable=SC2016 # the stub's own $* and $1
printf '#!/bin/sh\necho 9.9.9-test\n' >"$stub/uname"
chmod +x "$stub/dkms" "$stub/uname"
post_body=${post//\/lib\/modules\//$work\/modules\/}
rc=0
out=$(PATH="$stub:$PATH" sh -c "$post_body" 2>&1) || rc=$?
expect_eq "%post with a failing dkms build exits 0" 0 "$rc"
expect_grep "%post with a failing dkms build says so" 'build for kernel 9.9.9-test failed' "$out"
calls=$(cat "$work/dkms.calls" 2>/dev/null || true)
expect_eq "%post ran dkms status, add, then build for 9.9.9-test" \
	"dkms status -m $NAME -v $version|dkms add -m $NAME -v $version --rpm_safe_upgrade|dkms build -m $NAME -v $version -k 9.9.9-test" \
	"$(paste -sd '|' <<<"$calls")"
expect_eq "%post did not run dkms install after the failed build" "" \
	"$(grep 'dkms install' <<<"$calls" || true)"

# A spec whose Version is not dkms.conf's does not build
sed "s/^Version:.*/Version:        9.9.9/" "$spec" >"$work/bad.spec"
(cd "$work" && rm -rf "$NAME-9.9.9" && cp -a "$NAME-$version" "$NAME-9.9.9" &&
	tar -czf "$top/SOURCES/$NAME-9.9.9.tar.gz" "$NAME-9.9.9")
rc=0
rpmbuild -bb --define "_topdir $top" "$work/bad.spec" >"$work/bad.log" 2>&1 || rc=$?
expect "a spec with Version 9.9.9 and dkms.conf $version fails to build" test "$rc" -ne 0
expect_grep "... saying why" "PACKAGE_VERSION is not 9\\.9\\.9" "$(cat "$work/bad.log")"

if command -v rpmlint >/dev/null; then
	lint=$(rpmlint "$rpm" "$spec" 2>&1 || true)
	grep -E ': [EW]: ' <<<"$lint" | sed 's/^/# rpmlint: /' || true
	expect_eq "rpmlint: no error but the expected ones (no signature/packager/group tag, kernel-devel)" "" \
		"$(grep -E ': E: ' <<<"$lint" |
			grep -vE ': E: (no-signature|no-packager-tag|no-group-tag|devel-dependency kernel-devel)$' || true)"
fi
tap_end
