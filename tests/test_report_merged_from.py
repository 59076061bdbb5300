"""The report's run metadata said where a merged run came from as Python dicts, `Merged from
{'source': 'runs/s0', 'merged_at': '2026-...'}, {...}`: it says which shards and when, one line
per merge."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.report.build import load_report_run
from poemetric.report.sections.metadata import merge_lines, metadata
from poemetric.store import RunStore

runner = CliRunner()


def _shard(run: Path) -> Path:
    with RunStore(run) as store:
        store.add_poems([
            {
                "poem_id": "p0",
                "dataset": "demo",
                "position": 0,
                "form": "limerick",
                "content": "text",
                "record": "{}",
            }
        ])  # fmt: skip
    return run


def test_merged_from_names_the_shards_and_when(tmp_path: Path) -> None:
    first, second, third = (_shard(tmp_path / name) for name in ("s0", "s1", "s2"))
    run = tmp_path / "merged"
    for sources in ([first, second], [third]):  # two merges into one run
        merged = runner.invoke(app, ["merge", *map(str, sources), "--into", str(run)])
        assert merged.exit_code == 0, merged.output
    with RunStore(run, create=False) as store:
        section = metadata(load_report_run(store))
    assert section is not None
    html = str(section.html)
    found = re.search(r"<dt>Merged from</dt><dd>(.*?)</dd>", html)
    assert found is not None, html
    stamp = r"\(merged \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)"
    lines = found.group(1).split("<br>")
    assert len(lines) == 2, lines
    assert re.fullmatch(rf"{re.escape(f'{first}, {second}')} {stamp}", lines[0]), lines[0]
    assert re.fullmatch(rf"{re.escape(str(third))} {stamp}", lines[1]), lines[1]
    assert "{" not in found.group(1) and "merged_at" not in found.group(1)


def test_an_entry_without_its_time_is_its_source() -> None:
    assert merge_lines(["runs/a", "runs/b"]) == ["runs/a", "runs/b"]
