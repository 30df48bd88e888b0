#!/bin/sh
# Guest side of Tests/vm/sound-test.sh (busybox sh): the kiosk's sounds on a real ALSA card,
# snd-aloop's loopback: what the kiosk plays on hw:Loopback,0,0 is recorded from
# hw:Loopback,1,0 with arecord, and the recording's onsets are printed for the host.
#   SOUND-STEP NAME ...        a step began (with the guest's uptime)
#   SOUND-EXIT RUN rc=N        how a run ended
#   SOUND-ONSET FRAME LEVEL    a sound started in the recording (48 kHz frames from its start)
#   SOUND-REC frames=N         frames recorded
#   RUN| ...                   a program's own output for run RUN
VM_TAG=SOUND
. /usr/lib/vm-guest.sh

show cards /proc/asound/cards

# 1: a round played live. The capture side opens first and fixes the cable's format
# (S16_LE, stereo, 48 kHz: the kiosk's), so both ends match.
step live
arecord -q -D hw:Loopback,1,0 -f S16_LE -c 2 -r 48000 -t raw -d 14 /tmp/rec.raw > /tmp/arecord.log 2>&1 &
rec_pid=$!
sleep 0.3
bubble-kiosk run --display virtual:1280x800 --input replay:/test/round.evemu --seed 3 --duration 12 \
    --config /test/sounds.conf > /tmp/live.log 2>&1
say EXIT "live rc=$?"
show live /tmp/live.log
wait $rec_pid
say EXIT "arecord rc=$?"
show arecord /tmp/arecord.log
say REC "frames=$(($(wc -c < /tmp/rec.raw) / 4))"
# Onsets: the left channel rises above 1000 after at least 50 ms below 100.
od -An -v -td2 -w4 /tmp/rec.raw | awk '
    { v = $1 < 0 ? -$1 : $1
      if (v > 1000 && quiet >= 2400) print "SOUND-ONSET " NR - 1 " " $1
      if (v < 100) quiet++; else quiet = 0 }
    BEGIN { quiet = 2400 }'

# 2: the latency figures on a device that plays in real time.
step bench
bubble-kiosk bench --frames 5 --size 320x240 --sound-device hw:Loopback,0,0 --json > /tmp/bench.log 2>/dev/null
say EXIT "bench rc=$?"
show bench /tmp/bench.log

# 3: a busy device: another program holds the loopback's first playback substream.
step busy
aplay -q -D hw:Loopback,0,0 -f S16_LE -c 2 -r 48000 -t raw /dev/zero > /dev/null 2>&1 &
hold_pid=$!
sleep 0.5
bubble-kiosk run --display virtual:1280x800 --input replay:/test/round.evemu --seed 3 --duration 7 \
    --config /test/busy.conf --status > /tmp/busy.log 2>&1
say EXIT "busy rc=$?"
show busy /tmp/busy.log
kill $hold_pid
