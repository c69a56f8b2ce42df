"""SPC-4 / SSC-4 command set: CDB builders and typed response parsers.

Nothing here performs I/O: builders return bytes, parsers take bytes and return
frozen dataclasses or raise ``native.errors.ParseError``. ``app.drive`` joins them
to a transport. Rendering (CLI text, GUI, PDF) lives with the callers.
"""
