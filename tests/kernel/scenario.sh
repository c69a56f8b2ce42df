# Runs inside the real-kernel guest (tests/kernel/guest.py). Serves a tape LUN and a disk
# LUN from tgtd on the guest's own 127.0.0.1, logs the kernel's iSCSI initiator in to
# them, and runs tapediag against the st/sg nodes the kernel made. Every command's
# stdout, stderr and exit status land in /out/r/NAME.{out,err,rc} for the host's tests.
set -u
CHECKOUT=$(cat /out/checkout)
T="$CHECKOUT/.venv/bin/tapediag"
R=/out/r; mkdir -p $R
W=/tmp/w; mkdir -p $W /var/run/tgtd /etc/iscsi /var/lib/iscsi /run/lock/iscsi
export TAPEDIAG_DATA_DIR=/tmp/tapediag-data HOME=/tmp
IQN=iqn.2026-11.org.tapediag:guest

run() {  # run NAME CMD...: record a tapediag call
  name=$1; shift
  "$@" > $R/$name.out 2> $R/$name.err; echo $? > $R/$name.rc
}

tgtimg --op new --device-type tape --barcode TDG001 --size 512 --type data --file $W/tape.img > /dev/null
dd if=/dev/urandom of=$W/disk.img bs=1M count=8 2> /dev/null
tgtd --iscsi portal=127.0.0.1:3260 & sleep 1
tgtadm --lld iscsi --op new --mode target --tid 1 -T $IQN
tgtadm --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype ssc --device-type tape -b $W/tape.img
tgtadm --lld iscsi --op new --mode logicalunit --tid 1 --lun 2 --bstype rdwr --device-type disk -b $W/disk.img
tgtadm --lld iscsi --op bind --mode target --tid 1 -I ALL
echo "InitiatorName=iqn.2026-11.org.tapediag:initiator" > /etc/iscsi/initiatorname.iscsi
iscsid -f & sleep 1
iscsiadm -m discovery -t st -p 127.0.0.1:3260 > /dev/null
iscsiadm -m node -T $IQN -p 127.0.0.1:3260 --login > /dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /dev/nst0 ] && break; sleep 1; done

# The sg nodes by peripheral type, as the kernel lists them (udev would do the permissions).
TAPE_SG=; DISK_SG=
for d in /sys/class/scsi_generic/sg*; do
  case $(cat $d/device/type) in
    1) TAPE_SG=/dev/$(basename $d) ;;
    0) DISK_SG=/dev/$(basename $d) ;;
  esac
done
echo "$TAPE_SG" > $R/tape_sg; echo "$DISK_SG" > $R/disk_sg
chgrp tape /dev/nst0 /dev/st0 $TAPE_SG; chmod 660 /dev/nst0 /dev/st0 $TAPE_SG
chgrp disk $DISK_SG; chmod 660 $DISK_SG
sha256sum < $W/disk.img > $R/disk.sha.before

run devices $T devices --json
run info_nst $T info /dev/nst0 --json
run info_sg $T info $TAPE_SG --json
run info_iscsi $T info iscsi://127.0.0.1:3260/$IQN/1 --json
run info_disk $T info $DISK_SG
run perf_disk $T tape-perf $DISK_SG --size 16M --force
sha256sum < $W/disk.img > $R/disk.sha.after

run perf_variable $T tape-perf /dev/nst0 --size 16M --io-size 256K --direction write,read --verify --json
sha256sum < $W/tape.img > $R/tape.sha.before
run perf_refused $T tape-perf /dev/nst0 --size 16M
sha256sum < $W/tape.img > $R/tape.sha.after
run perf_fixed $T tape-perf $TAPE_SG --mode fixed --block-size 64K --io-size 256K --size 16M --direction write,read --verify --force --json
run mode_after_fixed $T info /dev/nst0 --json
sha256sum < $W/tape.img > $R/tape.sha.before_big
run perf_too_big $T tape-perf /dev/nst0 --mode fixed --block-size 256K --io-size 16M --size 64M --force
sha256sum < $W/tape.img > $R/tape.sha.after_big
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
cat /sys/class/scsi_host/host*/max_sectors /sys/class/scsi_host/host*/sg_tablesize > $R/host_limits 2>&1

# A user in the tape group (not root, no CAP_SYS_RAWIO) on the sg node.
useradd -M -d /tmp -G tape techuser 2> /dev/null
# The checkout and its Python may sit under /root (mode 700): open the directories on the way
# for others, in the guest's overlay only (the host's files are untouched).
for p in "$CHECKOUT/.venv/bin/python" "$(readlink -f "$CHECKOUT/.venv/bin/python")"; do
  d=$(dirname "$p"); while [ "$d" != / ]; do chmod o+rx "$d"; d=$(dirname "$d"); done
done
run user_info_sg su techuser -s /bin/sh -c "TAPEDIAG_DATA_DIR=/tmp/techuser-data $T info $TAPE_SG"
run user_info_nst su techuser -s /bin/sh -c "TAPEDIAG_DATA_DIR=/tmp/techuser-data $T info /dev/nst0"
run user_devices su techuser -s /bin/sh -c "TAPEDIAG_DATA_DIR=/tmp/techuser-data $T devices --json"

# The drive vanishes mid-write: the kernel's session logs out under a running test.
$T tape-perf /dev/nst0 --size 400M --io-size 256K --force > $R/vanish.out 2> $R/vanish.err &
pid=$!
sleep 6
iscsiadm -m node -T $IQN -p 127.0.0.1:3260 --logout > /dev/null 2>&1
wait $pid; echo $? > $R/vanish.rc
exit 0
