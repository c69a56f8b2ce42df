# Runs inside the real-kernel guest (tests/kernel/guest.py). Serves a tape LUN and a disk LUN
# (target "guest"), and a library (target "library": tgt's SMC changer with two tape drives, laid out
# as tests/helpers/tgt_library.py lays it out) from tgtd on the guest's own 127.0.0.1, logs the
# kernel's iSCSI initiator in to them, and runs tapediag against the st/sg nodes the kernel made.
# Every command's stdout, stderr, exit status and seconds land in /out/r/NAME.{out,err,rc,time}
# for the host's tests. The tapediag commands of `run` are forked from one warm interpreter
# (tests/kernel/warm.py: under emulation a fresh start costs more than most commands' work); the steps that
# are about a process of its own (another user, a fault under a running test, the environment's read-only
# session) start a fresh tapediag. Faults (a logout, a killed tgtd) are triggered by progress: the bytes tgtd
# has written (/proc/PID/io), never by a fixed sleep.
set -u
CHECKOUT=$(cat /out/checkout)
T="$CHECKOUT/.venv/bin/tapediag"
PY="$CHECKOUT/.venv/bin/python"
R=/out/r; mkdir -p $R
W=/tmp/w; mkdir -p $W /var/run/tgtd /etc/iscsi /var/lib/iscsi /run/lock/iscsi
export TAPEDIAG_DATA_DIR=/tmp/tapediag-data HOME=/tmp
IQN=iqn.2026-11.org.tapediag:guest
LIB_IQN=iqn.2026-11.org.tapediag:library
PORTAL=127.0.0.1:3260
TRACE=/sys/kernel/tracing

now() { cut -d' ' -f1 /proc/uptime; }
run() {  # run NAME CMD...: record a call (`run NAME $T ARGS`: a tapediag command, from the warm interpreter)
  name=$1; shift
  t0=$(now)
  if [ "$1" = "$T" ]; then
    shift; warm $R/$name.out $R/$name.err "$@"
  else
    "$@" > $R/$name.out 2> $R/$name.err
  fi
  echo $? > $R/$name.rc
  echo "$t0 $(now)" | awk '{print $2 - $1}' > $R/$name.time
}
. "$CHECKOUT/tests/kernel/warm.sh"
adm() { tgtadm --lld iscsi "$@"; }
changer() { adm --op update --mode logicalunit --tid 2 --lun 3 --params "$1"; }

