"""A model file that cannot be used (an unset `${VAR}`, a provider that is not installed, a
mistyped key) stops only the commands that select its model; the rest of the roster works."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric.cli.models_cmd  # noqa: F401 - registers `poemetric models` on the app
from poemetric.cli import app
from poemetric.roster import RosterError, UnusableModelError, load_catalog, select_models

UNSET = """\
name: endpoint
provider: openai-compatible
model: my-model
groups: [mine]
base_url: ${ENDPOINT_URL}
api_key_env: ENDPOINT_API_KEY
"""
NO_PROVIDER = "name: plugged\nprovider: foo\nmodel: m\ngroups: [mine]\n"
TYPO = "name: typo\nprovider: openai\nmodel: m\nsettings:\n  temprature: 1\n"
HOSTED_NO_KEY = "name: nokey\nprovider: openai\nmodel: m\napi_key_env: false\n"
NO_BASE_URL = "name: nobase\nprovider: openai-compatible\nmodel: m\napi_key_env: NOBASE_KEY\n"
#: Neither a variable nor `false`: --dry-run planned it (status 0), a run refused it without a file.
NO_KEY_VARIABLE = "name: novar\nprovider: openai-compatible\nmodel: m\nbase_url: http://h:8000/v1\n"
CASES = {
    "novar": (
        NO_KEY_VARIABLE,
        "api_key_env: missing (provider 'openai-compatible' has no default key variable; "
        "false: no key)",
    ),
    "nobase": (
        NO_BASE_URL,
        "base_url: missing (provider 'openai-compatible' needs the server's address)",
    ),
    "nokey": (HOSTED_NO_KEY, "api_key_env: false, but provider 'openai' needs a key"),
    "endpoint": (UNSET, "unset variable ENDPOINT_URL"),
    "plugged": (NO_PROVIDER, "provider 'foo' is not installed"),
    "typo": (TYPO, "settings.temprature: unknown key 'temprature' (did you mean 'temperature'?)"),
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("POEMETRIC_GENERATORS_DIR", "POEMETRIC_JUDGES_DIR", "ENDPOINT_URL"):
        monkeypatch.delenv(variable, raising=False)


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", list(CASES))
def test_an_unusable_file_stops_only_the_commands_that_select_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """One user file with an unset `${VAR}` (or a provider that is not installed) stopped every
    command that loads the roster: `models`, `generate --models markov`, everything."""
    text, reason = CASES[name]
    folder = _folder(tmp_path, {f"{name}.yaml": text})
    path = folder / f"{name}.yaml"
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    run = tmp_path / "run"

    code, out, err = _invoke(
        "generate", "--no-progress", "--run", str(run), "--models", "markov", "--limit", "1",
        "--dry-run",
    )  # fmt: skip
    assert code == 0, err
    assert "plan (dry run)" in out and err == ""

    code, out, err = _invoke("models")
    assert code == 0, err
    assert "32 models (and 1 unusable, below)" in out
    # The file and the line of the error, as `models show` names them.
    line = {"endpoint": 5, "nobase": 2, "nokey": 4, "novar": 2, "plugged": 2, "typo": 5}[name]
    assert f"  {name}: {reason}  ({path}:{line})" in out.splitlines()

    code, out, err = _invoke("models", "show", name)
    assert code == 2 and out == ""
    # The file and its line first, as every bad input is named (the bare file named no line).
    first = f"error: {path}:{line}: model {name!r} cannot be used: {reason}"
    assert err.splitlines()[0] == first

    line = f"{first}; details: `poemetric models show {name}`"
    selections = [name, f"markov,{name}", "all"] + (["mine"] if "groups" in text else [])
    for selection in selections:
        for dry_run in ([], ["--dry-run"]):
            code, out, err = _invoke("generate", "--run", str(run), "--models", selection, *dry_run)
            assert (code, out) == (2, ""), (selection, out, err)
            assert err.splitlines() == [line], selection
            assert not run.exists()


def test_an_unusable_judge_is_one_error_line_before_any_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path, {"endpoint.yaml": UNSET.replace("[mine]", "[panel]")})
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(folder))
    run = tmp_path / "run"
    line = (
        f"error: {folder / 'endpoint.yaml'}:5: judge 'endpoint' cannot be used: unset variable "
        "ENDPOINT_URL; details: `poemetric models show endpoint --judges`"
    )
    for args in (
        ["judge", "--run", str(run), "--judge", "endpoint", "--dry-run"],
        ["judge", "--run", str(run), "--judge", "panel"],
        ["judge", "recognise", "--run", str(run), "--judge", "endpoint", "--dry-run"],
        ["ghostwriting", "style-match", "--run", str(run), "--judge", "endpoint", "--dry-run"],
        ["demo", "--run", str(run), "--judge", "endpoint", "--no-progress"],
    ):
        code, out, err = _invoke(*args)
        assert (code, out, err.splitlines()) == (2, "", [line]), args
        assert not run.exists()
    code, out, err = _invoke("models", "--judges")
    assert code == 0 and "  endpoint: unset variable ENDPOINT_URL  (" in out
    assert [s.name for s in select_models("paper", kind="judges")] == ["gemini-2.5-pro"]


def test_a_broken_user_file_replaces_the_bundled_model_it_is_named_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user `gpt-4o.yaml` meant to replace the bundled one is not silently skipped for it."""
    folder = _folder(tmp_path, {"gpt-4o.yaml": UNSET.replace("name: endpoint", "name: gpt-4o")})
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    catalog = load_catalog()
    assert "gpt-4o" not in catalog.entries and catalog.unusable["gpt-4o"].path.parent == folder
    with pytest.raises(UnusableModelError, match=r"gpt-4o\.yaml:5: model 'gpt-4o' cannot be used"):
        select_models("openai")
    monkeypatch.setenv("ENDPOINT_URL", "http://127.0.0.1:9/v1")
    assert select_models("gpt-4o")[0].base_url == "http://127.0.0.1:9/v1"


