"""A stopped `probe run` with a local scorer resumes: every text scored is kept in
`SCORES.jsonl.cache.sqlite` beside the output, the rerun reads them back and scores only the
rest, writes what an uninterrupted run writes, and removes the cache. A cache of another
scorer, model or setting is never read. Real processes and real signals where it matters."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from test_cluster_signals import start, wait_for
from test_probe_scorers import pair, tiny_bert  # noqa: F401 (a fixture)
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import Pair, write_jsonl
from poemetric.probes.scorers.cache import ScoreCache, cache_path, weights_fingerprint
from poemetric.probes.scorers.ngram import NgramScorer
from poemetric.providers.model_source import ModelSource

pytestmark = pytest.mark.usefixtures("ctrl_c_from_a_terminal")

STOPPED = "is written once every pair is scored."


def lear_pairs(copies: int, tasks: tuple[str, ...] = ("delete_1_nonrhyming",)) -> list[Pair]:
    """Pairs of `copies` copies of the Lear limericks, each copy its own poems: the n-gram
    scorer trains a model per poem on all the others, a few seconds for 6 copies."""
    lear = load_dataset("lear-limericks").poems
    sources = [
        SourcePoem(f"{p.poem_id}-{n}", p.content, p.rhyme_pattern)
        for n in range(copies)
        for p in lear
    ]
    return build_pairs(sources, list(tasks), seed=0)


def rows(cache: Path) -> int:
    """Texts stored in a cache file (0 where there is none yet)."""
    if not cache.exists():
        return 0
    db = sqlite3.connect(cache)
    try:
        return int(db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
    except sqlite3.OperationalError:  # created, no table yet
        return 0
    finally:
        db.close()


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, ["probe", "run", *args, "--no-progress"])
    assert result.exit_code == 0, result.output
    return result


def stop_once_kept(
    tmp_path: Path, args: list[str], stop: signal.Signals, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """`poemetric probe run ARGS` in its own process, stopped by `stop` (SIGINT to its group,
    as a terminal sends it) as soon as its cache holds a text (the first are committed at
    once): its exit status and output, after checking that it kept what it says it kept."""
    process = start(tmp_path, "probe", "run", *args, env=env or {}, log="job.log")
    cache = cache_path(tmp_path / "s.jsonl")
    try:
        # the child loads SmolLM2 first: a minute on cores other suites share
        wait_for(lambda: rows(cache) > 0, process, timeout_s=300)
        if stop == signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(stop)
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    output = " ".join((tmp_path / "job.log").read_text().split())
    kept = rows(cache)
    assert kept > 0 and not (tmp_path / "s.jsonl").exists(), output
    said = f"Nothing was written: s.jsonl {STOPPED} {kept} scored text"
    assert said in output and "kept in s.jsonl.cache.sqlite: the rerun scores only" in output
    assert "Run it again with: poemetric probe run" in output and "Traceback" not in output
    return process.returncode, output


@pytest.fixture(scope="module")
def uninterrupted_ngram_scores(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The scores file an uninterrupted `probe run` of the n-gram scorer writes for
    `lear_pairs(6)` (the same for every stop, so scored once): it reuses nothing and leaves no
    cache behind."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    write_jsonl(lear_pairs(6), folder / "pairs.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        whole = run("pairs.jsonl", "--scorer", "ngram", "-o", "whole.jsonl")
    assert "reused" not in whole.output and not list(folder.glob("*.sqlite"))
    return (folder / "whole.jsonl").read_bytes()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_ngram_run_resumes_and_writes_what_an_uninterrupted_run_writes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop: signal.Signals,
    uninterrupted_ngram_scores: bytes,
) -> None:
    """Ctrl-C or SIGTERM threw every text scored away: the rerun began at 0. Now they are kept
    (the message says how many), read back, and the scores file is the same."""
    write_jsonl(lear_pairs(6), tmp_path / "pairs.jsonl")
    args = ["pairs.jsonl", "--scorer", "ngram", "-o", "s.jsonl"]
    status, _ = stop_once_kept(tmp_path, args, stop)
    assert status == 128 + stop
    kept = rows(cache_path(tmp_path / "s.jsonl"))
    monkeypatch.chdir(tmp_path)
    resumed = run(*args)
    texts = "text" if kept == 1 else "texts"  # the stop may land after the first text only
    assert f"reused {kept} scored {texts} from s.jsonl.cache.sqlite" in resumed.output
    assert not cache_path(tmp_path / "s.jsonl").exists()  # the scores file is whole: removed
    assert not list(tmp_path.glob("*.sqlite"))
    assert (tmp_path / "s.jsonl").read_bytes() == uninterrupted_ngram_scores


def test_an_ngram_cache_is_read_only_by_the_same_order_and_training_poems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text's n-gram score depends on the order and on the poems the model trains on (the
    pairs file's other originals, so `--limit` and `--tasks` change it): a cache left by
    another is passed over, said, and the scores are those of a fresh run."""
    pairs = lear_pairs(1, ("delete_1_nonrhyming", "delete_2_nonrhyming"))
    left = tmp_path / "left.sqlite"
    with closing(ScoreCache(left)) as cache:  # as a stopped run leaves it, all texts kept
        NgramScorer(3, cache=cache).score(pairs)
    texts = rows(left)
    assert texts == len({text for p in pairs for text in (p.original, p.corrupted)})
    for order, subset in ((2, pairs), (3, pairs[:20])):  # another order; fewer training poems
        cache = ScoreCache(tmp_path / f"{order}-{len(subset)}.sqlite")
        cache.path.write_bytes(left.read_bytes())
        records = NgramScorer(order, cache=cache).score(subset)
        assert cache.reused == 0 and cache.other == (texts if order == 2 else 0)
        assert records == NgramScorer(order).score(subset)
    again = ScoreCache(left)
    assert NgramScorer(3, cache=again).score(pairs) == NgramScorer(3).score(pairs)
    assert again.reused == texts and again.stored == 0
    # Through the command: said, and the cache removed once the scores are written.
    monkeypatch.chdir(tmp_path)
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    (tmp_path / "s.jsonl.cache.sqlite").write_bytes(left.read_bytes())
    result = run("pairs.jsonl", "--scorer", "ngram:2", "-o", "s.jsonl")
    text = " ".join(result.output.split())
    assert f"s.jsonl.cache.sqlite: {texts} texts scored by another scorer, model or" in text
    assert " scored texts from " not in text and not (tmp_path / "s.jsonl.cache.sqlite").exists()


