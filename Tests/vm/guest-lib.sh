# Shared helpers for the guest scenarios. build-initramfs.sh installs this file as
# /usr/lib/vm-guest.sh in every initramfs; a scenario sets its marker tag and sources it:
#   VM_TAG=E2E
#   . /usr/lib/vm-guest.sh
# Scenarios run under busybox ash, so this is plain POSIX sh (lib.sh is bash, for the host).
# Functions keep their scratch variables in _vm_* names: sh has no locals, and a scenario's own
# loop counter must survive a wait_for.

# say KIND TEXT...: a marker line "$VM_TAG-KIND TEXT" for the host to grep.
say() { _vm_kind=$1; shift; echo "$VM_TAG-$_vm_kind${*:+ $*}"; }

# step NAME...: "$VM_TAG-STEP NAME... uptime=S", to follow the scenario and time its steps.
step() { say STEP "$* uptime=$(cut -d' ' -f1 /proc/uptime)"; }

# show NAME FILE: the file's lines prefixed "NAME| " (the host's vm_lines NAME reads them back).
show() { sed "s/^/$1| /" "$2"; }

# A wait's SECONDS are what it takes on a quiet machine; it gives up only after three times that
# (VM_WAIT_SCALE), because a wait ends as soon as it is met and its limit only matters when
# something is broken, while a loaded CI host can make a kiosk's cold start take seconds.
VM_WAIT_SCALE=3
# While VM_WAIT_PID names a process (the kiosk a part of a scenario watches), waits give up as
# soon as it has ended: its log will not change any more. finish clears it.
VM_WAIT_PID=

# poll SECONDS WHAT COMMAND...: runs COMMAND every 0.1 s until it succeeds. On timeout, or once
# $VM_WAIT_PID has ended (after one more try), it says "$VM_TAG-WAIT timeout: WHAT" (or
# "exited: WHAT") and returns 1.
poll() {
    _vm_n=0 _vm_limit=$(($1 * 10 * VM_WAIT_SCALE)) _vm_what=$2
    shift 2
    until "$@"; do
        if [ -n "$VM_WAIT_PID" ] && ! kill -0 "$VM_WAIT_PID" 2>/dev/null; then
            "$@" && return 0
            say WAIT "exited (pid $VM_WAIT_PID): $_vm_what"; return 1
        fi
        _vm_n=$((_vm_n + 1))
        [ $_vm_n -gt $_vm_limit ] && { say WAIT "timeout: $_vm_what"; return 1; }
        sleep 0.1
    done
}

# has FILE REGEX: a line of FILE matches (extended regex).
has() { grep -qE "$2" "$1" 2>/dev/null; }

# count FILE REGEX: matching lines so far (0 while FILE does not exist, so a wait_more from
# there waits for its first line).
count() { if [ -e "$1" ]; then grep -cE "$2" "$1" || true; else echo 0; fi; }

# wait_for FILE REGEX SECONDS: until a line of FILE matches.
wait_for() { poll "$3" "'$2' in $1" has "$1" "$2"; }

# wait_more FILE REGEX N SECONDS: until more than N lines of FILE match.
wait_more() { poll "$4" "more than $3 of '$2' in $1" _vm_more "$1" "$2" "$3"; }
_vm_more() { [ "$(count "$1" "$2")" -gt "$3" ]; }

# new_device NAME DESC: a uinput device made by evemu-device from the description DESC, kept
# running in the background (it lives until it is killed: see unplug). Sets dev_pid and
# dev_node (/dev/input/eventN) and says "$VM_TAG-DEVICE NAME NODE".
new_device() {
    evemu-device "$2" > "/tmp/$1.dev" 2>&1 &
    dev_pid=$!
    wait_for "/tmp/$1.dev" '/dev/input/event[0-9]+' 10 || cat "/tmp/$1.dev"
    dev_node=$(grep -oE '/dev/input/event[0-9]+' "/tmp/$1.dev" | head -n1)
    say DEVICE "$1 $dev_node"
}

# unplug PID: kills an evemu-device (its node goes away) and waits until it is gone.
unplug() {
    kill "$1"
    wait "$1" 2>/dev/null
}

# finish RUN: stops the program started as $kiosk_pid with output in /tmp/RUN.log (SIGTERM,
# unless it has ended already), says "$VM_TAG-EXIT RUN rc=N", clears VM_WAIT_PID and shows the
# log as "RUN| ...".
finish() {
    if kill -0 "$kiosk_pid" 2>/dev/null; then kill -TERM "$kiosk_pid"; fi
    wait "$kiosk_pid"
    say EXIT "$1 rc=$?"
    VM_WAIT_PID=
    show "$1" "/tmp/$1.log"
}

# add_kiosk_user: an ordinary user "kiosk" (uid 1000, in no other group), for permission tests.
add_kiosk_user() {
    # The initramfs root is packed from a mktemp -d folder: make sure others can reach /bin.
    chmod 755 /
    echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd
    echo 'kiosk:x:1000:1000:kiosk:/tmp:/bin/sh' >> /etc/passwd
    printf 'root:x:0:\nkiosk:x:1000:\n' > /etc/group
}

# as_user CMD...: runs the command line as that user (busybox su needs no password as root).
as_user() { su -s /bin/sh kiosk -c "exec $*"; }
