#!/bin/busybox sh
# /init of the real-kernel tests' initramfs (tests/kernel/guest.py builds it).
# Loads the SCSI, iSCSI and 9p modules, mounts the host's root read-only over virtio-9p
# under a tmpfs overlay (so /tmp, /run and /etc are writable inside the guest only; the checkout stays
# reachable at its own path even under /tmp or /run),
# runs /out/scenario.sh in it and powers off. Results go back through the writable
# "out" share. The guest has no network device: only its own loopback.
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do insmod "/lib/modules/$m.ko" || echo "guest: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose hostroot /host || echo "guest: cannot mount the host's root"
mount -t 9p -o trans=virtio,version=9p2000.L,rw out /out || echo "guest: cannot mount the out share"
mount -t tmpfs tmpfs /ov && mkdir -p /ov/upper /ov/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/ov/upper,workdir=/ov/work /newroot || echo "guest: overlay failed"
mkdir -p /newroot/out && mount --move /out /newroot/out
ip link set lo up
echo "guest: up after $(cut -d' ' -f1 /proc/uptime) s"
# The guest's own /tmp and /run hide the host's: a checkout under one of them is bound aside first and back
# at its own path after (a no-op for a checkout elsewhere).
chroot /newroot /bin/sh -c 'mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev;
  ck=$(cat /out/checkout); mkdir -p /mnt/checkout; mount --bind "$ck" /mnt/checkout;
  mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run; mkdir -p "$ck"; mount --bind /mnt/checkout "$ck";
  cd /; sh /out/scenario.sh > /out/guest.log 2>&1; echo $? > /out/scenario.rc'
echo "guest: done after $(cut -d' ' -f1 /proc/uptime) s"
sync; poweroff -f
