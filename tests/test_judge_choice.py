"""`--judge` of `analyze`, `figures` and `report` (`JUDGE=` under make) takes what `poemetric
judge --judge` takes: `make judge JUDGE=pilot` then `make analyze JUDGE=pilot` stopped with
"no judgments by judge 'pilot'", the group looked up as one judge's name. A judge group, or
several judges comma-separated, keeps those judges' scores. The real CLI and make, the openai
SDK and the local OpenAI server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing.servers import OpenAIServer

REPO = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent


def make(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`make ARGS` in the checkout with this Python's venv, nothing (re)installed."""
    if shutil.which("make") is None or not (VENV / "bin" / "poemetric").exists():
        pytest.skip("make, or poemetric beside this Python, is not installed")
    stamps = [f"-o{VENV}/bin/{stamp}" for stamp in (".installed", ".installed-local")]
    return subprocess.run(
        ["make", "-s", *stamps, f"VENV={VENV}", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A run of 2 demo prompts (2 human, 2 markov poems) judged, through make, by the group
    `panel` (judges ja, shown as "Judge A", and jb) and by jc, outside it; the environment
    that finds those judges."""
    folder = tmp_path_factory.mktemp("choice")
    run, judges = folder / "run", folder / "judges"
    judges.mkdir()
    generated = CliRunner().invoke(
        app,
        ["generate", "--run", str(run), "--dataset", "demo", "--models", "markov", "--limit",
         "2", "--no-progress"],
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
        for name, label in (("ja", "Judge A"), ("jb", None), ("jc", None)):
            (judges / f"{name}.yaml").write_text(
                f"name: {name}\nprovider: openai-compatible\nmodel: m-{name}\n"
                f"base_url: {server.base_url}\napi_key_env: {TEST_KEY_ENV}\n"
                + (f"display_name: {label}\n" if label else ""),
                encoding="utf-8",
            )
        (judges / "groups.yaml").write_text("panel: [ja, jb]\n", encoding="utf-8")
        env = {**os.environ, "POEMETRIC_JUDGES_DIR": str(judges), TEST_KEY_ENV: TEST_KEY,
               "COLUMNS": "200"}  # fmt: skip
        for judge in ("panel", "jc"):
            done = make("judge", f"RUN={run}", f"JUDGE={judge}", "ARGS=--no-progress", env=env)
            assert done.returncode == 0, done.stdout + done.stderr
    yield run, env


def test_make_analyze_takes_the_judge_group_make_judge_took(
    judged: tuple[Path, dict[str, str]],
) -> None:
    run, env = judged
    done = make("analyze", f"RUN={run}", "JUDGE=panel", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.strip("│").split("│") for line in done.stdout.splitlines() if line[:1] == "│"]
    # the summary's judge column: the group's two judges, not jc (outside it)
    assert sorted({row[1].strip() for row in rows}) == ["Judge A", "jb"], done.stdout


def test_figures_and_report_take_several_judges(
    judged: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, env = judged
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", env["POEMETRIC_JUDGES_DIR"])
    out = tmp_path / "figures"
    args = ["figures", "--run", str(run), "--judge", "ja,jb", "--recipe", "judge-overview",
            "--format", "png", "--out", str(out)]  # fmt: skip
    drawn = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert drawn.exit_code == 0, drawn.output
    assert sorted(p.name for p in out.glob("ranking-*.png")) == ["ranking-ja.png", "ranking-jb.png"]
    page = tmp_path / "report.html"
    args = ["report", "--run", str(run), "--judge", "panel", "--out", str(page)]
    reported = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert reported.exit_code == 0, reported.output
    html = page.read_text(encoding="utf-8")
    assert "POEMetric score by Judge A" in html and "POEMetric score by jb" in html
    assert "POEMetric score by jc" not in html


@pytest.mark.parametrize(
    ("judge", "error"),
    [
        ("pilot", "error: no judgments by judge group 'pilot' (gemini-2.5-pro, gpt-4o, "
         "deepseek-r1) in the run; judges: ja, jb, jc"),
        ("judge a", "error: no judgments by judge 'judge a' ('judge a' is the display name of "
         "'ja') in the run; judges: ja, jb, jc"),
        ("ja,nobody", "error: no judgments by judge 'nobody' in the run; judges: ja, jb, jc"),
    ],
)  # fmt: skip
def test_a_judge_the_run_lacks_is_named(
    judged: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch, judge: str, error: str
) -> None:
    run, env = judged
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", env["POEMETRIC_JUDGES_DIR"])
    result = CliRunner().invoke(app, ["analyze", "--run", str(run), "--judge", judge],
                                env={"COLUMNS": "400"})  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.startswith(error), result.stderr
