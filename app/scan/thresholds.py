"""The media scan's thresholds, apart from its results: ``info`` reads one of them for a drive's earlier
visits (``app.visits``) and should not load the results' machinery to do so (issue 32 §3).
``app.scan.results`` imports them from here, so every other reader finds them there as before."""
from __future__ import annotations

#: Corrected read errors per GB read above which the drive's reading is worth a look. tapediag's own
#: threshold (no vendor publishes one); the figure itself is always shown. Who the errors belong to is
#: decided by ``app.scan.rules``: on their own, spread over the whole read, they point at the head.
CORRECTED_PER_GB_MONITOR = 1.0
#: Pauses while the host kept up (repositioning on reads) above which the cartridge is worth watching.
REPOSITIONS_MONITOR = 3
#: A zone read at less than this share of the typical (median) zone of its record size is a slow zone:
#: the drive retried or crept over that stretch of tape. tapediag's threshold; every zone's rate is kept.
SLOW_ZONE_SHARE = 0.5
#: Full zones of one record size needed before any of them is called slow: the median of two or three says too little.
SLOW_ZONE_MIN_ZONES = 4
#: A zone the drive read in less time or fewer READs than this is not judged: a few milliseconds of the host's
#: scheduling (or one iSCSI round trip) would make it "slow" by chance. Use a larger ``--zone`` to judge such a tape.
SLOW_ZONE_MIN_SECONDS = 1.0
SLOW_ZONE_MIN_READS = 16
#: TapeAlert flags about the medium (SSC-5 Annex A): a cartridge showing them is retired.
MEDIA_FLAGS_RETIRE = {0x04: "media", 0x05: "read failure", 0x07: "media life", 0x08: "not data grade",
                      0x0F: "cartridge memory chip failure"}
