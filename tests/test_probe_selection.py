"""`probe run --tasks` with a mistyped or absent task, and `probe report` of a file without
scores: each was accepted, scored nothing and printed empty tables with exit status 0, and
`probe run` wrote an empty scores file over the `--output` given (a model's earlier scores). Now
each is one `error:` line with exit status 2, and nothing is written. So is an `--output` that
cannot be a file, before any pair is built or scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    command = ["probe", "build", "demo", "--tasks", "rhyme_line_swap", "--output", str(path)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize(
    ("tasks", "message"),
    [
        ("rhyme_line_swaps", "unknown task 'rhyme_line_swaps' (did you mean 'rhyme_line_swap'"),
        ("synonym", "no pairs of task synonym; its tasks: rhyme_line_swap"),
    ],
)
def test_probe_run_with_no_pair_selected_writes_nothing(
    pairs: Path, tmp_path: Path, tasks: str, message: str
) -> None:
    scores = tmp_path / "scores.jsonl"
    scores.write_text("earlier scores\n", encoding="utf-8")
    command = ["probe", "run", str(pairs), "--tasks", tasks, "--output", str(scores)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert scores.read_text(encoding="utf-8") == "earlier scores\n"


def test_probe_run_of_an_empty_pairs_file(tmp_path: Path) -> None:
    empty = tmp_path / "pairs.jsonl"
    empty.write_text("", encoding="utf-8")
    command = ["probe", "run", str(empty), "--output", str(tmp_path / "scores.jsonl")]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {empty}: no pairs; build them with")
    assert not (tmp_path / "scores.jsonl").exists()


def test_probe_report_of_a_file_without_scores(pairs: Path, tmp_path: Path) -> None:
    scores = tmp_path / "scores.jsonl"
    run = ["probe", "run", str(pairs), "--output", str(scores)]
    assert CliRunner().invoke(app, run).exit_code == 0
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    result = CliRunner().invoke(app, ["probe", "report", str(empty)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: no scores in {empty}; write them with")
    both = CliRunner().invoke(app, ["probe", "report", str(empty), str(scores)])
    assert both.exit_code == 0, both.output  # an empty file beside real scores is harmless
    assert "rhyme_line_swap" in both.stdout


@pytest.mark.parametrize("command", ["build", "run"])
def test_an_output_that_is_a_folder_is_refused_before_the_work(
    pairs: Path, tmp_path: Path, command: str
) -> None:
    """`probe build|run --output FOLDER` built or scored every pair, then ended in an
    IsADirectoryError traceback (a file in place of a parent folder: FileExistsError)."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("", encoding="utf-8")
    source = ["demo", "--tasks", "synonym"] if command == "build" else [str(pairs)]
    for output, message in ((tmp_path, f"{tmp_path}: is a folder; give a file name"),
                            (a_file / "out.jsonl", f"{a_file}: not a folder")):  # fmt: skip
        result = CliRunner().invoke(
            app, ["probe", command, *source, "--output", str(output)], env={"COLUMNS": "400"}
        )
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert result.stderr.startswith(f"error: --output {message}")