def test_a_stopped_hf_run_resumes_and_its_cache_is_bound_to_the_weights_and_settings(
    tiny_bert: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`hf:` (a masked LM: one text per step) stopped after two texts keeps them; the rerun
    reads them back and writes the uninterrupted run's scores. Other weights (the model file
    rewritten) or another setting (`--pll`) read none of them."""
    import transformers

    forward = transformers.BertForMaskedLM.forward
    calls: list[int] = []

    def stopped_at_the_third_text(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of a forward pass
        return forward(*args, **kwargs)

    texts = ["a lamp in the harbour", "the gulls are asleep", "under a slate roof"]
    pairs = [pair(n, text, text.replace(" ", " old ", 1)) for n, text in enumerate(texts)]
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    args = ["pairs.jsonl", "--scorer", f"hf:{tiny_bert}", "--device", "cpu"]
    with monkeypatch.context() as patched:
        patched.setattr(transformers.BertForMaskedLM, "forward", stopped_at_the_third_text)
        result = CliRunner().invoke(app, ["probe", "run", *args, "-o", "s.jsonl"])
    assert result.exit_code == 130, result.output
    text = " ".join(result.output.split())
    assert f"s.jsonl {STOPPED} 2 scored texts are kept in s.jsonl.cache.sqlite" in text
    left = cache_path(tmp_path / "s.jsonl").read_bytes()
    resumed = run(*args, "-o", "s.jsonl")
    assert "reused 2 scored texts from s.jsonl.cache.sqlite" in resumed.output
    run(*args, "-o", "whole.jsonl")
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    weights = tiny_bert / "model.safetensors"
    cases = {"chunk": ["--chunk-size", "2"], "pll": ["--pll", "word_l2r"], "weights": []}
    for changed, extra in cases.items():  # the chunk size (like the batch size) is no setting
        cache_path(tmp_path / "s.jsonl").write_bytes(left)
        if changed == "weights":
            stat = weights.stat()
            os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        again = " ".join(run(*args, *extra, "-o", "s.jsonl").output.split())
        passed_over = "2 texts scored by another scorer, model or setting were not reused"
        assert ("reused 2 scored" in again) == (changed == "chunk"), changed
        assert (passed_over in again) == (changed != "chunk"), changed


@pytest.mark.parametrize("some", [["--limit", "1"], ["--tasks", "b"]])
def test_a_run_of_some_pairs_after_a_stop_keeps_the_texts_of_the_others(
    tiny_bert: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    some: list[str],
) -> None:
    """A quick trial (`--limit`, `--tasks`) after a stop removed the cache once its scores file
    was written: the stopped run's texts of the pairs it left out were lost, and the run of all
    pairs scored them again. They are kept, said, and read back by that run."""
    import transformers

    forward = transformers.BertForMaskedLM.forward
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:  # a masked LM: one pass per text here
        calls.append(1)
        if len(calls) == 5 and not stopped:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the fifth text
        return forward(*args, **kwargs)

    texts = ["a lamp in the harbour", "the gulls are asleep", "under a slate roof", "rain at dusk"]
    pairs = [
        pair(n, text, text.replace(" ", " old ", 1), task="ab"[n % 2])
        for n, text in enumerate(texts)
    ]
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(transformers.BertForMaskedLM, "forward", counted)
    args = ["pairs.jsonl", "--scorer", f"hf:{tiny_bert}", "--device", "cpu", "-o", "s.jsonl"]
    stopped: list[int] = []
    result = CliRunner().invoke(app, ["probe", "run", *args])
    assert result.exit_code == 130, result.output
    stopped.append(1)
    cache = cache_path(tmp_path / "s.jsonl")
    kept = rows(cache)
    assert kept == 4
    trial = " ".join(run(*args, *some).output.split())
    stored = rows(cache)
    assert stored >= kept and "this run did not use in s.jsonl.cache.sqlite" in trial
    calls.clear()
    whole = run(*args)
    assert f"reused {stored} scored texts from s.jsonl.cache.sqlite" in whole.output
    assert len(calls) == 2 * len(texts) - stored and not cache.exists()  # nothing scored twice
    run(*args[:-1], "fresh.jsonl")
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "fresh.jsonl").read_bytes()


def test_a_hub_model_is_known_by_its_snapshot_and_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub id loads from the local Hugging Face cache: the revision it points at (a new
    download moves `refs/main`) and its files (blobs named by content) identify the weights."""
    constants = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    repo = tmp_path / "models--poets--tiny"
    (repo / "blobs").mkdir(parents=True)
    for commit, content in (("a" * 40, "{}"), ("b" * 40, '{"n": 1}')):
        (repo / "blobs" / commit[:8]).write_text(content)
        (repo / "snapshots" / commit).mkdir(parents=True)
        (repo / "snapshots" / commit / "config.json").symlink_to(repo / "blobs" / commit[:8])
    (repo / "refs").mkdir()
    seen = []
    for commit in ("a" * 40, "b" * 40):
        (repo / "refs" / "main").write_text(commit)
        found = weights_fingerprint(ModelSource("poets/tiny"))
        assert found["snapshot"] == commit
        assert found["files"][0][:2] == ["config.json", str(repo / "blobs" / commit[:8])]
        seen.append(found)
    assert seen[0] != seen[1]
    unknown = weights_fingerprint(ModelSource("poets/absent"))
    assert unknown == {"location": "poets/absent", "files": None}


