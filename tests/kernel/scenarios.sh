# Runs inside the real-kernel guest as its /out/scenario.sh (tests/kernel/guest.py builds it): the
# scenarios listed in /out/scenarios ("NAME SECONDS" a line), one after the other, in one boot.
# Each one sees its own results directory as /out (/out/NAME bound over it) and starts from a guest
# as a fresh boot leaves it: no iSCSI session, no tgtd or iscsid, no iSCSI records, no tape image or
# other file in /tmp, no device-mapper device, no extra user. So each scenario's tgtd, tape images,
# sessions and users are its own; the kernel, its modules and the page cache of the host's files
# (the interpreter, the checkout) are shared, which is the point. A scenario that runs past its
# SECONDS is killed and the next one still runs.
set -u
now() { cut -d' ' -f1 /proc/uptime; }
pids_of() {  # pids_of NAME: the guest's live processes of that command name (zombies left out: nothing reaps
  # the orphans of a scenario promptly); the shell's own read, as a fork costs under emulation
  for f in /proc/[0-9]*/stat; do
    read -r pid comm state rest 2> /dev/null < "$f" || continue
    [ "$comm" = "($1)" ] && [ "$state" != Z ] && echo "$pid"
  done
}
SID=/run/scenario.sid  # the session id of the scenario that ran last (each runs in a session of its own)
kill_session() {  # kill_session SID: its processes but iscsid and tgtd (the logout needs them), killed or not
  for f in /proc/[0-9]*/stat; do
    read -r pid comm state ppid pgrp session rest 2> /dev/null < "$f" || continue
    [ "$session" = "$1" ] && [ "$comm" != "(iscsid)" ] && [ "$comm" != "(tgtd)" ] && kill -9 "$pid" 2> /dev/null
  done
}
clean() {  # what one scenario leaves that the next one would otherwise find
  # Its processes first (one killed at its time limit leaves its jobs running, and a job holding /dev/nst0 open
  # keeps the old tape device, so the next scenario's drive would be nst1), then its sessions, then the daemons.
  if [ -f $SID ]; then read -r sid < $SID; kill_session "$sid"; rm -f $SID; fi
  [ -n "$(pids_of iscsid)" ] && iscsiadm -m node --logoutall=all > /dev/null 2>&1
  for pid in $(pids_of iscsid) $(pids_of tgtd); do kill -9 "$pid"; done
  for i in $(seq 100); do [ -z "$(pids_of iscsid)$(pids_of tgtd)" ] && break; sleep 0.1; done
  for i in $(seq 100); do [ -z "$(ls /sys/class/scsi_tape 2> /dev/null)" ] && break; sleep 0.1; done
  [ -z "$(ls /sys/class/scsi_tape 2> /dev/null)" ] || echo "scenarios: a tape device is left: $(ls /sys/class/scsi_tape)"
  command -v dmsetup > /dev/null && DM_DISABLE_UDEV=1 dmsetup remove_all --noudevsync > /dev/null 2>&1
  userdel techuser > /dev/null 2>&1
  for f in /tmp/*; do [ "$f" = "$KEEP" ] || rm -rf "$f"; done
  rm -rf /etc/iscsi /var/lib/iscsi /run/lock/iscsi /run/tgtd /var/run/tgtd
}
# A checkout under /tmp (guest_init.sh binds it back there) is the one thing in /tmp that clean() keeps.
CHECKOUT=$(cat /out/checkout)
case "$CHECKOUT/" in
  /tmp/*) KEEP=/tmp/$(echo "${CHECKOUT#/tmp/}" | cut -d/ -f1) ;;
  *) KEEP="" ;;
esac
while read -r name seconds; do
  clean
  echo "scenarios: $name starts at $(now) s"
  mount --bind "/out/$name" /out
  ps -e -o pid,stat,time,comm > /out/processes.before  # what the scenario shares the guest's one CPU with
  timeout -s KILL "$seconds" setsid -w sh -c "echo \$\$ > $SID; exec sh /out/scenario.sh" > /out/guest.log 2>&1
  echo $? > /out/scenario.rc
  umount -l /out
  echo "scenarios: $name ends at $(now) s"
done < /out/scenarios
exit 0
