#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Does the running kernel enforce module signatures, and would it load a
# module that DKMS signed? install.sh asks before it replaces the loaded
# rpcrdma: under Secure Boot (Debian's kernels then lock down and enforce
# signatures) or module.sig_enforce=1, a module signed with a key the
# kernel does not trust is refused ("Key was rejected by service").
#
# usage: check-module-signing.sh enforced
#          exit 0 and print why (Secure Boot, module.sig_enforce=1,
#          lockdown) when the kernel enforces module signatures, else 1
#        check-module-signing.sh trusted [KEY]
#          exit 0 when a module signed with KEY (DKMS's certificate,
#          default /var/lib/dkms/mok.pub or framework.conf's
#          mok_certificate) would load: signatures not enforced, or KEY
#          enrolled (mokutil --test-key) or in a kernel keyring
#          (/proc/keys); else 1, saying what to run
# env (tests): RPCRDMA_INLINE_SYSFS (/sys), RPCRDMA_INLINE_PROC (/proc),
#   RPCRDMA_INLINE_DKMS_CONF (/etc/dkms)
set -euo pipefail

SYSFS=${RPCRDMA_INLINE_SYSFS:-/sys}
PROC=${RPCRDMA_INLINE_PROC:-/proc}
DKMS_CONF=${RPCRDMA_INLINE_DKMS_CONF:-/etc/dkms}
# EFI's global variable GUID: SecureBoot's value is the byte after the
# 4 bytes of attributes
EFI_SB="$SYSFS/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

secure_boot() {
	local v
	if [ -r "$EFI_SB" ]; then
		v=$(od -An -t u1 -j 4 -N 1 "$EFI_SB" | tr -d ' ')
		[ "$v" = 1 ]
		return
	fi
	command -v mokutil >/dev/null && mokutil --sb-state 2>/dev/null | grep -q 'SecureBoot enabled'
}

# why signatures are enforced, or nothing
enforced_by() {
	local by=()
	if secure_boot; then by+=("Secure Boot is on"); fi
	if grep -qx Y "$SYSFS/module/module/parameters/sig_enforce" 2>/dev/null; then
		by+=("module.sig_enforce=1")
	fi
	if grep -qE '\[(integrity|confidentiality)\]' "$SYSFS/kernel/security/lockdown" 2>/dev/null; then
		by+=("the kernel is locked down ($(grep -oE '\[[a-z]+\]' "$SYSFS/kernel/security/lockdown"))")
	fi
	[ ${#by[@]} -eq 0 ] || (IFS=,; printf '%s\n' "${by[*]}" | sed 's/,/, /g')
}

# DKMS's certificate: framework.conf's mok_certificate, or its default
dkms_key() {
	local k
	k=$(cat "$DKMS_CONF"/framework.conf "$DKMS_CONF"/framework.conf.d/*.conf 2>/dev/null |
		sed -n 's/^[[:space:]]*mok_certificate=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' | tail -n 1)
	printf '%s\n' "${k:-/var/lib/dkms/mok.pub}"
}

# is KEY in one of the kernel's keyrings: the description of an X.509 key
# there is "CN: SKID", its subject key identifier in hex
in_keyring() {
	local skid
	command -v openssl >/dev/null || return 1
	skid=$(openssl x509 -inform DER -in "$1" -noout -ext subjectKeyIdentifier 2>/dev/null ||
		openssl x509 -in "$1" -noout -ext subjectKeyIdentifier 2>/dev/null) || return 1
	skid=$(printf '%s\n' "$skid" | sed -n 's/^[[:space:]]*\([0-9A-Fa-f:]\{20,\}\)[[:space:]]*$/\1/p' | tr -d ':' | tr 'A-F' 'a-f')
	[ -n "$skid" ] && grep -qi "asymmetri.*: $skid" "$PROC/keys" 2>/dev/null
}

case ${1:-} in
enforced)
	why=$(enforced_by)
	[ -n "$why" ] || exit 1
	echo "$why"
	;;
trusted)
	why=$(enforced_by)
	[ -n "$why" ] || exit 0
	key=${2:-$(dkms_key)}
	if [ ! -f "$key" ]; then
		echo "rpcrdma-inline: the kernel enforces module signatures ($why), and DKMS has no signing key ($key):" \
			"it built rpcrdma-inline's module unsigned, so the kernel refuses it." \
			"Install openssl (apt-get install openssl, or dnf install openssl), rebuild with" \
			"'dkms remove rpcrdma-inline --all && dkms install rpcrdma-inline/VERSION', then enroll $key as below." >&2
		echo "rpcrdma-inline: to enroll it: mokutil --import $key (choose a one-time password), reboot," \
			"and in the MOK manager that starts choose 'Enroll MOK', 'Continue', 'Yes' and give the password." >&2
		exit 1
	fi
	if command -v mokutil >/dev/null && mokutil --test-key "$key" 2>/dev/null | grep -q 'already enrolled'; then
		exit 0
	fi
	if in_keyring "$key"; then
		exit 0
	fi
	if secure_boot; then
		echo "rpcrdma-inline: the kernel enforces module signatures ($why), and the key DKMS signs" \
			"with ($key) is not enrolled: the kernel would refuse rpcrdma-inline's module." \
			"To enroll it: mokutil --import $key (choose a one-time password), reboot, and in the" \
			"MOK manager that starts choose 'Enroll MOK', 'Continue', 'Yes' and give the password." \
			"From that boot on, rpcrdma-inline's module loads." >&2
	else
		echo "rpcrdma-inline: the kernel enforces module signatures ($why) without Secure Boot:" \
			"it trusts only the keys built into it or added to its keyrings, so it would refuse" \
			"rpcrdma-inline's module," \
			"signed with DKMS's key ($key). Boot without module.sig_enforce=1, or with Secure Boot" \
			"on and that key enrolled (mokutil --import $key, then reboot and enroll it)." >&2
	fi
	exit 1
	;;
*)
	echo "usage: $0 enforced | trusted [KEY]" >&2
	exit 2
	;;
esac