def test_probe_build_writes_each_pair_once_when_a_task_is_named_twice(tmp_path: Path) -> None:
    """`--tasks synonym,synonym` wrote every synonym pair twice (same id), and listed the task
    twice; `probe run` then refused the file (duplicate pair id)."""
    once, twice = tmp_path / "once.jsonl", tmp_path / "twice.jsonl"
    for path, tasks in ((once, "synonym"), (twice, "synonym,synonym")):
        result = CliRunner().invoke(app, ["probe", "build", "demo", "-t", tasks, "-o", str(path)])
        assert result.exit_code == 0, result.output
    assert twice.read_bytes() == once.read_bytes()
    assert result.stdout.count("synonym") == 1, result.stdout
    scored = CliRunner().invoke(app, ["probe", "run", str(twice), "-o", str(tmp_path / "s.jsonl")])
    assert scored.exit_code == 0, scored.output


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--forms", "limerick,sonet"], "--forms: no poems of form sonet in demo; its forms: "),
        (["--tasks", " , "], "--tasks names no task; tasks: rhyme_word_swap,"),
    ],
    ids=["form-absent", "no-task"],
)
def test_probe_build_selecting_nothing_writes_nothing(
    tmp_path: Path, option: list[str], message: str
) -> None:
    """A form the poems lack (a typo) or an empty --tasks built "0 pairs", wrote an empty pairs
    file and exited 0."""
    output = tmp_path / "pairs.jsonl"
    result = CliRunner().invoke(
        app, ["probe", "build", "demo", *option, "-o", str(output)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert not output.exists()


def test_probe_run_with_an_ngram_order_of_zero(pairs: Path, tmp_path: Path) -> None:
    """`--scorer ngram:0` ended in an IndexError traceback from the model's constructor."""
    scores = tmp_path / "scores.jsonl"
    command = ["probe", "run", str(pairs), "--scorer", "ngram:0", "--output", str(scores)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == "error: ngram order must be at least 1, got '0'\n"
    assert not scores.exists()


def test_probe_run_with_a_model_that_is_nowhere(pairs: Path, tmp_path: Path) -> None:
    """`--scorer hf:NAME` of a model neither in generators/ nor on disk nor in the local cache
    ended in a 40-frame OSError traceback ("We couldn't connect to 'https://huggingface.co'")."""
    import importlib.util

    scores = tmp_path / "scores.jsonl"
    command = ["probe", "run", str(pairs), "--scorer", "hf:no-such-model-xyz", "-o", str(scores)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400", "HF_HUB_OFFLINE": "1"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: hf:no-such-model-xyz: "), line
    if importlib.util.find_spec("transformers") and importlib.util.find_spec("torch"):
        assert "not in the local Hugging Face cache (downloads are off)" in line, line
        assert line.endswith("; local model files: hf:smollm2-135m"), line
    assert not scores.exists()


def test_probe_run_suggests_the_model_file_of_a_mistyped_hf_name(
    pairs: Path, tmp_path: Path
) -> None:
    """`--scorer hf:smollm2` (the file is smollm2-135m) said only "not a model file in
    generators/ ... not in the local Hugging Face cache", naming no file; `chat:` suggests."""
    import importlib.util

    if not (importlib.util.find_spec("transformers") and importlib.util.find_spec("torch")):
        pytest.skip("needs transformers and torch")
    scores = tmp_path / "scores.jsonl"
    for typed in ("smollm2", "SmolLM2-135M"):
        command = ["probe", "run", str(pairs), "--scorer", f"hf:{typed}", "-o", str(scores)]
        result = CliRunner().invoke(app, command, env={"COLUMNS": "400", "HF_HUB_OFFLINE": "1"})
        assert result.exit_code == 2 and result.stdout == "", result.output
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"error: hf:{typed}: could not load"), line
        assert line.endswith("; did you mean hf:smollm2-135m?"), line
    assert not scores.exists()


def test_probe_report_counts_each_scored_pair_once(pairs: Path, tmp_path: Path) -> None:
    """The same scores named twice (or two runs of one scorer, or a file concatenated with
    itself) counted every pair twice: n doubled and the Wilson intervals narrowed, exit 0."""
    scores = tmp_path / "scores.jsonl"
    run = ["probe", "run", str(pairs), "--output", str(scores)]
    assert CliRunner().invoke(app, run).exit_code == 0
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_bytes(scores.read_bytes() * 2)
    lines = len(scores.read_text(encoding="utf-8").splitlines())
    for files, where in (([scores, scores], f"{scores}:1"), ([doubled], f"{doubled}:{lines + 1}")):
        result = CliRunner().invoke(
            app, ["probe", "report", *map(str, files)], env={"COLUMNS": "400"}
        )
        assert result.exit_code == 2 and result.stdout == "", result.output
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"error: {where}: pair '"), line
        assert "was scored by ngram:3 already at" in line


def test_probe_run_limit_scores_the_first_pairs(pairs: Path, tmp_path: Path) -> None:
    """`probe run` had no --limit (`probe build` and the other commands do)."""
    every = [json.loads(line)["id"] for line in pairs.read_text(encoding="utf-8").splitlines()]
    assert len(every) > 2
    scores = tmp_path / "scores.jsonl"
    command = ["probe", "run", str(pairs), "--limit", "2", "--output", str(scores)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    scored = [json.loads(line)["pair_id"] for line in scores.read_text().splitlines()]
    assert scored == every[:2] and "2 pairs scored by" in result.stdout


def test_probe_report_writes_no_paper_table_without_pairs_of_its_tasks(
    pairs: Path, tmp_path: Path
) -> None:
    """Scores of rhyme_line_swap alone wrote probe_last_line (and probe_deletion) holding only
    the published rows, as if those tasks had been run; now each is left out with one line
    naming the tasks it lacks, and the tables with rows of ours are written as before."""
    scores = tmp_path / "scores.jsonl"
    assert CliRunner().invoke(app, ["probe", "run", str(pairs), "-o", str(scores)]).exit_code == 0
    out = tmp_path / "tables"
    command = ["probe", "report", str(scores), "--output", str(out)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in out.iterdir()) == [
        f"probe_{name}.{suffix}"
        for name in ("accuracy", "bpomp")
        for suffix in ("csv", "md", "tex")
    ]
    assert "probe_last_line not written: no pairs of tasks last_line or last_line_dbs" in (
        result.stderr
    )
    assert "probe_deletion not written: no pairs of tasks delete_1_rhyming, " in result.stderr
    assert f"tables: 6 files in {out}" in result.stderr


def test_probe_report_removes_an_earlier_reports_table_it_does_not_write(
    pairs: Path, tmp_path: Path
) -> None:
    """A table left out (no pairs of its tasks) was left in --output as an earlier report wrote
    it, with that report's rows of ours beside this report's accuracy table, and the line said
    it was 'not written'; its files are removed, as `analyze` removes an earlier analysis's
    tables, and the line says so. Other files in the folder are kept."""
    scores = tmp_path / "scores.jsonl"
    assert CliRunner().invoke(app, ["probe", "run", str(pairs), "-o", str(scores)]).exit_code == 0
    out = tmp_path / "tables"
    out.mkdir()
    earlier = [out / f"probe_last_line.{suffix}" for suffix in ("csv", "md", "tex")]
    for path in earlier:
        path.write_text("an earlier report's last_line rows\n", encoding="utf-8")
    (out / "mine.txt").write_text("kept\n", encoding="utf-8")
    command = ["probe", "report", str(scores), "--output", str(out)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert not any(path.exists() for path in earlier)
    assert (out / "mine.txt").read_text(encoding="utf-8") == "kept\n"
    assert (
        "probe_last_line not written: no pairs of tasks last_line or last_line_dbs; its files "
        "from an earlier report were removed"
    ) in " ".join(result.stderr.split())
    assert "probe_deletion not written: no pairs of tasks delete_1_rhyming, " in result.stderr
    assert "probe_deletion.csv" not in " ".join(result.stderr.split())
