"""`poemetric export` writes each table's rows in one order, its natural key's
(`schema.EXPORT_ORDER`), and exports the survey designs (`surveys`).

Rows were written in the order they were stored, which `merge` sets by the order of its sources:
one run merged `s0 s1` and `s1 s0` exported its generations, form checks, judgments and calls in
another order, and two exports of one run could not be diffed. `surveys` (each survey's task,
seed and design) could not be exported at all: "unknown table".
"""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import read_survey_secret
from poemetric.store import RunStore
from poemetric.store.db import stable_id
from poemetric.store.schema import EXPORT_ORDER, EXPORTABLE_TABLES

runner = CliRunner()
POEMS = [f"p{n}" for n in range(6)]
AUTHORS = ["markov", "gpt-4o"]
#: The tables a shard fills here.
FILLED = ("poems", "templates", "prompts", "generations", "form_checks", "judgments", "calls")


def _shard(run: Path, poem_ids: list[str]) -> Path:
    """A shard holding every poem and prompt, and the answers to `poem_ids`: each answer a
    generation, its form check and judgment, and a logged call."""
    with RunStore(run) as store:
        store.add_poems(
            {
                "poem_id": poem_id,
                "dataset": "demo",
                "position": position,
                "form": "limerick",
                "content": f"text of {poem_id}",
                "record": "{}",
            }
            for position, poem_id in enumerate(POEMS)
        )
        template = store.add_template("default", "Write a {form}.")
        store.add_prompts(
            {"prompt_id": f"q-{p}", "poem_id": p, "template_hash": template, "text": p}
            for p in POEMS
        )
        for poem_id in poem_ids:
            for author in AUTHORS:
                generation_id = stable_id(poem_id, author)
                store.save_generation(
                    {
                        "generation_id": generation_id,
                        "prompt_id": f"q-{poem_id}",
                        "poem_id": poem_id,
                        "author": author,
                        "status": "ok",
                        "poem": f"{author} on {poem_id}",
                        "created_at": "2026-01-01T00:00:00.000+00:00",
                    }
                )
                store.save_form_check(
                    {"generation_id": generation_id, "checker_version": "1", "passed": 1}
                )
                store.save_judgment(
                    {
                        "judgment_id": stable_id(generation_id, "j"),
                        "generation_id": generation_id,
                        "judge": "j",
                        "status": "ok",
                        "overall_quality": 3,
                    }
                )
                store.log_call(
                    cache_key=stable_id("call", generation_id),
                    provider="markov",
                    model="m",
                    attempt=1,
                    outcome="ok",
                )
    return run


def _merged_export(tmp_path: Path, name: str, sources: list[Path]) -> Path:
    """The CSV files of the tables the shards fill, of `sources` merged in their order (the
    order is the export's, whatever the format: `frames.export_frames`)."""
    run = tmp_path / name
    merged = runner.invoke(app, ["merge", *map(str, sources), "--into", str(run)])
    assert merged.exit_code == 0, merged.output
    out = tmp_path / f"{name}-export"
    result = runner.invoke(app, ["export", *FILLED, "--run", str(run), "--to", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _without_call_ids(path: Path) -> list[dict[str, Any]]:
    """The rows of a calls CSV without `call_id`, the number each store gives a call (`merge`
    numbers the calls it copies in the order it copies them)."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [{k: v for k, v in row.items() if k != "call_id"} for row in csv.DictReader(handle)]


def test_a_run_merged_in_either_order_exports_the_same_files(tmp_path: Path) -> None:
    # Each shard answers poems of both halves of the dataset: the stored order is not the key's.
    first = _shard(tmp_path / "s0", ["p4", "p0", "p2"])
    second = _shard(tmp_path / "s1", ["p5", "p1", "p3"])
    one = _merged_export(tmp_path, "m01", [first, second])
    other = _merged_export(tmp_path, "m10", [second, first])
    for table in FILLED:
        if table == "calls":
            kept = _without_call_ids(one / "calls.csv")
            assert kept == _without_call_ids(other / "calls.csv")
            assert len(kept) == len(POEMS) * len(AUTHORS)
        else:
            name = f"{table}.csv"
            assert (one / name).read_bytes() == (other / name).read_bytes(), name
    # The order is the documented key: generations by prompt, author, sample; poems by position.
    with (one / "generations.csv").open(encoding="utf-8", newline="") as handle:
        keys = [(row["prompt_id"], row["author"]) for row in csv.DictReader(handle)]
    assert keys == sorted(keys) and len(keys) == len(POEMS) * len(AUTHORS)
    with (one / "poems.csv").open(encoding="utf-8", newline="") as handle:
        assert [int(row["position"]) for row in csv.DictReader(handle)] == list(range(len(POEMS)))


def test_every_exported_table_has_a_unique_order(tmp_path: Path) -> None:
    """Each table's order holds a key of it (a PRIMARY KEY or UNIQUE constraint's columns, or
    for the call log every column), so no two rows tie, whatever was stored first."""
    with RunStore(tmp_path / "run") as store:
        for table in EXPORTABLE_TABLES:
            order = set(EXPORT_ORDER[table])
            columns = {row[1] for row in store.conn.execute(f"PRAGMA table_info({table})")}
            assert order <= columns, table
            keys = [
                {row[2] for row in store.conn.execute(f"PRAGMA index_info('{index[1]}')")}
                for index in store.conn.execute(f"PRAGMA index_list({table})")
                if index[2]  # a unique index: a PRIMARY KEY or UNIQUE constraint's
            ]
            assert order == columns or any(key <= order for key in keys), (table, keys)


def test_surveys_are_exported_with_their_design_and_never_the_secret(tmp_path: Path) -> None:
    """`surveys` holds what draws a survey again (task, seed, design): `export surveys` was
    "unknown table". The survey secret, which the raters' private links are derived from, is a
    file beside the store: neither it nor a link's token is in any exported file."""
    run = _shard(tmp_path / "run", POEMS)
    build = ["survey", "build", "--run", str(run), "--raters", "2", "--poems", "4", "--seed", "7"]
    assert (built := runner.invoke(app, build)).exit_code == 0, built.output
    links = runner.invoke(app, ["survey", "links", "--run", str(run)])
    assert links.exit_code == 0, links.output
    secret = read_survey_secret(run)
    assert secret is not None
    tokens = [line.rsplit("/", 1)[1] for line in links.output.split() if "/r/" in line]
    assert len(tokens) == 2
    out = tmp_path / "export"
    for fmt in ("csv", "jsonl"):
        result = runner.invoke(app, ["export", "--run", str(run), "--to", str(out), "-f", fmt])
        assert result.exit_code == 0, result.output
    with (out / "surveys.csv").open(encoding="utf-8", newline="") as handle:
        (survey,) = list(csv.DictReader(handle))
    assert (survey["survey_id"], survey["task"], survey["seed"]) == ("experts", "poemetric", "7")
    design = json.loads(survey["config"])
    assert design["raters"] == ["R1", "R2"] and design["poems"] == 4
    assert set(survey) == {"survey_id", "task", "seed", "config", "created_at"}
    written = b"".join(path.read_bytes() for path in sorted(out.iterdir()))
    for hidden in (secret, secret.hex().encode(), base64.urlsafe_b64encode(secret).rstrip(b"=")):
        assert hidden not in written
    assert not any(token.encode() in written for token in tokens)
