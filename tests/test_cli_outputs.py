"""Output paths a user mistypes, and templates a user filled in.

Output paths: an `--out` folder that is a file (or lies under one), a report
`--out` that is a folder. Each is unusable input, reported as one `error:` line on stderr with exit
status 2 before any work; before, every one of these commands ended in a traceback
(FileExistsError, NotADirectoryError, IsADirectoryError), some after minutes of work.

Templates: `survey sheets` and `ghostwriting sheets` write CSV templates that raters fill in
place (the docs import `RUN/survey-lines/R2.csv` from there); running the command again, to
reprint a sheet, wrote empty templates over the filled ones and the answers were lost."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import DemoTemplate, copy_demo_run
from matplotlib.figure import Figure
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.frames import export_frame
from poemetric.store.schema import EXPORTABLE_TABLES


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, demo_run_template: DemoTemplate) -> Path:
    run = copy_demo_run(demo_run_template, tmp_path_factory.mktemp("outputs") / "demo")
    runner = CliRunner()
    built = runner.invoke(
        app, ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "3"]
    )
    assert built.exit_code == 0, built.output
    lines = ["survey", "build", "--run", str(run), "--survey", "lines", "--task", "lines"]
    built = runner.invoke(app, [*lines, "--raters", "2", "--per-rater", "2"])
    assert built.exit_code == 0, built.output
    return run


FOLDER_COMMANDS = [
    (["analyze"], "--out"),
    (["figures", "--format", "png"], "--out"),
    (["export"], "--to"),
    (["ghostwriting", "metrics"], "--out"),
    (["ghostwriting", "sheets"], "--out"),
    (["survey", "sheets"], "--out"),
]


@pytest.mark.parametrize("under", [False, True], ids=["is-a-file", "under-a-file"])
@pytest.mark.parametrize(
    ("command", "option"), FOLDER_COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_an_output_folder_that_is_a_file_is_one_error_line_and_exit_2(
    demo_run: Path, tmp_path: Path, command: list[str], option: str, under: bool
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("keep me\n", encoding="utf-8")
    out = blocker / "sub" if under else blocker
    result = CliRunner().invoke(
        app, [*command, "--run", str(demo_run), option, str(out)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {option} {out}: not a folder")
    assert blocker.read_text(encoding="utf-8") == "keep me\n"


def test_probe_report_output_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["probe", "report", str(tmp_path / "scores.jsonl"), "--output", str(blocker)]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: --output {blocker}: not a folder")


def test_a_report_out_that_is_a_folder(demo_run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["report", "--run", str(demo_run), "--out", str(tmp_path)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: --out {tmp_path}: is a folder; give a file name, e.g. {tmp_path}/index.html\n"
    )
    blocker = tmp_path / "taken"
    blocker.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["report", "--run", str(demo_run), "--out", str(blocker / "index.html")]
    )
    assert result.exit_code == 2, result.output
    assert "not a folder" in result.stderr


def _fill(path: Path, column: str, value: str, *, also: dict[str, str] | None = None) -> str:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0][column] = value
    rows[0].update(also or {})
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("survey", "column", "also"),
    [
        ("experts", "score", {}),
        ("experts", "comment", {}),
        ("lines", "fluency", {"annotator": "a"}),
    ],
)
def test_survey_sheets_never_overwrite_a_filled_template(
    demo_run: Path, tmp_path: Path, survey: str, column: str, also: dict[str, str]
) -> None:
    out = tmp_path / "sheets"
    command = ["survey", "sheets", "--run", str(demo_run), "--survey", survey, "--out", str(out)]
    runner = CliRunner()
    assert runner.invoke(app, command).exit_code == 0
    filled = _fill(out / "R2.csv", column, "1" if column != "comment" else "too long", also=also)
    (out / "R1.csv").unlink()
    again = runner.invoke(app, command, env={"COLUMNS": "400"})
    assert again.exit_code == 2, again.output
    assert again.stdout == "" and again.stderr.startswith("error: ")
    assert f"{out / 'R2.csv'} already holds answers (1 filled row)" in again.stderr
    assert (out / "R2.csv").read_text(encoding="utf-8") == filled
    assert not (out / "R1.csv").exists()  # nothing written: not even the other raters' sheets
    other = runner.invoke(app, [*command, "--rater", "R1"])  # an untouched rater: reprinted
    assert other.exit_code == 0, other.output
    assert (out / "R1.csv").is_file()


def test_survey_sheets_of_an_unknown_rater_names_the_raters(demo_run: Path, tmp_path: Path) -> None:
    """It said "no rater R9 in survey 'experts'", not which raters there are."""
    command = ["survey", "sheets", "--run", str(demo_run), "--out", str(tmp_path), "--rater", "R9"]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr == "error: no rater R9 in survey 'experts'; raters: R1, R2\n"


def test_ghostwriting_sheets_never_overwrite_a_filled_template(
    demo_run: Path, tmp_path: Path
) -> None:
    command = ["ghostwriting", "sheets", "--run", str(demo_run), "--out", str(tmp_path)]
    runner = CliRunner()
    assert runner.invoke(app, command).exit_code == 0
    template = tmp_path / "annotations.csv"
    unchanged = runner.invoke(app, command)  # an empty template is simply written again
    assert unchanged.exit_code == 0, unchanged.output
    filled = _fill(template, "fluency", "0.5", also={"annotator": "ann"})
    again = runner.invoke(app, [*command, "--seed", "3"], env={"COLUMNS": "400"})
    assert again.exit_code == 2, again.output
    assert again.stdout == "" and again.stderr.startswith("error: ")
    assert "already holds answers" in again.stderr and "import-lines" in again.stderr
    assert template.read_text(encoding="utf-8") == filled


def test_figures_are_the_same_bytes_in_every_format_when_drawn_again(
    demo_run: Path, tmp_path: Path
) -> None:
    """The same run gives the same figure files (docs: "byte-stable PDFs and SVGs"); every SVG
    differed between two identical runs, because matplotlib names its clip paths and images
    with a random salt."""
    drawn = []
    for attempt in ("first", "second"):
        out = tmp_path / attempt
        args = ["figures", "--run", str(demo_run), "--recipe", "rule-based", "--out", str(out)]
        result = CliRunner().invoke(app, [*args, "--format", "pdf,png,svg"])
        assert result.exit_code == 0, result.output
        drawn.append({path.name: path.read_bytes() for path in sorted(out.iterdir())})
    assert any(name.endswith(".svg") for name in drawn[0])
    assert drawn[0].keys() == drawn[1].keys()
    assert [name for name in drawn[0] if drawn[0][name] != drawn[1][name]] == []


def test_an_interrupted_figures_run_leaves_no_half_written_figure(
    demo_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while a figure was being saved left it truncated (an 84-byte PNG, a PDF without
    its end) in place of the earlier, complete one."""
    out = tmp_path / "figures"
    args = ["figures", "--run", str(demo_run), "--recipe", "rule-based", "--out", str(out)]
    assert CliRunner().invoke(app, [*args, "--format", "pdf,png"]).exit_code == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    saved = []

    def interrupted(self: Figure, fname: object, **kwargs: object) -> None:
        """Ctrl-C in the middle of the second figure's file (its first bytes are written)."""
        saved.append(fname)
        if len(saved) == 3:
            Path(str(fname)).write_bytes(b"\x89PNG\r\n\x1a\n")
            raise KeyboardInterrupt
        original(self, fname, **kwargs)

    original = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", interrupted)
    result = CliRunner().invoke(app, [*args, "--format", "pdf,png"])
    assert result.exit_code != 0 and len(saved) == 3
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def _experts(run: Path, path: Path) -> Path:
    """Two experts' overall-quality scores of six of the run's poems."""
    with RunStore(run, create=False) as store:
        poems = [row["generation_id"] for row in store.query(
            "SELECT generation_id FROM generations WHERE status = 'ok' ORDER BY generation_id"
        )][:6]  # fmt: skip
    scores = {"e1": [4, 2, 5, 3, 1, 4], "e2": [4, 3, 5, 3, 2, 4]}
    rows = [f"{poem},{rater},overall_quality,{scores[rater][i]}"
            for i, poem in enumerate(poems) for rater in scores]  # fmt: skip
    path.write_text("poem,rater,item,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_analyze_agreement_line_without_bootstrap_shows_no_mangled_interval(
    demo_run: Path, tmp_path: Path
) -> None:
    """With `--bootstrap 0` the intervals are NaN: the line read "PAo 0.167 , QWK -0.180 ,"
    because "[nan, nan]" was taken for console markup and dropped."""
    experts = _experts(demo_run, tmp_path / "experts.csv")
    args = ["analyze", "--run", str(demo_run), "--experts", str(experts), "--out", str(tmp_path)]
    runner = CliRunner()
    without = runner.invoke(app, [*args, "--bootstrap", "0"], env={"COLUMNS": "400"}).stdout
    # The console's width is fixed when the command module is first imported (maybe by another
    # test, at 80 columns), so a long line may be wrapped: compare with whitespace collapsed.
    flat = " ".join(without.split())
    assert re.search(
        r"experts \(all items, 6 poems, 6 paired ratings\): PAo -?[\d.]+, QWK -?[\d.]+, "
        r"alpha interval -?[\d.]+ \(no CIs: --bootstrap 0\)",
        flat,
    ), without
    with_cis = runner.invoke(app, [*args, "--bootstrap", "50"], env={"COLUMNS": "400"}).stdout
    flat = " ".join(with_cis.split())
    assert re.search(r"PAo -?[\d.]+ \[-?[\d.]+, -?[\d.]+\], QWK", flat), with_cis


