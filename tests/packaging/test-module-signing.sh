#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# scripts/check-module-signing.sh, what install.sh asks before it replaces
# the loaded rpcrdma, against a fake sysfs (efivars' SecureBoot variable,
# sig_enforce, lockdown), /proc/keys and /etc/dkms, with a stub mokutil
# first in PATH: nothing enforced; module.sig_enforce=1 with DKMS's key
# missing, present but in no keyring, and in a keyring; Secure Boot with
# the key not enrolled and enrolled; lockdown; framework.conf's
# mok_certificate. The key is made with openssl (skipped without it).
#
# usage: test-module-signing.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

cmd="$REPO/scripts/check-module-signing.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
F="$work/root"

new_root() {
	rm -rf "$F"
	mkdir -p "$F/sys/module/module/parameters" "$F/sys/kernel/security" "$F/proc" "$F/dkms" "$F/bin" "$F/lib"
	echo N >"$F/sys/module/module/parameters/sig_enforce"
	echo "[none] integrity confidentiality" >"$F/sys/kernel/security/lockdown"
	: >"$F/proc/keys"
	# mokutil: EFI variables not supported unless FAKE_MOK says what to answer
	cat >"$F/bin/mokutil" <<'EOF'
#!/bin/bash
case $1 in
--sb-state) echo "EFI variables are not supported on this system" >&2; exit 1 ;;
--test-key) [ -n "${FAKE_MOK:-}" ] || exit 1; echo "$2 is $FAKE_MOK" ;;
esac
EOF
	chmod +x "$F/bin/mokutil"
}
secure_boot() { # 0|1: the SecureBoot EFI variable (4 bytes of attributes, then the value)
	mkdir -p "$F/sys/firmware/efi/efivars"
	{
		printf '\006\000\000\000'
		if [ "$1" = 1 ]; then printf '\001'; else printf '\000'; fi
	} >"$F/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
}
run() { # ARGS...: sets rc, out (stdout and stderr)
	rc=0
	out=$(env PATH="$F/bin:$PATH" RPCRDMA_INLINE_SYSFS="$F/sys" RPCRDMA_INLINE_PROC="$F/proc" \
		RPCRDMA_INLINE_DKMS_CONF="$F/dkms" "$cmd" "$@" 2>&1) || rc=$?
}

new_root
run enforced
expect_eq "nothing enforced: 'enforced' exits 1, silent" "1|" "$rc|$out"
run trusted "$F/none.pub"
expect_eq "nothing enforced: 'trusted' exits 0, even without a key" "0|" "$rc|$out"

new_root
echo Y >"$F/sys/module/module/parameters/sig_enforce"
run enforced
expect_eq "module.sig_enforce=1: 'enforced' says so" "0|module.sig_enforce=1" "$rc|$out"
run trusted "$F/lib/mok.pub"
expect_eq "sig_enforce, no key: 'trusted' exits 1" 1 "$rc"
expect_grep "sig_enforce, no key: says DKMS built it unsigned and to install openssl" \
	"DKMS has no signing key \\($F/lib/mok.pub\\).*unsigned.*apt-get install openssl" "$out"

if command -v openssl >/dev/null; then
	openssl req -new -x509 -nodes -days 1 -subj "/CN=DKMS module signing key" -newkey rsa:2048 \
		-keyout "$F/lib/mok.key" -outform DER -out "$F/lib/mok.pub" >/dev/null 2>&1
	cp "$F/lib/mok.pub" "$work/mok.pub"
	skid=$(openssl x509 -inform DER -in "$work/mok.pub" -noout -ext subjectKeyIdentifier |
		sed -n 's/^[[:space:]]*\([0-9A-F:]\{20,\}\)$/\1/p' | tr -d ':' | tr 'A-F' 'a-f')
	run trusted "$F/lib/mok.pub"
	expect_eq "sig_enforce, key in no keyring: 'trusted' exits 1" 1 "$rc"
	expect_grep "... says the kernel would refuse ours, without Secure Boot, and what to do" \
		"enforces module signatures \\(module.sig_enforce=1\\) without Secure Boot.*refuse.*Boot without module.sig_enforce=1" "$out"
	printf '1a2b3c4d I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: %s: X509.rsa 0123abcd []\n' \
		"$skid" >"$F/proc/keys"
	run trusted "$F/lib/mok.pub"
	expect_eq "sig_enforce, key in a kernel keyring (/proc/keys): 'trusted' exits 0" "0|" "$rc|$out"

	new_root
	cp "$work/mok.pub" "$F/lib/mok.pub"
	secure_boot 1
	echo "none [integrity] confidentiality" >"$F/sys/kernel/security/lockdown"
	run enforced
	expect_eq "Secure Boot, locked down: 'enforced' says both" \
		"0|Secure Boot is on, the kernel is locked down ([integrity])" "$rc|$out"
	FAKE_MOK="not enrolled" run trusted "$F/lib/mok.pub"
	expect_eq "Secure Boot, key not enrolled: 'trusted' exits 1" 1 "$rc"
	expect_grep "... says to run mokutil --import KEY, reboot and enroll" \
		"is not enrolled: the kernel would refuse.*mokutil --import $F/lib/mok.pub .*reboot.*Enroll MOK" "$out"
	FAKE_MOK="already enrolled" run trusted "$F/lib/mok.pub"
	expect_eq "Secure Boot, key enrolled (mokutil --test-key): 'trusted' exits 0" "0|" "$rc|$out"

	# Another certificate named in DKMS's framework.conf
	mkdir -p "$F/dkms/framework.conf.d"
	echo "mok_certificate=\"$F/lib/other.pub\"" >"$F/dkms/framework.conf.d/key.conf"
	cp "$work/mok.pub" "$F/lib/other.pub"
	FAKE_MOK="not enrolled" run trusted
	expect_grep "framework.conf's mok_certificate is the key asked about" "mokutil --import $F/lib/other.pub " "$out"
else
	tap_ok "# SKIP the key's cases: no openssl"
fi

new_root
secure_boot 0
run enforced
expect_eq "SecureBoot variable 0: not enforced" 1 "$rc"
run nonsense
expect_eq "usage: exit 2" 2 "$rc"
tap_end
