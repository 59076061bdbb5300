"""Form checks in worker processes (`--jobs`): the same results, in the same order, as in one
process; the number of workers chosen for a batch."""

from __future__ import annotations

import io
import json
import random
import sys
import time
from pathlib import Path

import pytest
from conftest import shared_data_file
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.form import meter_search, parallel
from poemetric.form.io import check_file
from poemetric.form.meter_words import CLASS_LETTERS
from poemetric.form.stage import run_form_stage
from poemetric.pipeline import prepare_run
from poemetric.store import RunStore

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from form_corpus import HOLDOUT_DIR, load_corpus


def test_automatic_jobs_grow_with_the_batch_up_to_the_cpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parallel, "available_cpus", lambda: 4)
    assert parallel.resolve_jobs(0, 10) == 1
    assert parallel.resolve_jobs(0, 2 * parallel.POEMS_PER_WORKER) == 2
    assert parallel.resolve_jobs(0, 100 * parallel.POEMS_PER_WORKER) == 4
    assert parallel.resolve_jobs(8, 3) == 3  # never more workers than poems
    assert parallel.resolve_jobs(2, 0) == 1
    with pytest.raises(ValueError, match="jobs"):
        parallel.resolve_jobs(-1, 10)


def test_available_cpus_is_at_least_one() -> None:
    assert parallel.available_cpus() >= 1


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every distinct text of both public-domain corpora, and one unreadable record."""
    path = tmp_path_factory.mktemp("corpus") / "cases.jsonl"
    cases = load_corpus() + load_corpus(HOLDOUT_DIR)
    lines = [json.dumps({"id": c.id, "text": c.text, "form": c.form}) for c in cases]
    lines.insert(7, '{"id": "broken", "text": "no closing brace"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_check_file_writes_the_same_bytes_with_two_workers(corpus_file: Path) -> None:
    outputs, summaries = [], []
    for jobs in (1, 2):
        sink = io.StringIO()
        summaries.append(check_file(corpus_file, sink, jobs=jobs))
        outputs.append(sink.getvalue())
    assert outputs[0] == outputs[1]
    assert summaries[0] == summaries[1]
    records = [json.loads(line) for line in outputs[0].splitlines()]
    assert len(records) == summaries[0].rows == 217
    assert records[7]["error_kind"] == "input" and "cases.jsonl:8:" in records[7]["error"]
    assert sum(r["passed"] for r in records) > 100


def test_form_check_command_takes_jobs_and_reports_the_same(
    corpus_file: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / f"checks-{jobs}.jsonl"
        result = runner.invoke(app, ["form", "check", str(corpus_file), "-o", str(out), "-j", jobs])
        assert result.exit_code == 1, result.output  # the unreadable record
        results.append(out.read_bytes())
    assert results[0] == results[1]
    bad = runner.invoke(app, ["form", "check", str(corpus_file), "-o", str(out), "-j", "-1"])
    assert bad.exit_code == 2 and "--jobs" in bad.output


def _stored(store: RunStore) -> list[tuple[object, ...]]:
    return [
        tuple(row)
        for row in store.query(
            "SELECT generation_id, checker_version, passed, meter_score, rhyme_score, "
            "form_score, explanation, error FROM form_checks ORDER BY generation_id"
        )
    ]


def test_stage_stores_the_same_verdicts_with_workers_errata_included(tmp_path: Path) -> None:
    """The authors' release: human rows with errata travel to the workers and back."""
    csv = shared_data_file("poemetric_human_poems_annotated.csv")
    stored = []
    for jobs in (1, 2):
        with RunStore(tmp_path / f"run-{jobs}") as store:
            prepare_run(store, csv)
            report = run_form_stage(store, progress=False, jobs=jobs)
            assert report.checked == 163 and report.total_by_author["human"] == 163
            stored.append(_stored(store))
            again = run_form_stage(store, progress=False, jobs=jobs)
            assert again.checked == 0 and again.skipped == 163
    assert stored[0] == stored[1]
    assert sum('"errata"' in str(row[6]) for row in stored[0]) == 8


def test_stopping_early_drops_the_work_not_started() -> None:
    """A consumer that stops (an error, Ctrl-C) does not wait for the rest of the batch."""
    started = time.monotonic()
    results = parallel.map_in_order(time.sleep, [0.1] * 400, jobs=2)  # 20 s on two workers
    assert next(results) is None and next(results) is None
    results.close()
    assert time.monotonic() - started < 10.0


def test_a_class_strings_costs_do_not_depend_on_what_was_costed_with_it() -> None:
    """Workers cost different batches of lines; BLAS sums a product in a shape-dependent order,
    so unrounded costs differed in their last bit (97 of these 100 strings) and a tie between two
    readings could go either way."""
    rng = random.Random(0)
    batch = sorted({"".join(rng.choice(CLASS_LETTERS) for _ in range(10)) for _ in range(600)})
    try:
        for classes in batch[:100]:
            meter_search._CLASS_COSTS.clear()
            meter_search._cost_classes({classes})
            alone = meter_search._CLASS_COSTS[classes]
            meter_search._CLASS_COSTS.clear()
            meter_search._cost_classes(set(batch))
            together = meter_search._CLASS_COSTS[classes]
            assert alone is not None and together is not None
            assert alone[0].tobytes() == together[0].tobytes() and alone[1] == together[1]
    finally:
        meter_search._CLASS_COSTS.clear()
