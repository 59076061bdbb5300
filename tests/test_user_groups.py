"""A group a user's `groups.yaml` defines is its listed members: the bundled judges whose own
`groups: [pilot]` named the group were appended to a user's `pilot: [ja, jb]` too, so that
`judge --judge pilot` (`make judge JUDGE=pilot`) called three paid models the user never named."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.roster import left_out_joins, load_groups, select_models

JUDGE = """\
name: {name}
provider: openai-compatible
model: m
base_url: http://127.0.0.1:9/v1
api_key_env: false
groups: {groups}
"""


def write_judge(folder: Path, name: str, groups: str = "[]") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(JUDGE.format(name=name, groups=groups), encoding="utf-8")


@pytest.fixture
def mine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A judges folder of one's own with ja and jb, and `pilot: [ja, jb]` in its groups.yaml."""
    folder = tmp_path / "my-judges"
    write_judge(folder, "ja")
    write_judge(folder, "jb")
    (folder / "groups.yaml").write_text("pilot: [ja, jb]\n", encoding="utf-8")
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(folder))
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    return folder


def test_a_users_group_is_its_listed_members(mine: Path, tmp_path: Path) -> None:
    assert [s.name for s in select_models("pilot", "judges")] == ["ja", "jb"]
    assert load_groups("judges")["paper"] == ["gemini-2.5-pro"]  # not redefined: as bundled
    (note,) = left_out_joins("judges")
    assert note.startswith(f"group 'pilot' is the list in {mine / 'groups.yaml'} only: ")
    assert "deepseek-r1, gemini-2.5-pro, gpt-4o, whose own files" in note

    result = CliRunner().invoke(app, ["models", "--judges", "--group", "pilot"],
                                env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("2 judges in group pilot")
    assert f"note: {note}" in result.output
    listed = [line.split()[0] for line in result.output.splitlines()[3:5]]
    assert listed == ["ja", "jb"]

    run = str(tmp_path / "run")
    generate = ["generate", "--run", run, "--dataset", "demo", "--models", "markov", "--limit", "1"]
    assert CliRunner().invoke(app, [*generate, "--no-progress"]).exit_code == 0
    judge = CliRunner().invoke(
        app, ["judge", "--run", run, "--judge", "pilot", "--dry-run", "--no-progress"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert judge.exit_code == 0, judge.output
    assert judge.output.splitlines()[0] == f"run {run}: dataset demo (1 poem), 2 judges x 1 sample"
    assert "gpt-4o" not in judge.output and "gemini" not in judge.output


def test_files_of_the_groups_folder_or_a_later_one_still_join(
    mine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the user wrote joins: a file beside the groups.yaml, or in a later folder, whose own
    `groups:` names the group; and without a groups.yaml of theirs, the bundled group is joined."""
    write_judge(mine, "jc", "[pilot]")
    later = tmp_path / "later"
    write_judge(later, "jd", "[pilot, paper]")
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", f"{mine}:{later}")
    groups = load_groups("judges")
    assert groups["pilot"] == ["ja", "jb", "jc", "jd"]
    assert groups["paper"] == ["gemini-2.5-pro", "jd"]
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(later))  # no groups.yaml of one's own
    assert load_groups("judges")["pilot"] == ["gemini-2.5-pro", "gpt-4o", "deepseek-r1", "jd"]
    assert left_out_joins("judges") == []


def test_a_group_grown_by_copies_of_a_model_file_is_said(
    mine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copies of a model file keep its `groups:` line: six copies of gpt-4o.yaml made
    `--models paper30` run 36 models, said only by the count in the plan's header. A group that
    files join beyond its groups.yaml's list now gets a note naming them; one nobody joins, none."""
    write_judge(mine, "ja-copy", "[pilot]")
    write_judge(mine, "jb-copy", "[pilot]")
    notes: list[str] = []
    assert [s.name for s in select_models("pilot", "judges", notes=notes)] == [
        "ja", "jb", "ja-copy", "jb-copy"
    ]  # fmt: skip
    assert notes == [
        f"group 'pilot' is 4 models: the 2 that {mine / 'groups.yaml'} lists and 2 whose own "
        "files list 'pilot' under `groups:` (ja-copy, jb-copy; a copy of a model file keeps that "
        "line); take 'pilot' off a file's `groups:` to leave it out"
    ]
    quiet: list[str] = []
    select_models("ja,paper", "judges", notes=quiet)
    assert quiet == []
    run = str(tmp_path / "run")
    assert CliRunner().invoke(app, ["generate", "--run", run, "--models", "markov", "--limit",
                                    "1", "--no-progress"]).exit_code == 0  # fmt: skip
    judge = CliRunner().invoke(
        app, ["judge", "--run", run, "--judge", "pilot", "--dry-run", "--no-progress"],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    assert judge.exit_code == 0, judge.output
    assert f"note: {notes[0]}" in judge.output
