"""The PySide6 desktop app. The only package that imports Qt; it calls app/ and
receives progress from worker threads through signals."""
