"""The benchmark's anchor commands (issue 32 §2): any command given on the command line is run as the
anchor, its placeholders filled in, and timed by what it prints, or as a whole process when it prints
nothing the benchmark can read. These tests hold the harness to that; the figures are the benchmark's."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from benchmarks.anchor_cmd import Anchor, AnchorError, Shape, argv_of, parse_anchor, parse_timings

SHAPE = Shape("iscsi://127.0.0.1:3260/iqn.2026-11.org.example:t/1", True, 262144, 1048576, 8)
PY = shlex.quote(sys.executable)


def test_placeholders_are_filled_in_word_by_word() -> None:
    argv = argv_of("loop --lun {url} --size {bytes} --bs {block} --io {io} -n {count} {mode} {op}", SHAPE, "write+read",
                   build_loops=False)
    assert argv == ["loop", "--lun", SHAPE.url, "--size", str(8 * 1048576), "--bs", "262144", "--io", "1048576",
                    "-n", "8", "fixed", "write+read"]


def test_an_unknown_placeholder_is_one_clear_error_naming_the_known_ones() -> None:
    with pytest.raises(AnchorError, match=r"unknown placeholder \{lun\}.*\{url\}"):
        parse_anchor("mine=loop {lun}")


def test_an_anchor_is_a_built_in_name_a_named_command_or_a_bare_command() -> None:
    assert parse_anchor("plain").name == "plain"
    assert parse_anchor("mine=/opt/x/loop --lun {url}").name == "mine"
    bare = parse_anchor("/opt/x/my_loop --lun {url} --size {bytes} --bs {block}")
    assert (bare.name, bare.template) == ("my_loop", "/opt/x/my_loop --lun {url} --size {bytes} --bs {block}")
    assert parse_anchor("env LOOP_DEPTH=1 my_loop {url}").name == "env"  # an = later on is not a name
    with pytest.raises(AnchorError, match="give a command"):
        parse_anchor("mine=  ")


def test_timing_lines_are_read_by_direction() -> None:
    got = parse_timings("login ok\nop=write bytes=1000000 seconds=0.5 cpu_us_per_cmd=12.5 fm_seconds=0.25\n"
                        "op=read seconds=0.25\n", default_bytes=2000000)
    assert got["write"].mb_s == pytest.approx(2.0)
    assert got["write"].with_fm_mb_s == pytest.approx(1000000 / 0.75 / 1e6)
    assert got["write"].cpu_us_per_cmd == 12.5
    assert got["read"].nbytes == 2000000 and got["read"].fm_seconds is None and got["read"].with_fm_mb_s is None


def test_an_anchor_that_prints_its_timings_is_taken_at_its_word(tmp_path: Path) -> None:
    script = tmp_path / "loop.py"
    script.write_text('print("op=write seconds=2.0 fm_seconds=0.5")\nprint("op=read seconds=1.0")\n')
    anchor = parse_anchor(f"printing={PY} {shlex.quote(str(script))} {{url}} {{op}}")
    got = anchor.run(SHAPE, sync=False)
    assert anchor.whole_process is False
    assert got["write"].seconds == 2.0 and got["write"].fm_seconds == 0.5 and got["read"].seconds == 1.0
    assert not got["write"].whole_process


def test_a_silent_anchor_is_timed_as_a_whole_process_once_per_direction(tmp_path: Path) -> None:
    log = tmp_path / "ops"
    anchor = parse_anchor(f"silent={PY} -c 'import sys; open(sys.argv[1], \"a\").write(sys.argv[2] + \"\\n\")' "
                          f"{shlex.quote(str(log))} {{op}}")
    got = anchor.run(SHAPE, sync=False)
    assert anchor.whole_process is True
    assert log.read_text().split() == ["write+read", "write", "read"]  # the first run told it prints nothing
    assert got["write"].whole_process and got["read"].whole_process
    assert got["write"].nbytes == SHAPE.io * SHAPE.count and got["write"].seconds > 0


def test_a_silent_anchor_without_op_cannot_be_told_what_to_do() -> None:
    anchor = Anchor("mute", f"{PY} -c pass {{url}}")
    with pytest.raises(AnchorError, match=r"needs \{op\}"):
        anchor.run(SHAPE, sync=False)


def test_a_failing_anchor_is_one_line_with_its_last_words() -> None:
    anchor = Anchor("broken", f"{PY} -c 'import sys; sys.exit(\"login failed: no target\")' {{op}}")
    with pytest.raises(AnchorError, match="anchor broken exited 1: login failed: no target"):
        anchor.run(SHAPE, sync=False)


@pytest.mark.tgt
@pytest.mark.slow
def test_one_pair_of_every_side_against_a_real_tgtd(tgt_factory) -> None:  # type: ignore[no-untyped-def]
    """The engine's side, the independent loop and the project's loop each write and read back 4 MiB
    from BOT on tgtd as installed, and each prints both directions' data time and closing filemark."""
    from benchmarks.bench_tape_vs_c import EngineSide, run_config

    target = tgt_factory(size_mb=64)
    shape = Shape(target.url, False, 262144, 262144, 16)
    runs = run_config([EngineSide("2:1"), parse_anchor("plain"), parse_anchor("project")], shape, pairs=1)
    assert runs.sides == ["engine", "plain", "project"] and len(runs.rounds) == 1
    for side in runs.sides:
        for direction in ("write", "read"):
            t = runs.rounds[0][side][direction]
            assert t.nbytes == 16 * 262144 and t.seconds > 0 and t.fm_seconds is not None and not t.whole_process
    assert [r.type for r in target.show_blocks()] == ["BOT", *["DATA"] * 16, "FILEMARK", "EOD"]


def test_the_readme_table_is_the_paired_ratios_of_the_json_split_by_order() -> None:
    from benchmarks.tape_vs_c_tables import rows

    def timing(mb_per_s: float) -> dict[str, float]:
        return {"nbytes": 1e9, "seconds": 1e9 / (mb_per_s * 1e6)}

    # rounds 0 and 2: the engine ran first; round 1: the anchor did
    engine = [(500, 400), (450, 380), (520, 410)]
    anchor = [(500, 400), (500, 400), (400, 400)]
    config = {"configuration": "tuned, 1M-fixed, 2:1", "sides": ["engine", "plain"], "loads": [0.4, 1.9, 1.2],
              "rounds": [{"engine": {"write": timing(ew), "read": timing(er)},
                          "plain": {"write": timing(aw), "read": timing(ar)}}
                         for (ew, er), (aw, ar) in zip(engine, anchor)]}
    (row,) = rows(config)
    assert row == ("| tuned, 1M-fixed, 2:1 | plain | 1.00 (0.90–1.30) | 1.15 / 0.90 | 500 / 500 | — / — "
                   "| 1.00 (0.95–1.02) | 1.01 / 0.95 | 400 / 400 | — / — | 3 | 0.4–1.9 |")
