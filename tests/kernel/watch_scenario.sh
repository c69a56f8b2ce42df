# Runs inside the real-kernel guest (tests/kernel/guest.py) for tests/kernel/test_watch_kernel.py: real
# backups through the kernel's st driver (/dev/nst0 over iscsi_tcp to tgtd on the guest's own 127.0.0.1),
# watched by tapediag's watch (the command a technician types, tapediag watch, each watch recorded as a run),
# with sysstat's tapestat beside it as the oracle.
#
# The source: a device-mapper "zero" device (any size, no memory), and a "delay" device over it that
# holds every read 40 ms: the same dd job reads one or the other, throttled far below what the target
# takes, or not. Every step is triggered by progress (bytes the kernel has counted, a line a program
# printed, a process ending), never by a fixed sleep. Results land in /out/r.
set -u
CHECKOUT=$(cat /out/checkout)
PY="$CHECKOUT/.venv/bin/python"
TD="$CHECKOUT/.venv/bin/tapediag"
R=/out/r; mkdir -p $R
W=/tmp/w; mkdir -p $W /var/run/tgtd /etc/iscsi /var/lib/iscsi /run/lock/iscsi
export TAPEDIAG_DATA_DIR=/tmp/tapediag-data HOME=/tmp
IQN=iqn.2026-11.org.tapediag:watch
PORTAL=127.0.0.1:3260
STATS=/sys/class/scsi_tape/nst0/stats
WINDOW=10  # seconds: the watch's --for and tapestat's interval, over the same stretch of the job