def test_a_secret_variable_is_still_refused_and_never_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyz"
    text = UNSET.replace("${ENDPOINT_URL}", "http://h/v1?key=${ENDPOINT_API_KEY}")
    folder = _folder(tmp_path, {"endpoint.yaml": text})
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    monkeypatch.setenv("ENDPOINT_API_KEY", secret)
    reason = "base_url: ${ENDPOINT_API_KEY} names a secret (use api_key_env)"
    outputs = [
        _invoke("models"),
        _invoke("models", "show", "endpoint"),
        _invoke("generate", "--run", str(tmp_path / "run"), "--models", "endpoint", "--dry-run"),
    ]
    assert outputs[0][0] == 0 and reason in outputs[0][1]
    assert all(code == 2 and reason in err for code, _, err in outputs[1:])
    assert not any(secret in out + err for _, out, err in outputs)


def test_roster_wide_errors_still_stop_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two files of one model in one folder (which one counts?) and a broken `groups.yaml` are
    errors of the roster, not of one model: they stay errors of every command."""
    folder = _folder(tmp_path, {"endpoint.yaml": UNSET, "endpoint.yml": UNSET})
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    with pytest.raises(RosterError, match="both define generator 'endpoint'; keep one of them"):
        select_models("markov")
    (folder / "endpoint.yml").unlink()
    (folder / "groups.yaml").write_text("favourites: [endpoint, nonesuch]\n", encoding="utf-8")
    with pytest.raises(RosterError, match="group 'favourites' names unknown model or group"):
        select_models("markov")
    (folder / "groups.yaml").write_text("favourites: [markov, endpoint]\n", encoding="utf-8")
    assert [s.name for s in select_models("markov")] == ["markov"]
    with pytest.raises(UnusableModelError, match="unset variable ENDPOINT_URL"):
        select_models("favourites")


@pytest.mark.parametrize("scorer", ["hf", "vllm", "chat"])
def test_a_probe_scorer_naming_an_unusable_file_is_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scorer: str
) -> None:
    """`hf:` and `vllm:` would take a name missing from the roster for a hub id to download."""
    from poemetric.probes.scorers import make_scorer

    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(_folder(tmp_path, {"endpoint.yaml": UNSET})))
    with pytest.raises(UnusableModelError, match=r"'endpoint' cannot be used: unset variable"):
        make_scorer(f"{scorer}:endpoint")