def test_analyze_removes_its_tables_that_the_new_analysis_has_not(
    demo_run: Path, tmp_path: Path
) -> None:
    """`analyze --experts FILE`, then `analyze` without it: the agreement tables of the first
    stayed in RUN/analysis beside the new ones, read as current (the command said it wrote 27
    files; the folder held 33)."""
    experts = _experts(demo_run, tmp_path / "experts.csv")
    out = tmp_path / "analysis"
    args = ["analyze", "--run", str(demo_run), "--out", str(out), "--bootstrap", "20"]
    runner = CliRunner()
    assert runner.invoke(app, [*args, "--experts", str(experts)]).exit_code == 0
    assert (out / "agreement_experts.csv").exists() and (out / "expert_scores.tex").exists()
    (out / "mine.csv").write_text("a researcher's own file\n", encoding="utf-8")
    again = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert again.exit_code == 0, again.output
    flat = " ".join(again.stdout.split())  # the console may wrap at 80 columns (see above)
    written = re.search(r"wrote (\d+) files", flat)
    assert written is not None, again.stdout
    names = {p.name for p in out.iterdir()}
    assert "mine.csv" in names and len(names - {"mine.csv"}) == int(written.group(1))
    assert not any(name.startswith(("agreement", "expert_")) for name in names)
    assert "removed the tables of an earlier analysis: agreement_experts, expert_scores" in flat
    assert "expert_scores" not in (out / "tables.tex").read_text(encoding="utf-8")


