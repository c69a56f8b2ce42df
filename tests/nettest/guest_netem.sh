# Runs inside the real-kernel guest (tests/kernel/guest.py): Debian's kernel has netem, this
# machine's may not. Loads sch_netem from the unpacked guest kernel, then measures the
# shaped namespace path (rate and delay) with guest_netem.py; results in /out/netem.*.
set -u
CHECKOUT=$(cat /out/checkout)
V=$(uname -r)
insmod "$CHECKOUT/.cache/guest-kernel/$V/lib/modules/$V/kernel/net/sched/sch_netem.ko" 2> /out/insmod.err
mkdir -p /run/netns
export HOME=/tmp TAPEDIAG_DATA_DIR=/tmp/tapediag-data PYTHONPATH="$CHECKOUT"
cd "$CHECKOUT" && .venv/bin/python tests/nettest/guest_netem.py > /out/netem.json 2> /out/netem.err
echo $? > /out/netem.rc
