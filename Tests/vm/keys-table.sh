#!/bin/bash
# What a visitor's keyboard does to a kiosk without the bubble-kiosk-lockdown package: the
# table of keys in doc/installing.md, measured. Four boots of the Debian 12 package (systemd-test.sh
# --keys): the keys the kiosk stops itself, Sleep, and Alt-SysRq-R with the Ctrl-Alt-F2 it
# lets through in one; then one boot for each key that ends the machine (Alt-SysRq-B,
# Alt-SysRq-O, Power). Prints "KEY: WHAT" for every key and checks each against what the
# table says (EXPECTED below); with the package installed the full boot test shows every key
# doing nothing.
#
# The four boots take about eight minutes, and what they measure is decided by a few files
# only (the kiosk's console code, the unit, the keyboard section of the boot test, the cached
# Debian root and kernel): when none of them changed since a run that passed, the table is
# not measured again (its inputs' hash is kept in the VM cache); KEYS_TABLE_FORCE=1 measures it.
#
# usage: Tests/vm/keys-table.sh [--deb FILE] [--verbose]
#   --deb FILE   the package (default: `make deb`, build/bubble-kiosk_*_amd64.deb)
# Ends with "vm-test-keys: N passed, M failed" (or "vm-test-keys: unchanged ...: not measured again").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

deb= verbose=
parse_args '--deb=deb --verbose:verbose=--verbose' "$@"
repo=$(cd "$VM_DIR/../.." && pwd)
inputs=(Tests/vm/keys-table.sh Tests/vm/systemd/keyboard.sh systemd/bubble-kiosk.service
        Sources/KioskPlatform/VirtualTerminal.swift Sources/KioskPlatform/ConsoleDevice.swift
        Sources/CLinux/include/CLinuxVT.h Sources/KioskCore/Operator/ConsoleKeyboard.swift)
inputs_hash=$( { (cd "$repo" && cat "${inputs[@]}"); ls "$VM_CACHE/debian-root" "$VM_CACHE/kernel" 2>/dev/null; } \
    | sha256sum | cut -c1-16)
stamp=$VM_CACHE/keys-table.passed
if [ -z "${KEYS_TABLE_FORCE:-}" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$inputs_hash" ]; then
    echo "vm-test-keys: unchanged since a run that passed (inputs $inputs_hash): not measured again (KEYS_TABLE_FORCE=1 measures it)"
    exit 0
fi
if [ -z "$deb" ]; then
    make -C "$repo" deb >&2
    deb=$(ls "$repo"/build/bubble-kiosk_*_amd64.deb | head -n1)
fi

# The boots, and what each key does in them without the lockdown (the table in doc/installing.md).
boots=("ctrl-alt-f2 ctrl-alt-f3 alt-f2 alt-right ctrl-alt-del text sleep sysrq-r ctrl-alt-f2" sysrq-b sysrq-o power)
expected=(
    "ctrl-alt-f2: nothing: the game stays"
    "ctrl-alt-f3: nothing: the game stays"
    "alt-f2: nothing: the game stays"
    "alt-right: nothing: the game stays"
    "ctrl-alt-del: nothing: the game stays"
    "text: nothing: the game stays"
    "sleep: suspends the machine"
    "sysrq-r: nothing: the game stays"
    "ctrl-alt-f2: switches to tty2, a login prompt"
    "sysrq-b: reboots the machine at once"
    "sysrq-o: powers the machine off at once"
    "power: powers the machine off"
)
rows=()
for keys in "${boots[@]}"; do
    out=$(mktemp)
    bash "$VM_DIR/systemd-test.sh" --deb "$deb" --keys "$keys" $verbose > "$out" 2>&1 || true
    grep -E '^(ok|FAIL) ' "$out" || true
    while IFS= read -r row; do rows+=("$row"); done < <(sed -n 's/^KEYS| //p' "$out")
    grep -qE '^FAIL ' "$out" && { VM_FAILED=$((VM_FAILED + 1)); tail -n 30 "$out"; }
    rm -f "$out"
done
echo "--- without bubble-kiosk-lockdown (the kiosk's own keyboard lock on)"
for i in "${!expected[@]}"; do
    got=${rows[$i]:-missing}
    vm_check "${expected[$i]}" [ "$got" = "${expected[$i]}" ]
    [ "$got" = "${expected[$i]}" ] || echo "       measured: $got"
done
if vm_summary vm-test-keys; then
    mkdir -p "$VM_CACHE" && echo "$inputs_hash" > "$stamp"
else
    exit 1
fi
