#!/bin/bash
# Boots an initramfs under QEMU (TCG, no KVM) and supervises it.
#
# usage: Tests/vm/run-vm.sh --initrd FILE [--outdir DIR] [--timeout SEC] [--kernel VMLINUZ]
#                           [--mem MB] [--append "ARGS"] [--quiet] [--kvm] [--arch aarch64]
#                           [--gpu std|virtio[:N]] [--dt-add FILE] [-- EXTRA-QEMU-ARGS...]
#   --outdir DIR   serial.log and the screendumps (NAME.ppm) go here (default: a new /tmp/vm-run.* dir)
#   --timeout SEC  QEMU is killed after this many seconds (default 120)
#   --kernel FILE  default: the cached Debian kernel from kernel.sh
#   --append ARGS  added to the kernel command line
#   --quiet        do not echo the guest's serial output to stderr
#   --kvm          use -enable-kvm (off by default: a KVM guest hung on these machines)
#   --arch aarch64 an emulated arm64 board instead of a PC: -M virt with a Cortex-A72 (the Pi 4's
#                  core), virtio-gpu-pci for DRM, the console on ttyAMA0 and the screendump
#                  answers on a virtio console (hvc0); --kernel is then required
#   --gpu std      (x86_64, the default) -vga std: bochs-drm in the guest, one connector Virtual-1
#   --gpu virtio:N (x86_64) -vga none -device virtio-gpu-pci,id=gpu,max_outputs=N (N 1..16,
#                  default 1): the guest needs --module virtio_pci --module virtio-gpu in its
#                  initramfs and sees connectors Virtual-1..N; only Virtual-1 is connected at boot.
#                  Another head: force it (`echo on > /sys/class/drm/card0-Virtual-2/status`), or
#                  plug it in from QEMU's side with the guest helper `vm-head 1 1024x768` (a VNC
#                  server on a unix socket per head, -vnc unix:...,display=gpu,head=K, is sent a
#                  SetDesktopSize: a real hotplug, with a HOTPLUG=1 uevent; `vm-head K off` unplugs).
#                  On aarch64 the card is always virtio-gpu-pci (one output) with id gpu.
#                  "VM-SCREENDUMP NAME HEAD" dumps head HEAD of the device with id gpu.
#   --dt-add FILE  (aarch64) device-tree source merged into the board's own tree: QEMU dumps the
#                  tree it makes for this very command line (-machine dumpdtb=), dtc decompiles
#                  it, FILE's nodes are added (a "/ { ... };" block; &{/path} refers to the
#                  board's nodes) and the result boots with -dtb. Kept as OUTDIR/board.dts.
#
# Guest markers (see README.md): VM-READY, VM-SCREENDUMP NAME [HEAD] (answered with a QMP
# screendump and "VM-ACK NAME ok|fail" on the guest's ttyS1), VM-HEAD HEAD WxH|off (--gpu virtio:N;
# answered "VM-ACK head-HEAD ok|fail"), VM-TEST-END rc=N.
# Exit status: the scenario's N; 124 timeout; 125 no VM-TEST-END / harness failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

initrd= outdir= timeout=120 kernel= mem=512 append= quiet= kvm=() arch=x86_64 gpu=std dt_add=
extra=()
parse_args '--initrd=initrd --outdir=outdir --timeout=timeout --kernel=kernel --mem=mem --append=append
    --quiet:quiet=--quiet --kvm:kvm=-enable-kvm --arch=arch(aarch64) --gpu=gpu --dt-add=dt_add --=extra' "$@"
[ -n "$initrd" ] && [ -f "$initrd" ] || die "--initrd FILE is required (got '${initrd}')"
case "$gpu" in
    std) ;;
    virtio) gpu=virtio:1 ;;
    virtio:[1-9]|virtio:1[0-6]) ;;
    *) die "--gpu takes std or virtio:N (N outputs, 1..16), got '$gpu'" ;;
esac
[ $arch = x86_64 ] || [ $gpu = std ] || die "--gpu is for the x86_64 machine (aarch64 always has virtio-gpu-pci)"
[ -z "$dt_add" ] || [ $arch = aarch64 ] || die "--dt-add is for --arch aarch64 (the PC has no device tree)"
[ -z "$dt_add" ] || [ -f "$dt_add" ] || die "no device-tree source at '$dt_add'"

if [ $arch = aarch64 ]; then
    need_host_packages qemu-system-arm python3
    [ -z "$dt_add" ] || need_host_packages device-tree-compiler
    [ -n "$kernel" ] || die "--arch aarch64 needs --kernel (kernel.sh --arch arm64)"
else
    need_host_packages qemu-system-x86 python3
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
    machine=(qemu-system-aarch64 -M virt -cpu cortex-a72 -device virtio-gpu-pci,id=gpu)
    console=ttyAMA0
    ack=(-device virtio-serial-pci -device virtconsole,chardev=ack)
    gpu_id=(--gpu-id gpu)
elif [ $gpu = std ]; then
    machine=(qemu-system-x86_64 -cpu max -vga std)
    console=ttyS0
    ack=(-serial chardev:ack)
    gpu_id=()   # -vga std's device has no id: only head 0 can be dumped
else
    machine=(qemu-system-x86_64 -cpu max -vga none -device "virtio-gpu-pci,id=gpu,max_outputs=${gpu#virtio:}")
    console=ttyS0
    ack=(-serial chardev:ack)
    gpu_id=(--gpu-id gpu --vnc-dir "$sockdir")
    # One VNC server per head, on a unix socket nobody else can reach: qmp.py resizes a head
    # through it (SetDesktopSize), which QEMU hands to virtio-gpu as the monitor's size.
    for ((head = 0; head < ${gpu#virtio:}; head++)); do
        machine+=(-vnc "unix:$sockdir/vnc-$head,id=head$head,display=gpu,head=$head")
    done
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

if [ -n "$dt_add" ]; then
    # The tree depends on the machine, memory, CPUs, kernel command line and initramfs: dumped
    # with the same options (QEMU writes it and exits at once), so only FILE's nodes differ. The
    # serial line, sockets and PCI devices are left out: they are not in the tree.
    "${machine[@]}" -m "$mem" -nographic -kernel "$kernel" -initrd "$initrd" -append "console=$console quiet panic=-1 $append" \
        -monitor none -serial none -net none "${extra[@]}" -machine "dumpdtb=$outdir/board-qemu.dtb" > "$outdir/dumpdtb.log" 2>&1 \
        || die "QEMU could not dump its device tree: $(tail -n 3 "$outdir/dumpdtb.log")"
    # -q: QEMU's own tree draws warnings (unit addresses) that say nothing about FILE.
    { dtc -q -I dtb -O dts "$outdir/board-qemu.dtb" && cat "$dt_add"; } > "$outdir/board.dts" \
        || die "dtc could not decompile QEMU's device tree"
    dtc -q -I dts -O dtb -o "$outdir/board.dtb" "$outdir/board.dts" || die "dtc: $dt_add does not merge into the board's tree"
    qemu+=(-dtb "$outdir/board.dtb")
fi
log "outdir $outdir"
# exec: signals sent to this script reach the supervisor, which then stops QEMU.
exec python3 "$VM_DIR/qmp.py" run --log "$outdir/serial.log" --qmp "$sockdir/qmp" --ack "$sockdir/ack" \
    --outdir "$outdir" --timeout "$timeout" "${gpu_id[@]}" $quiet -- "${qemu[@]}"
