#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build rpcrdma.ko for every Debian kernel that apt offers of the series
# the hooks serve (6.1, 6.12, 7.x): each linux-headers-*-amd64 package
# (the generic amd64 flavour; not -rt or -cloud) in bookworm,
# bookworm-security, trixie, trixie-security and trixie-backports, each
# with the linux-source of exactly its version, in a chroot of the guest
# image of its release (its compiler). Prints, per suite, how many of its
# kernels built; any that did not build fails the test.
#
# Downloads (a linux-source is about 150 MB) are cached outside the repo,
# in ${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/all-kernels.
#
# usage: test-all-kernels.sh [SUITE...]   (default: all five)
# env:   ALL_KERNELS_MAX=N   build at most N kernels (the newest first)
#        ALL_KERNELS_MATCH=RE only the headers packages whose name matches RE
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

suites=("$@")
[ ${#suites[@]} -gt 0 ] ||
	suites=(bookworm bookworm-security trixie trixie-security trixie-backports)
cache=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}
debs=$cache/all-kernels
mkdir -p "$debs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"

# apt as tests/vm/build-image.sh sets it up for DIST: its package lists
apt_opts() { # DIST: the options, one a line
	local d=$cache/apt/$1
	printf '%s\n' -o "Dir::Etc=$d/etc/apt" -o "Dir::State::Lists=$d/lists" \
		-o "Dir::State::status=$d/status" -o "Dir::Cache=$d/cache" \
		-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin \
		-o Debug::NoLocking=1 -o APT::Architecture=amd64 -o APT::Architectures::=amd64
}
apt_of() { # DIST CMD ARGS...
	local opts
	mapfile -t opts < <(apt_opts "$1")
	"$2" "${opts[@]}" "${@:3}"
}

declare -A img_of=() suites_of=() total=() built=()
# "PACKAGE VERSION" of every kernel, with the suites that carry it
for dist in bookworm trixie; do
	want=0
	for s in "${suites[@]}"; do [ "${s%%-*}" = "$dist" ] && want=1; done
	[ "$want" = 1 ] || continue
	img_of[$dist]=$(image_dir "$dist")
	mapfile -t names < <(apt_of "$dist" apt-cache pkgnames linux-headers- |
		grep -E '^linux-headers-(6\.1|6\.12|7\.[0-9]+)\.[0-9]+(-[0-9]+)?(\+deb[0-9]+)?-amd64$' | sort -V)
	[ ${#names[@]} -gt 0 ] || { tap_fail "apt offers linux-headers packages in $dist"; continue; }
	while IFS='|' read -r pkg ver where; do
		pkg=${pkg// /} ver=${ver// /}
		suite=$(awk '{ print $2 }' <<<"$where")
		suite=${suite%%/*}
		for s in "${suites[@]}"; do
			[ "$s" = "$suite" ] || continue
			key="$dist $pkg $ver"
			suites_of[$key]="${suites_of[$key]:-} $suite"
			total[$suite]=$((${total[$suite]:-0} + 1))
		done
	done < <(apt_of "$dist" apt-cache madison "${names[@]}")
done

n=0
mapfile -t keys < <(printf '%s\n' "${!suites_of[@]}" | sort -k3 -rV)
for key in "${keys[@]}"; do
	read -r dist pkg ver <<<"$key"
	if [ -n "${ALL_KERNELS_MATCH:-}" ] && ! grep -qE -- "$ALL_KERNELS_MATCH" <<<"$pkg"; then
		continue
	fi
	if [ -n "${ALL_KERNELS_MAX:-}" ] && [ "$n" -ge "$ALL_KERNELS_MAX" ]; then
		echo "# not built (ALL_KERNELS_MAX=$ALL_KERNELS_MAX): $pkg $ver"
		continue
	fi
	n=$((n + 1))
	kver=${pkg#linux-headers-}
	series=$(cut -d. -f1-2 <<<"$kver")
	# The flavour's headers depend on their -common and on linux-kbuild
	# (= V) pins that version; (>= V) takes the lists' newest (6.1's
	# linux-kbuild-6.1 is kept in the archive at a few versions only)
	pkgs=("$pkg=$ver" "linux-source-$series=$ver")
	while read -r c rel v; do
		case $rel in
		'(=') pkgs+=("$c=${v%)}") ;;
		*) pkgs+=("$c") ;;
		esac
	done < <(apt_of "$dist" apt-cache show "$pkg=$ver" |
		sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
		sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ ]*\)\( (\([>=]*\) \([^)]*\))\)\{0,1\}.*/\1 (\4 \5)/p' |
		grep -v "^$pkg " || true)
	mapfile -t opts < <(apt_opts "$dist")
	if ! (cd "$debs" && flock "$debs/.lock" apt-get "${opts[@]}" -q download "${pkgs[@]}") \
		>>"$work/download.log" 2>&1; then
		tail -n 5 "$work/download.log"
		tap_fail "$kver ($ver, ${suites_of[$key]# }): download of ${pkgs[*]}"
		continue
	fi
	files=()
	for p in "${pkgs[@]}"; do
		case $p in
		*=*) f="$debs/$(sed 's/=/_/; s/:/%3a/g' <<<"$p")_" ;;
		*) f="$debs/$(apt_of "$dist" apt-cache policy "$p" | awk '$1 == "Candidate:" { print $2 }' | sed "s/^/${p}_/; s/:/%3a/g")_" ;;
		esac
		for g in "$f"*.deb; do files+=("/debs/${g##*/}"); done
	done
	rm -rf "$work/src/build" "$work/src/rpcrdma.ko"
	t0=$SECONDS
	rc=0
	"$REPO/tests/vm/chroot-run.sh" --image "${img_of[$dist]}" --bind "$work/src:/src" \
		--bind "$debs:/debs" -- bash -c '
		# (dpkg warns of downgrades: its output is not the build'"'"'s)
		dpkg --force-depends -i "$@" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }
		make -C /src KVER='"$kver"' W=1' _ "${files[@]}" >"$work/build.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && [ -f "$work/src/rpcrdma.ko" ] &&
		! grep -qE 'warning:|error:' "$work/build.log"; then
		variants=$(sed -n 's/^rpcrdma-inline: hook \(..\)-[^:]*: variant /\1=/p' "$work/build.log" | paste -sd' ')
		untested=
		if grep -q UNTESTED "$work/build.log"; then untested=", UNTESTED"; fi
		tap_ok "$kver ($ver, ${suites_of[$key]# }) builds in $((SECONDS - t0)) s: $variants$untested"
		for s in ${suites_of[$key]}; do built[$s]=$((${built[$s]:-0} + 1)); done
	else
		grep -E 'rpcrdma-inline:|warning:|error:' "$work/build.log" | head -n 20
		tap_fail "$kver ($ver, ${suites_of[$key]# }) builds (exit $rc)"
	fi
done
for s in "${suites[@]}"; do
	echo "# $s: ${built[$s]:-0} of ${total[$s]:-0} kernels built"
done
tap_end
