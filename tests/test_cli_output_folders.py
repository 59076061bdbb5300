"""A file name where a command's output is a folder: `export calls -o calls.csv` made a folder
`calls.csv/` holding `calls.csv`, and `analyze --out res.csv` a folder `res.csv/` of tables.
`export` writes the one file when exactly one table is exported (the format its suffix names);
otherwise, and in every other command whose output is a folder, the name is refused (exit 2),
naming the folder form. A name ending in / and an existing folder are folders, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import DemoTemplate, copy_demo_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import write_jsonl

LIMERICK = (
    "A baker who lived by the quay\nMade bread that was shaped like a tree\nHe iced every bough\n"
    "With a pink sugar cow\nAnd sold it for tuppence and tea"
)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, demo_run_template: DemoTemplate) -> Path:
    return copy_demo_run(demo_run_template, tmp_path_factory.mktemp("folders") / "demo")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("name", "read"), [("calls.csv", pd.read_csv), ("calls.jsonl", None)])
def test_export_one_table_to_a_file_name_writes_that_file(
    demo_run: Path, here: Path, name: str, read: object
) -> None:
    code, out, err = invoke("export", "calls", "--run", str(demo_run), "-o", name)
    assert code == 0, err
    assert (here / name).is_file() and f"→ {name}" in out
    if name.endswith(".csv"):
        assert "outcome" in pd.read_csv(here / name).columns
    else:
        assert "outcome" in json.loads((here / name).read_text().splitlines()[0])


def test_export_parquet_by_its_suffix(demo_run: Path, here: Path) -> None:
    code, _out, err = invoke("export", "calls", "-r", str(demo_run), "--to", "c.parquet")
    assert code == 0, err
    assert "outcome" in pd.read_parquet(here / "c.parquet").columns


@pytest.mark.parametrize(
    ("args", "message"),
    [  # the option as typed: `-o all.csv` was answered "--to all.csv: ..."
        (
            ["-o", "all.csv"],
            "-o all.csv: a file name, but 16 tables are exported, one file each, into a "
            "folder: give a folder (-o all/), or one table (poemetric export poems -o all.csv)",
        ),
        (
            ["calls", "generations", "-o", "calls.csv"],
            "-o calls.csv: a file name, but 2 tables are exported, one file each, into a "
            "folder: give a folder (-o calls/), or one table (poemetric export calls -o "
            "calls.csv)",
        ),
        (
            ["calls", "-o", "calls.tsv"],
            "-o calls.tsv: export writes .csv, .jsonl or .parquet files; give one of those "
            "names, or a folder (-o calls/)",
        ),
        (
            ["calls", "--out", "calls.csv", "--format", "parquet"],
            "--out calls.csv is a csv file name but --format is parquet: give one or the other",
        ),
    ],
)
def test_export_refuses_a_file_name_it_cannot_write(
    demo_run: Path, here: Path, args: list[str], message: str
) -> None:
    code, out, err = invoke("export", "--run", str(demo_run), *args)
    assert code == 2 and out == "", err
    assert err.startswith(f"error: {message}"), err
    assert list(here.iterdir()) == []


def test_a_name_ending_in_a_slash_is_still_a_folder(demo_run: Path, here: Path) -> None:
    code, _out, err = invoke("export", "calls", "--run", str(demo_run), "-o", "calls.csv/")
    assert code == 0, err
    assert (here / "calls.csv" / "calls.csv").is_file()
    code, _out, err = invoke("export", "calls", "--run", str(demo_run), "-o", "calls.csv")
    assert code == 0, err  # an existing folder is a folder, whatever its name
    assert (here / "calls.csv" / "calls.csv").is_file()


FOLDER_COMMANDS = [
    (["analyze", "--out", "res.csv"], "--out", ".csv", "res/"),
    (["figures", "--out", "figs.pdf"], "--out", ".pdf", "figs/"),
    (["survey", "sheets", "-o", "sheets.html"], "-o", ".html", "sheets/"),  # as typed
    (["ghostwriting", "metrics", "--out", "gw.csv"], "--out", ".csv", "gw/"),
    (["ghostwriting", "sheets", "--out", "lines.csv"], "--out", ".csv", "lines/"),
]


@pytest.mark.parametrize(("args", "option", "suffix", "folder"), FOLDER_COMMANDS)
def test_a_folder_command_refuses_a_file_name(
    demo_run: Path, here: Path, args: list[str], option: str, suffix: str, folder: str
) -> None:
    code, out, err = invoke(*args, "--run", str(demo_run))
    assert code == 2 and out == "", err
    name = args[-1]
    assert err == (
        f"error: {option} {name}: a file name ({suffix}), but the output is a folder (its files "
        f"are written into it); give a folder, e.g. {option} {folder}\n"
    )
    assert list(here.iterdir()) == []


def test_probe_and_merge_refuse_a_file_name_for_a_folder(demo_run: Path, here: Path) -> None:
    write_jsonl(
        build_pairs([SourcePoem("p", LIMERICK, "AABBA")], ["delete_1_nonrhyming"], seed=0),
        here / "pairs.jsonl",
    )
    refused = [
        (["probe", "run", "pairs.jsonl", "-o", "s.jsonl", "--tables", "t.md"], "--tables t/"),
        (["probe", "report", "s.jsonl", "-o", "t.tex"], "-o t/"),  # as typed
        (["merge", str(demo_run), "--into", "runs/x/poemetric.sqlite"], "--into runs/x/"),
    ]
    for args, folder in refused:
        code, _out, err = invoke(*args)
        option = folder.split()[0]
        assert code == 2, err
        assert err.startswith(f"error: {option} {args[-1]}: a file name (."), err
        assert err.endswith(f"; give a folder, e.g. {folder}\n"), err
    assert sorted(p.name for p in here.iterdir()) == ["pairs.jsonl"]


def test_the_help_says_how_a_file_name_is_taken() -> None:
    _code, out, _err = invoke("analyze", "--help")
    assert "A file name (x.csv) is refused; a name ending in / is a folder." in out
    _code, out, _err = invoke("export", "--help")
    assert "with one table, a file name (calls.csv, calls.jsonl, calls.parquet)" in " ".join(
        out.replace("│", " ").split()
    )
