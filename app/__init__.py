"""tapediag's Qt-free core: SCSI command set, drive model, tests, rules, reports, CLI."""

__version__ = "0.1.0"