def test_analyze_summary_of_a_run_without_judgments_promises_no_judge_scores(
    demo_run: Path, tmp_path: Path
) -> None:
    """Its title read "(means; judge scores 1-5; score = POEMetric ranking score)" above a table
    with neither judge scores nor a score column."""
    args = ["analyze", "--run", str(demo_run), "--out", str(tmp_path)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "POEMetric summary (means)" in result.stdout
    assert "judge scores" not in result.stdout and "ranking score" not in result.stdout


def _interrupt_the_fourth_csv(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Make `DataFrame.to_csv` stop like Ctrl-C in the middle of the fourth table (its header
    written to the path); the paths asked for are returned as they come."""
    written: list[object] = []
    original = pd.DataFrame.to_csv

    def interrupted(self: pd.DataFrame, path: object, **kwargs: object) -> None:
        written.append(path)
        if len(written) == 4:
            Path(str(path)).write_text(",".join(self.columns) + "\n", encoding="utf-8")
            raise KeyboardInterrupt
        original(self, path, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    return written


@pytest.mark.parametrize(
    ("command", "folder"),
    [
        (["export", "--run", "RUN", "--to", "OUT"], "export"),
        (["analyze", "--run", "RUN", "--out", "OUT", "--bootstrap", "20"], "analysis"),
    ],
    ids=["export", "analyze"],
)
def test_an_interrupted_table_write_leaves_no_half_written_table(
    demo_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    folder: str,
) -> None:
    """Ctrl-C during `export` left a truncated CSV (388 KB of a 2.2 MB form_checks.csv at the
    paper's scale) over the earlier complete one: it reads as a table with fewer rows; `analyze`
    left a CSV with its header only the same way."""
    out = tmp_path / folder
    args = [{"RUN": str(demo_run), "OUT": str(out)}.get(a, a) for a in command]
    assert CliRunner().invoke(app, args).exit_code == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    written = _interrupt_the_fourth_csv(monkeypatch)
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0 and len(written) == 4
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_an_interrupted_report_leaves_the_earlier_one_whole(
    demo_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the report was written left a truncated index.html (a page without its
    poems and scripts) over the earlier complete one."""
    page = tmp_path / "report.html"
    args = ["report", "--run", str(demo_run), "--out", str(page), "--bootstrap", "0"]
    assert CliRunner().invoke(app, args).exit_code == 0
    before = page.read_bytes()

    def interrupted(self: Path, data: str, *args: object, **kwargs: object) -> int:
        """Ctrl-C in the middle of writing the page (its first kilobyte is written)."""
        if data.startswith("<!DOCTYPE html>"):
            original(self, data[:1024], *args, **kwargs)
            raise KeyboardInterrupt
        return original(self, data, *args, **kwargs)

    original = Path.write_text
    monkeypatch.setattr(Path, "write_text", interrupted)
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert page.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


def test_a_table_named_twice_is_exported_once(demo_run: Path, tmp_path: Path) -> None:
    """`export poems poems` wrote the same file twice and printed its line twice."""
    out = tmp_path / "export"
    args = ["export", "prompts", "poems", "prompts", "--run", str(demo_run), "--to", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["prompts", "poems"]
    assert sorted(path.name for path in out.iterdir()) == ["poems.csv", "prompts.csv"]


def test_an_empty_table_exported_as_jsonl_is_an_empty_file(demo_run: Path, tmp_path: Path) -> None:
    """An empty table was written as JSONL "\n": one blank line, which a strict line reader
    takes for a malformed record. CSV keeps its header line; other tables are unchanged."""
    out = tmp_path / "export"
    for fmt in ("jsonl", "csv"):
        args = ["export", "--run", str(demo_run), "--to", str(out), "--format", fmt]
        assert CliRunner().invoke(app, args).exit_code == 0
    with RunStore(demo_run, create=False) as store:
        counts = {table: store.count(table) for table in EXPORTABLE_TABLES}
        # what export writes: the table, and for generations the request it answered
        frames = {table: export_frame(store.conn, table) for table in EXPORTABLE_TABLES}
    assert 0 in counts.values() and any(counts.values())
    for table, count in counts.items():
        jsonl = (out / f"{table}.jsonl").read_bytes()
        lines = jsonl.decode("utf-8").splitlines()
        assert all(isinstance(json.loads(line), dict) for line in lines)  # no blank line
        if count == 0:
            assert jsonl == b""
            header = (out / f"{table}.csv").read_text(encoding="utf-8")
            assert header == ",".join(frames[table].columns) + "\n"
        else:  # each stored value, NULL as null (every digit of a float: not pandas' to_json)
            rows = frames[table].astype(object).to_dict("records")
            expected = [{k: None if pd.isna(v) else v for k, v in row.items()} for row in rows]
            assert [json.loads(line) for line in lines] == expected and len(lines) == count


def test_demo_counts_figures_not_their_files(demo_run_template: DemoTemplate) -> None:
    """The demo said "16 figures" of 8 figures, each written as a PDF and a PNG."""
    figures = {path.stem for path in (demo_run_template.run / "figures").glob("*.pdf")}
    assert len(figures) > 1
    assert f"tables, {len(figures)} figures (PDF + PNG), the report" in demo_run_template.stdout
