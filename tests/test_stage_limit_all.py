"""`make generate judge LIMIT=all` failed at judge: the Makefile passes `--limit all` to judge as
to generate (README and `make help` name LIMIT=all), but judge's `--limit` took a number only
("'all' is not a valid integer"). The stages that read a run (`judge`, `judge recognise`,
`ghostwriting style-match`) take `N|all` now, `all` being every poem (as without `--limit`), and
record it so. The judge is served by the local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_makefile import _installed_venv, _make, _options
from test_merge_coverage import UserModel, _answer, _cli, _model_file, _ok
from test_runner_support import TEST_KEY, TEST_KEY_ENV

from poemetric.judge.recognise import STAGE as RECOGNISE
from poemetric.judge.stage import STAGE as JUDGE
from poemetric.store import RunStore
from poemetric.store.selections import Selection, stage_selections
from poemetric.style.stage import STAGE as STYLE
from poemetric.testing.servers import OpenAIServer

STAGES = {
    JUDGE: ["judge"],
    RECOGNISE: ["judge", "recognise"],
    STYLE: ["ghostwriting", "style-match", "--trials", "1"],
}


def _selection(run: Path, stage: str) -> list[Selection]:
    with RunStore(run) as store:
        return stage_selections(store, stage)["tj"]


@pytest.mark.parametrize("stage", list(STAGES))
def test_limit_all_is_every_poem(tmp_path: Path, user_model: UserModel, stage: str) -> None:
    run = tmp_path / "run"
    _ok("generate", "--no-progress", "--run", run, "--limit", "3")
    command = [*STAGES[stage], "--no-progress", "--run", run, "--judge", "tj"]
    with OpenAIServer(_answer) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok(*command, "--limit", "2")
        assert [s.limit for s in _selection(run, stage)] == [2]
        _ok(*command, "--limit", "all")  # exit 2: "'all' is not a valid integer"
    assert [s.whole for s in _selection(run, stage)] == [True]
    for wrong in ("0", "some"):
        result = _cli(*command, "--limit", wrong)
        assert result.exit_code == 2 and "all" in result.output, result.output


def test_make_generate_judge_limit_all(
    tmp_path: Path, user_model: UserModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _options("judge", "LIMIT=all")["--limit"] == "all"
    run = tmp_path / "run"
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    with OpenAIServer(_answer) as server:
        _model_file(user_model, "judges", "tj", server)
        args = (f"RUN={run}", "LIMIT=all", "JUDGE=tj", "ARGS=--no-progress")
        done = _make("generate", "judge", *args, venv=str(_installed_venv()))
    assert done.returncode == 0, done.stdout + done.stderr
    with RunStore(run) as store:
        poems = store.count("poems")
        assert store.count("generations", "author = 'markov'") == poems
        assert store.count("judgments", "status = 'ok'") == 2 * poems  # human and markov
    assert [s.whole for s in _selection(run, JUDGE)] == [True]