def test_a_scores_file_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    """The scores file was truncated and written line by line: a stop while writing it left a
    part. It is written under a temporary name and moved into place."""
    scores = tmp_path / "s.jsonl"
    write_jsonl([pair(0)], scores)
    before = scores.read_bytes()

    def records() -> Iterator[Pair]:
        yield pair(1)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_jsonl(records(), scores)
    assert scores.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]
    assert json.loads(before)["id"] == "p0"


@pytest.mark.slow
def test_a_stopped_smollm2_run_resumes_with_the_scores_of_an_uninterrupted_run(
    smollm2: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The packaged SmolLM2 in a real process, stopped by Ctrl-C once its first batch is kept:
    the rerun (the model is loaded once in this process) reads the kept texts back, scores the
    rest in the batches an uninterrupted run makes, and writes its scores to the last bit."""
    tasks = ("delete_1_nonrhyming", "delete_2_rhyming", "rhyme_line_swap")
    lear = load_dataset("lear-limericks").poems[:3]
    sources = [SourcePoem(p.poem_id, p.content, p.rhyme_pattern) for p in lear]
    write_jsonl(build_pairs(sources, list(tasks), seed=0), tmp_path / "pairs.jsonl")
    args = ["pairs.jsonl", "--scorer", "hf:smollm2-135m", "--batch-size", "2", "-o", "s.jsonl"]
    status, _ = stop_once_kept(tmp_path, args, signal.SIGINT)
    assert status == 130
    kept = rows(cache_path(tmp_path / "s.jsonl"))
    monkeypatch.chdir(tmp_path)
    resumed = run(*args)
    assert f"reused {kept} scored text" in resumed.output
    run(*args[:-1], "whole.jsonl")
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
