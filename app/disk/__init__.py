"""The disk tests: create test data (restore side) and read data (backup side).

Engines have the shape of every tapediag test, ``Test(params).run(sink, cancel)``::

    from app.disk import CreateDataParams, CreateDataTest, ReadDataParams, ReadDataTest, clean
    result = CreateDataTest(CreateDataParams("/data/t", streams=4)).run(sink, cancel)
    result = ReadDataTest(ReadDataParams("/data/t", streams=4)).run(sink, cancel)
    clean("/data/t")            # removes exactly what create-data made

Results (``CreateDataResult``, ``ReadDataResult``) share ``DiskResult``'s fields and
``to_dict()``; the hot loops live in ``native.diskio``.
"""
from app.disk.create import CreateDataTest
from app.disk.manifest import MANIFEST_NAME, CleanResult, clean
from app.disk.params import PRESETS, CreateDataParams, ReadDataParams
from app.disk.read import ReadDataTest
from app.disk.results import CreateDataResult, DiskResult, LatencyStats, ReadDataResult, StreamResult, TreeWalk

__all__ = [
    "PRESETS", "CreateDataParams", "CreateDataTest", "MANIFEST_NAME", "CleanResult", "clean", "ReadDataParams",
    "ReadDataTest", "CreateDataResult", "DiskResult", "LatencyStats", "ReadDataResult", "StreamResult", "TreeWalk",
]
