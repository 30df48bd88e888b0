#!/bin/bash
# Boots an initramfs under QEMU (TCG, no KVM) and supervises it.
#
# usage: Tests/vm/run-vm.sh --initrd FILE [--outdir DIR] [--timeout SEC] [--kernel VMLINUZ]
#                           [--mem MB] [--append "ARGS"] [--quiet] [--kvm] [-- EXTRA-QEMU-ARGS...]
#   --outdir DIR   serial.log and the screendumps (NAME.ppm) go here (default: a new /tmp/vm-run.* dir)
#   --timeout SEC  QEMU is killed after this many seconds (default 120)
#   --kernel FILE  default: the cached Debian kernel from kernel.sh
#   --append ARGS  added to the kernel command line
#   --quiet        do not echo the guest's serial output to stderr
#   --kvm          use -enable-kvm (off by default: a KVM guest hung on these machines)
#
# Guest markers (see README.md): VM-READY, VM-SCREENDUMP NAME (answered with a QMP
# screendump and "VM-ACK NAME ok|fail" on the guest's ttyS1), VM-TEST-END rc=N.
# Exit status: the scenario's N; 124 timeout; 125 no VM-TEST-END / harness failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

initrd= outdir= timeout=120 kernel= mem=512 append= quiet= kvm=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --initrd) initrd=$2; shift 2 ;;
        --outdir) outdir=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --kernel) kernel=$2; shift 2 ;;
        --mem) mem=$2; shift 2 ;;
        --append) append=$2; shift 2 ;;
        --quiet) quiet=--quiet; shift ;;
        --kvm) kvm=(-enable-kvm); shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) vm_die "unknown argument: $1" ;;
    esac
done
[ -n "$initrd" ] && [ -f "$initrd" ] || vm_die "--initrd FILE is required (got '${initrd}')"

vm_need_pkgs qemu-system-x86 python3
if [ -z "$kernel" ]; then
    eval "$("$VM_DIR/kernel.sh")"
    kernel=$VMLINUZ
fi
[ -n "$outdir" ] || outdir=$(mktemp -d /tmp/vm-run.XXXXXX)
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
# Unix socket paths must be short (108 bytes), so they live in their own /tmp dir.
# qmp.py removes the sockets and this dir when it ends.
sockdir=$(mktemp -d /tmp/vm-sock.XXXXXX)

qemu=(qemu-system-x86_64 -m "$mem" -cpu max -nographic -vga std -no-reboot "${kvm[@]}"
    -kernel "$kernel" -initrd "$initrd"
    -append "console=ttyS0 quiet panic=-1 $append"
    -monitor none
    -serial "file:$outdir/serial.log"
    -chardev "socket,id=ack,path=$sockdir/ack,server=on,wait=off" -serial chardev:ack
    -qmp "unix:$sockdir/qmp,server=on,wait=off"
    -net none
    "${extra[@]}")

vm_log "outdir $outdir"
# exec: signals sent to this script reach the supervisor, which then stops QEMU.
exec python3 "$VM_DIR/qmp.py" run --log "$outdir/serial.log" --qmp "$sockdir/qmp" --ack "$sockdir/ack" \
    --outdir "$outdir" --timeout "$timeout" $quiet -- "${qemu[@]}"
