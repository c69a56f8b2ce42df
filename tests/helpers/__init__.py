"""Shared fakes and fixtures: a real tgtd, a fault-injecting transport, temporary data dirs."""
