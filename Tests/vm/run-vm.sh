#!/bin/bash
# Boots an initramfs under QEMU (TCG, no KVM) and supervises it.
#
# usage: Tests/vm/run-vm.sh --initrd FILE [--outdir DIR] [--timeout SEC] [--kernel VMLINUZ]
#                           [--mem MB] [--append "ARGS"] [--quiet] [--kvm] [--arch aarch64]
#                           [-- EXTRA-QEMU-ARGS...]
#   --outdir DIR   serial.log and the screendumps (NAME.ppm) go here (default: a new /tmp/vm-run.* dir)
#   --timeout SEC  QEMU is killed after this many seconds (default 120)
#   --kernel FILE  default: the cached Debian kernel from kernel.sh
#   --append ARGS  added to the kernel command line
#   --quiet        do not echo the guest's serial output to stderr
#   --kvm          use -enable-kvm (off by default: a KVM guest hung on these machines)
#   --arch aarch64 an emulated arm64 board instead of a PC: -M virt with a Cortex-A72 (the Pi 4's
#                  core), virtio-gpu-pci for DRM, the console on ttyAMA0 and the screendump
#                  answers on a virtio console (hvc0); --kernel is then required
#
# Guest markers (see README.md): VM-READY, VM-SCREENDUMP NAME (answered with a QMP
# screendump and "VM-ACK NAME ok|fail" on the guest's ttyS1), VM-TEST-END rc=N.
# Exit status: the scenario's N; 124 timeout; 125 no VM-TEST-END / harness failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

initrd= outdir= timeout=120 kernel= mem=512 append= quiet= kvm=() arch=x86_64
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
        --arch) [ "$2" = aarch64 ] || vm_die "--arch takes aarch64"; arch=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) vm_die "unknown argument: $1" ;;
    esac
done
[ -n "$initrd" ] && [ -f "$initrd" ] || vm_die "--initrd FILE is required (got '${initrd}')"

if [ $arch = aarch64 ]; then
    vm_need_pkgs qemu-system-arm python3
    [ -n "$kernel" ] || vm_die "--arch aarch64 needs --kernel (kernel.sh --arch arm64)"
else
    vm_need_pkgs qemu-system-x86 python3
fi
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

if [ $arch = aarch64 ]; then
    machine=(qemu-system-aarch64 -M virt -cpu cortex-a72 -device virtio-gpu-pci)
    console=ttyAMA0
    ack=(-device virtio-serial-pci -device virtconsole,chardev=ack)
else
    machine=(qemu-system-x86_64 -cpu max -vga std)
    console=ttyS0
    ack=(-serial chardev:ack)
fi
qemu=("${machine[@]}" -m "$mem" -nographic -no-reboot "${kvm[@]}"
    -kernel "$kernel" -initrd "$initrd"
    -append "console=$console quiet panic=-1 $append"
    -monitor none
    -serial "file:$outdir/serial.log"
    -chardev "socket,id=ack,path=$sockdir/ack,server=on,wait=off" "${ack[@]}"
    -qmp "unix:$sockdir/qmp,server=on,wait=off"
    -net none
    "${extra[@]}")

vm_log "outdir $outdir"
# exec: signals sent to this script reach the supervisor, which then stops QEMU.
exec python3 "$VM_DIR/qmp.py" run --log "$outdir/serial.log" --qmp "$sockdir/qmp" --ack "$sockdir/ack" \
    --outdir "$outdir" --timeout "$timeout" $quiet -- "${qemu[@]}"