configure_targets() {  # target 1: tape LUN 1, disk LUN 2; target 2: drives LUN 1-2, changer LUN 3
  adm --op new --mode target --tid 1 -T $IQN
  adm --op new --mode logicalunit --tid 1 --lun 1 --bstype ssc --device-type tape -b $W/tape.img
  adm --op new --mode logicalunit --tid 1 --lun 2 --bstype rdwr --device-type disk -b $W/disk.img
  adm --op bind --mode target --tid 1 -I ALL
  adm --op new --mode target --tid 2 -T $LIB_IQN
  for lun in 1 2; do
    adm --op new --mode logicalunit --tid 2 --lun $lun --bstype ssc --device-type tape -b $W/place$lun.img
    adm --op update --mode logicalunit --tid 2 --lun $lun --params online=0
  done
  adm --op new --mode logicalunit --tid 2 --lun 3 --device-type changer -b $W/smc
  changer "media_home=$W/media"
  changer "element_type=4,start_address=500,quantity=2"
  changer "element_type=4,address=500,tid=2,lun=1"
  changer "element_type=4,address=501,tid=2,lun=2"
  changer "element_type=1,start_address=1,quantity=1"
  changer "element_type=2,start_address=1000,quantity=5"
  changer "element_type=3,start_address=10,quantity=1"
  i=0; for barcode in TGT001L6 TGT002L6 CLN001L1; do
    changer "element_type=2,address=$((1000 + i)),barcode=$barcode,sides=1"; i=$((i + 1))
  done
  adm --op bind --mode target --tid 2 -I ALL
}
start_tgtd() {
  tgtd -f --iscsi portal=$PORTAL > /dev/null 2>&1 & TGTD=$!  # in the foreground: $! is the daemon
  for i in $(seq 50); do tgtadm --op show --mode sys > /dev/null 2>&1 && break; sleep 0.1; done
  configure_targets
}
tgt_written() { awk '/^wchar/ {print $2}' /proc/$TGTD/io; }
when_written() {  # when_written BYTES PID: wait until tgtd has written BYTES more, or PID ended (then 1)
  base=$(tgt_written)
  while kill -0 $2 2> /dev/null; do
    [ $(( $(tgt_written) - base )) -ge $1 ] && return 0
    sleep 0.1
  done
  return 1
}
login() { iscsiadm -m node -T $1 -p $PORTAL --login > /dev/null; }
logout() { iscsiadm -m node -T $1 -p $PORTAL --logout > /dev/null 2>&1; }
sg_of() {  # sg_of TID LUN TYPE: the sg node of the LUN on the session to that target (by sysfs)
  for d in /sys/class/scsi_generic/sg*; do
    [ "$(cat $d/device/type)" = "$3" ] || continue
    lun=$(basename $(readlink -f $d/device)); lun=${lun##*:}
    iqn=$(cat $d/device/../../iscsi_session/*/targetname 2> /dev/null)
    [ "$iqn" = "$1" ] && [ "$lun" = "$2" ] && echo /dev/$(basename $d)
  done
}
wait_node() { for i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
running() {  # running SGNODE: wait until the SCSI device behind an sg node is running again (after recovery)
  for i in $(seq 600); do
    [ "$(cat /sys/class/scsi_generic/$(basename $1)/device/state 2> /dev/null)" = running ] && return 0; sleep 0.2
  done; return 1
}
mode_tape() { chgrp tape "$@"; chmod 660 "$@"; }
trace_on() { echo 1 > $TRACE/events/scsi/scsi_dispatch_cmd_start/enable; echo > $TRACE/trace; }
trace_off() { echo 0 > $TRACE/events/scsi/scsi_dispatch_cmd_start/enable; cp $TRACE/trace $R/$1; }

tgtimg --op new --device-type tape --barcode TDG001 --size 512 --type data --file $W/tape.img > /dev/null
dd if=/dev/urandom of=$W/disk.img bs=1M count=8 2> /dev/null
mkdir -p $W/media; head -c 1024 /dev/zero > $W/smc
for b in TGT001L6 TGT002L6 CLN001L1; do
  tgtimg --op new --device-type tape --barcode $b --size 8 --type data --file $W/media/$b > /dev/null
done
for lun in 1 2; do
  tgtimg --op new --device-type tape --barcode PLACE00$lun --size 1 --type data --file $W/place$lun.img > /dev/null
done
warm_start
start_tgtd
echo "InitiatorName=iqn.2026-11.org.tapediag:initiator" > /etc/iscsi/initiatorname.iscsi
iscsid -f & sleep 1
iscsiadm -m discovery -t st -p $PORTAL > /dev/null
# The kernel holds a command while it waits for a broken session to come back, for the node's
# replacement_timeout (120 s by default): shortened here so a dead target fails the command soon.
for iqn in $IQN $LIB_IQN; do
  iscsiadm -m node -T $iqn -p $PORTAL -o update -n node.session.timeo.replacement_timeout -v 5
done
login $IQN
wait_node /dev/nst0

# The sg nodes by peripheral type, as the kernel lists them (udev would do the permissions).
TAPE_SG=$(sg_of $IQN 1 1); DISK_SG=$(sg_of $IQN 2 0)
echo "$TAPE_SG" > $R/tape_sg; echo "$DISK_SG" > $R/disk_sg
mode_tape /dev/nst0 /dev/st0 $TAPE_SG
chgrp disk $DISK_SG; chmod 660 $DISK_SG
sha256sum < $W/disk.img > $R/disk.sha.before

run devices $T devices --json
run info_nst $T info /dev/nst0 --json
run info_sg $T info $TAPE_SG --json
run info_iscsi $T info iscsi://$PORTAL/$IQN/1 --json
run info_disk $T info $DISK_SG
run perf_disk $T tape-perf $DISK_SG --size 16M --force
sha256sum < $W/disk.img > $R/disk.sha.after

run perf_variable $T tape-perf /dev/nst0 --size 16M --io-size 256K --direction write,read --verify --json
sha256sum < $W/tape.img > $R/tape.sha.before
run perf_refused $T tape-perf /dev/nst0 --size 16M
sha256sum < $W/tape.img > $R/tape.sha.after
run perf_fixed $T tape-perf $TAPE_SG --mode fixed --block-size 64K --io-size 256K --size 16M --direction write,read --verify --force --json
run mode_after_fixed $T info /dev/nst0 --json

# The path's largest transfer (issue 27 §4): what tapediag reports is what the kernel takes.
sha256sum < $W/tape.img > $R/tape.sha.before_big
for mib in 8 16; do
  run perf_too_big_$mib $T tape-perf /dev/nst0 --mode fixed --block-size 256K --io-size ${mib}M --size 64M --force
done
sha256sum < $W/tape.img > $R/tape.sha.after_big
run perf_at_limit_sg $T tape-perf $TAPE_SG --mode fixed --block-size 256K --io-size 8M --size 16M --direction write,read --verify --force --json
(cd "$CHECKOUT" && run transfer_probe $PY -m tests.kernel.transfer_probe /dev/nst0 $TAPE_SG)

# A tape written by other programs through the kernel's st driver (tar with 64 KiB records, then dd
# with 32 KiB blocks, each closed by the filemark st writes on close): scan must report that layout.
head -c 1048576 /dev/urandom > $W/payload
tar -cf - -b 128 -C $W payload | wc -c > $R/foreign_tar_bytes
mt -f /dev/nst0 rewind
tar -cf /dev/nst0 -b 128 -C $W payload
dd if=/dev/urandom of=/dev/nst0 bs=32k count=10 2> /dev/null
mt -f /dev/nst0 rewind
sha256sum < $W/tape.img > $R/tape.sha.before_scan
run scan_foreign $T scan /dev/nst0 --json
sha256sum < $W/tape.img > $R/tape.sha.after_scan

# A user in the tape group (not root, no CAP_SYS_RAWIO) on the sg node.
useradd -M -d /tmp -G tape techuser 2> /dev/null
# The checkout and its Python may sit under /root (mode 700): open the directories on the way
# for others, in the guest's overlay only (the host's files are untouched).
for p in "$CHECKOUT/.venv/bin/python" "$(readlink -f "$CHECKOUT/.venv/bin/python")"; do
  d=$(dirname "$p"); while [ "$d" != / ]; do chmod o+rx "$d"; d=$(dirname "$d"); done
done
as_user() { su techuser -s /bin/sh -c "TAPEDIAG_DATA_DIR=/tmp/techuser-data $*"; }
run user_info_sg as_user $T info $TAPE_SG
run user_info_nst as_user $T info /dev/nst0
run user_devices as_user $T devices --json
chmod 600 $TAPE_SG  # the sg node beside is not the user's: st's own refusal, naming it
run user_info_nst_no_sg as_user $T info /dev/nst0
chmod 660 $TAPE_SG

# The library: tgt's changer through the kernel's sg node, mtx as the oracle before and after.
login $LIB_IQN
for i in $(seq 100); do CHANGER=$(sg_of $LIB_IQN 3 8); [ -n "$CHANGER" ] && break; sleep 0.1; done
echo "$CHANGER" > $R/changer_sg
mtx -f $CHANGER status > $R/mtx.before 2>&1
run library $T library $CHANGER --json
run library_move_in $T library $CHANGER --move slot:1 drive:0
mtx -f $CHANGER status > $R/mtx.after_move_in 2>&1
run library_after_move_in $T library $CHANGER --json
run library_move_out $T library $CHANGER --move drive:0 slot:1
mtx -f $CHANGER status > $R/mtx.after_move_out 2>&1
run library_test $T library-test $CHANGER --moves 4 --json
mtx -f $CHANGER status > $R/mtx.after_test 2>&1

# A read-only session, in every position, seen by the kernel: every command dispatched to any LUN
# while it runs (the scsi_dispatch_cmd_start tracepoint), then a write test as the control.
mount -t tracefs nodev $TRACE 2> /dev/null
if [ -e $TRACE/events/scsi/scsi_dispatch_cmd_start/enable ]; then
  trace_on
  run ro_info $T --read-only info /dev/nst0
  run ro_ticket $T ticket --read-only -o $W/ro-ticket.zip /dev/nst0
  run ro_scan $T scan $TAPE_SG --json --read-only
  run ro_assess $T assess /dev/nst0 --read-only
  run ro_perf $T tape-perf --read-only /dev/nst0 --size 16M --force
  run ro_library $T library $CHANGER --read-only
  run ro_library_move $T library --read-only $CHANGER --move slot:2 drive:0
  run ro_library_test $T library-test $CHANGER --moves 2 --read-only
  run ro_library_env env TAPEDIAG_READ_ONLY=1 $T library $CHANGER --move slot:2 drive:0
  trace_off trace.read_only
  mtx -f $CHANGER status > $R/mtx.after_read_only 2>&1
  trace_on
  run assess $T assess /dev/nst0 --size 32M --force --json
  trace_off trace.assess
else
  echo "no tracefs with scsi events in this kernel" > $R/trace.unavailable
  run assess $T assess /dev/nst0 --size 32M --force --json
fi
run ticket $T ticket -o $W/ticket.zip /dev/nst0
cp $W/ticket.zip $R/ticket.zip
logout $LIB_IQN

# The drive vanishes mid-write: the kernel's session logs out under a running test, once tgtd has
# written 8 MiB of it.
$T tape-perf /dev/nst0 --size 400M --io-size 256K --force > $R/vanish.out 2> $R/vanish.err & pid=$!
when_written 8388608 $pid && logout $IQN && echo hit > $R/vanish.trigger
wait $pid; echo $? > $R/vanish.rc
login $IQN; wait_node /dev/nst0
TAPE_SG=$(sg_of $IQN 1 1)

# The target dies mid-write (tgtd killed, the session left waiting for recovery), on the st node and
# then on the sg node; tgtd is started again between them and the session comes back by itself.
for node in nst sg; do
  dev=/dev/nst0; [ $node = sg ] && dev=$TAPE_SG
  echo "$dev" > $R/dead_$node.node
  running $TAPE_SG || echo "the tape LUN did not come back" > $R/dead_$node.setup
  $T tape-perf $dev --size 400M --io-size 256K --force > $R/dead_$node.out 2> $R/dead_$node.err & pid=$!
  if when_written 8388608 $pid; then
    kill -9 $TGTD; t0=$(now); echo hit > $R/dead_$node.trigger
    wait $pid; echo $? > $R/dead_$node.rc
    echo "$t0 $(now)" | awk '{print $2 - $1}' > $R/dead_$node.time  # from the kill to tapediag's exit
    wait $TGTD 2> /dev/null
    start_tgtd
  else
    wait $pid; echo $? > $R/dead_$node.rc
  fi
  TAPE_SG=$(sg_of $IQN 1 1)
done
warm_stop
dmesg > $R/dmesg
exit 0
