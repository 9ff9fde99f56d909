#!/bin/bash
# Boot one Debian kernel in QEMU and run the in-guest tests there: DKMS
# install, NFS over soft RoCE with rpcrdma-inline, and back to stock.
#
# usage: test-guest.sh SERIES [GUEST_SCRIPT]   (6.12+deb13, 6.1, 6.12, 7.3 or 6.12-debug)
# env:   GUEST_PHASES   the phases of tests/guest/suite.sh to run
#        GUEST_TAG      names the output directory (default: the script's name)
#        GUEST_MEASURE  1: the full integrity workload in the client phase
#        GUEST_BENCH_*  passed to GUEST_SCRIPT too (tests/bench/latency.sh)
#        FAULTS_CYCLES, FAULTS_RELOADS, FAULTS_FIO_LIMIT, FAULTS_FIO_MIB, FAILSLAB_ROUNDS, FAILSLAB_DATA_ROUNDS,
#        INTEGRITY_MIB, INTEGRITY_FILES
#                       the faults and failslab phases' counts, the
#                       integrity workload's size
#
# Under TCG a DKMS build inside the guest takes 10 minutes and more, so by
# default DKMS builds the module in a chroot of the same guest image (the
# same userland, headers and linux-source package) and exports it with
# `dkms mktarball --binaries-only`; the guest then installs it with
# `dkms ldtarball` and `dkms install`, as for a prebuilt DKMS package.
# RPCRDMA_INLINE_GUEST_BUILD=guest makes the guest build it itself.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:?usage: test-guest.sh SERIES [GUEST_SCRIPT]}
script=${2:-tests/guest/suite.sh}
img=$(series_image "$series")
kver=$(image_kver "$img" "$series")
out="${RPCRDMA_INLINE_OUT:-$REPO/build/test-logs}/guest-$series-${GUEST_TAG:-$(basename "$script" .sh)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"
rm -rf "$out"
mkdir -p "$out"

# The test-only modules (tests/modules) for this kernel, built in its userland
"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work/src:/src" -- \
	/src/tests/modules/build.sh "$kver" "/src/build/guest-modules/$kver" \
	>"$out/modules.log" 2>&1 || {
	cat "$out/modules.log"
	echo "building the test modules failed"
	exit 1
}

if [ "${RPCRDMA_INLINE_GUEST_BUILD:-chroot}" = chroot ]; then
	version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	t0=$SECONDS
	# shellcheck disable=SC2016 # expanded in the chroot
	"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work/src:/src" \
		--env "V=$version" --env "K=$kver" -- bash -c '
		set -e
		cp -a /src "/usr/src/rpcrdma-inline-$V"
		rm -rf "/usr/src/rpcrdma-inline-$V/build"
		dkms add "rpcrdma-inline/$V"
		dkms build "rpcrdma-inline/$V" -k "$K"
		dkms mktarball "rpcrdma-inline/$V" -k "$K" --binaries-only
		mkdir -p /src/build/dkms
		cp /var/lib/dkms/rpcrdma-inline/"$V"/tarball/*.tar.gz /src/build/dkms/' \
		>"$out/dkms-build.log" 2>&1 || {
		cat "$out/dkms-build.log"
		echo "the DKMS build in the chroot failed"
		exit 1
	}
	echo "# DKMS build in a chroot of the guest image took $((SECONDS - t0)) s"
fi

envs=()
for v in GUEST_PHASES GUEST_MEASURE FAULTS_CYCLES FAULTS_RELOADS FAULTS_FIO_LIMIT FAULTS_FIO_MIB FAILSLAB_ROUNDS FAILSLAB_DATA_ROUNDS \
	INTEGRITY_MIB INTEGRITY_FILES \
	$(compgen -v GUEST_BENCH_ || true); do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
# The debug kernel interprets ACPI's AML so slowly under TCG that the
# PCI routing method (_PRT) times out, 30 s per device: route PCI
# interrupts from the BIOS's table instead
append=()
case $series in *-debug) append=(--append pci=noacpi) ;; esac
rc=0
"$REPO/tests/vm/run-guest.sh" --image "$img" --kernel "$kver" "${envs[@]}" "${append[@]}" \
	--share "$work/src" --out "$out" --script "$script" --quiet \
	--timeout "${RPCRDMA_INLINE_GUEST_TIMEOUT:-2400}" || rc=$?
cat "$out/guest.log" 2>/dev/null || true
echo "# console log: $out/console.log"
exit "$rc"