now() { cut -d' ' -f1 /proc/uptime; }
stat_of() { cat $STATS/$1; }
modules() {  # device-mapper, from the guest kernel's own modules in this checkout's cache
  kernel=$(ls -d $CHECKOUT/.cache/guest-kernel/*/lib/modules/*/kernel)
  for m in dm-mod dm-zero dm-delay; do insmod $kernel/drivers/md/$m.ko; done
}
sources() {  # /dev/mapper/zeros: 64 GiB of zeros; /dev/mapper/slow: the same, each read held 40 ms
  sectors=$((64 * 1024 * 1024 * 2))
  echo "0 $sectors zero" | DM_DISABLE_UDEV=1 dmsetup create zeros --noudevsync
  echo "0 $sectors delay /dev/mapper/zeros 0 40" | DM_DISABLE_UDEV=1 dmsetup create slow --noudevsync
  for d in /sys/block/dm-*; do [ "$(cat $d/dm/name)" = slow ] && basename $d > $R/slow_dev; done
}
target() {  # one tape LUN, the kernel's initiator logged in to it
  tgtimg --op new --device-type tape --barcode WATCH1 --size 2048 --type data --file $W/tape.img > /dev/null
  tgtd -f --iscsi portal=$PORTAL > /dev/null 2>&1 &
  for i in $(seq 50); do tgtadm --op show --mode sys > /dev/null 2>&1 && break; sleep 0.1; done
  tgtadm --lld iscsi --op new --mode target --tid 1 -T $IQN
  tgtadm --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype ssc --device-type tape -b $W/tape.img
  tgtadm --lld iscsi --op bind --mode target --tid 1 -I ALL
  echo "InitiatorName=iqn.2026-11.org.tapediag:initiator" > /etc/iscsi/initiatorname.iscsi
  iscsid -f & sleep 1
  iscsiadm -m discovery -t st -p $PORTAL > /dev/null
  iscsiadm -m node -T $IQN -p $PORTAL --login > /dev/null
  for i in $(seq 100); do [ -e /dev/nst0 ] && break; sleep 0.1; done
  for d in /sys/class/scsi_tape/nst0/device/scsi_generic/sg*; do echo /dev/$(basename $d); done > $R/tape_sg
  chgrp tape /dev/nst0 /dev/st0 $(cat $R/tape_sg); chmod 660 /dev/nst0 /dev/st0 $(cat $R/tape_sg)
}
. "$CHECKOUT/tests/kernel/warm.sh"
watch_bg() {  # watch_bg NAME ARGS...: a watch in the background (its PID in $WATCH); start time recorded.
  # `watch_bg NAME $TD ...` is forked from the warm interpreter (warm.sh); another (the user's su) is a process
  name=$1; shift
  now > $R/$name.start
  if [ "$1" = "$TD" ]; then
    shift; warm_bg $R/$name $R/$name.out $R/$name.err "$@"; WATCH=$WARM_PID; WARMED=1
  else
    "$@" > $R/$name.out 2> $R/$name.err &
    WATCH=$!; WARMED=""
  fi
}
ready() {  # ready NAME: until the watch has taken its first sample (it says "watching"), or it ended (1)
  while kill -0 $WATCH 2> /dev/null; do
    grep -q "info: watching" $R/$1.err 2> /dev/null && { now > $R/$1.ready; return 0; }
    sleep 0.05
  done
  return 1
}
finish() {  # finish NAME PID: its exit status (NAME.rc) and when it ended (NAME.end), once it ends
  if [ -n "$WARMED" ]; then warm_wait $R/$1 "$2"; else wait $2; echo $? > $R/$1.rc; now > $R/$1.end; fi
}
started() {  # until the kernel has counted a write since $1 bytes, or the job ($2) ended
  while kill -0 $2 2> /dev/null; do
    [ $(stat_of write_byte_cnt) -gt $1 ] && return 0
    sleep 0.05
  done
  return 1
}
as_user() { su techuser -s /bin/sh -c "TAPEDIAG_DATA_DIR=/tmp/techuser-data HOME=/tmp $*"; }
watched_job() {  # watched_job NAME SOURCE: a watch and tapestat over the same WINDOW s of a dd from SOURCE
  # The job runs first, as a backup does when a technician comes to watch it: both windows then lie inside it,
  # so the fraction of a second between the watch's first reading and tapestat's is the same steady job to
  # both (started beside them, the job's start fell inside tapestat's window but partly outside the watch's).
  name=$1
  mt -f /dev/nst0 rewind
  dd if=$2 of=/dev/nst0 bs=256k iflag=direct 2> $R/$name.dd & job=$!
  started $(stat_of write_byte_cnt) $job
  watch_bg $name $TD watch /dev/nst0 --for ${WINDOW}s --json
  if ready $name; then  # the watch has its first reading: tapestat starts beside it
    now > $R/$name.tapestat_start
    tapestat -k -y $WINDOW 1 > $R/$name.tapestat 2>&1 & tapestat=$!
    wait $tapestat
  fi
  finish $name $WATCH
  kill $job; wait $job 2> /dev/null  # the job's own process, by its id
}
user_job() {  # a user without root and outside the tape group watches a throttled job
  mt -f /dev/nst0 rewind
  watch_bg user as_user "$TD watch /dev/nst0 --for 6s --json"
  if ready user; then
    dd if=/dev/mapper/slow of=/dev/nst0 bs=256k iflag=direct 2> /dev/null & job=$!
  else
    job=""
  fi
  finish user $WATCH
  [ -n "$job" ] && { kill $job; wait $job 2> /dev/null; }
}
tar_job() {  # tar_job NAME [watch]: tar of the source tree to the tape, read back; with a watch to its end
  name=$1
  mt -f /dev/nst0 rewind
  if [ $# -gt 1 ]; then
    watch_bg $name $TD watch /dev/nst0 --until-idle 3s --for 300s --json
    ready $name || echo "the watch never started" > $R/$name.setup
  fi
  tar -cf /dev/nst0 -b 512 -C $W src; echo $? > $R/$name.tar_rc
  [ $# -gt 1 ] && finish $name $WATCH
  mt -f /dev/nst0 rewind
  dd if=/dev/nst0 bs=256k 2> /dev/null | sha256sum > $R/$name.tape.sha
}

modules
sources
warm_start
target
useradd -M -d /tmp techuser 2> /dev/null  # in no group of the drive's: its sg node is not for this user
for p in "$PY" "$(readlink -f "$PY")"; do  # the checkout may sit under /root (mode 700): open the way, in the guest only
  d=$(dirname "$p"); while [ "$d" != / ]; do chmod o+rx "$d"; d=$(dirname "$d"); done
done

# Nothing is running on the drive: the watch says so and ends after --until-idle. Meanwhile a process holds the
# drive's sg node open (as a program sending its commands there would): the watch warns that it cannot see those.
sleep 600 < $(cat $R/tape_sg) & sg_holder=$!
watch_bg idle $TD watch /dev/nst0 --until-idle 2s
finish idle $WATCH
kill $sg_holder; wait $sg_holder 2> /dev/null

# SIGTERM (as Ctrl-C) ends a watch within an interval: it says "cancelled" and exits 130.
watch_bg cancel $TD watch /dev/nst0 --for 300s --json
ready cancel && { now > $R/cancel.kill; kill -TERM $WATCH; }
finish cancel $WATCH

# The same dd job, throttled far below what the target takes, then not; then the throttled one watched by a
# user who may neither open the drive's sg node nor look into root's processes.
watched_job slow /dev/mapper/slow
watched_job fast /dev/mapper/zeros
user_job

# A tar of random files, watched until it ends, then the same without the watch: the tape's content must
# not differ, and equals the archive tar writes to a pipe.
mkdir -p $W/src
for i in $(seq 16); do head -c 8388608 /dev/urandom > $W/src/file$i; done
tar -cf - -b 512 -C $W src | sha256sum > $R/tar.pipe.sha
tar_job tar_watched watch
tar_job tar_alone
# The streaming floor: the target now answers INQUIRY as an IBM LTO-2 drive (the kernel's st node and its sg
# node unchanged), whose slowest speed the throttled job is below.
tgtadm --lld iscsi --op update --mode logicalunit --tid 1 --lun 1 --params vendor_id=IBM,product_id=ULT3580-TD2
watched_job floor /dev/mapper/slow
# What the history recorded: one backup-watch run per watch root ran (the user's went to its own data directory).
warm $R/history.json $R/history.err history --json
warm_stop
dmesg > $R/dmesg
exit 0
