"""The shipped roster, the roster loader's errors, model selection and `poemetric models`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric.cli.models_cmd  # noqa: F401 - registers `poemetric models` on the app
from poemetric.cli.app import app
from poemetric.paths import resource_path
from poemetric.providers.registry import available_providers
from poemetric.roster import (
    JUDGE_ONLY_FIELDS,
    RosterError,
    get_model,
    list_models,
    load_groups,
    load_model_file,
    load_roster,
    select_models,
)

GOOD = """\
name: tiny
provider: openai-compatible
model: tiny-model
groups: [mine]
base_url: http://127.0.0.1:9/v1
settings:
  max_tokens: 64
api_key_env: TINY_API_KEY
"""


@pytest.fixture(autouse=True)
def _no_user_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the shipped roster ---------------------------------------------------------------------------
def test_shipped_roster_has_the_papers_30_models() -> None:
    roster = load_roster()
    groups = load_groups()
    assert len(groups["paper30"]) == 30
    assert set(groups["open"]) | set(groups["closed"]) == set(groups["paper30"])
    assert not set(groups["open"]) & set(groups["closed"])
    assert set(groups["thinking"]) | set(groups["non-thinking"]) == set(groups["paper30"])
    assert groups["baselines"] == ["markov"]
    assert set(roster) == set(groups["paper30"]) | {"markov", "smollm2-135m"}
    assert len(groups["open"]) == 20 and len(groups["thinking"]) == 6


def test_shipped_groups_agree_with_model_files() -> None:
    roster = load_roster()
    groups = load_groups()
    for name, members in groups.items():
        assert len(members) == len(set(members)), name
        assert set(members) <= set(roster), name
        if name == "all":
            continue
        for member in members:
            assert name in roster[member].groups, f"{member} is in {name} but does not say so"
    for spec in roster.values():
        for group in spec.groups:
            assert spec.name in groups[group]
        assert spec.thinking == (spec.name in groups["thinking"]) or spec.name == "markov"
        assert spec.open_weights == (spec.name not in groups["closed"])


def test_shipped_files_are_named_after_their_model() -> None:
    for kind in ("generators", "judges"):
        for path in sorted(resource_path(kind).glob("*.yaml")):
            if path.stem == "groups":
                continue
            assert load_model_file(path).name == path.stem


def test_shipped_models_are_runnable_as_declared() -> None:
    providers = set(available_providers())
    for spec in load_roster().values():
        assert spec.provider in providers
        if spec.provider == "vllm":
            assert spec.vllm is not None, spec.name
            assert spec.settings.max_tokens, f"{spec.name}: vLLM's default max_tokens is 16"
            assert spec.vllm.max_model_len and spec.vllm.max_model_len > spec.settings.max_tokens
            assert spec.pricing.input_per_mtok == 0
        if spec.provider == "anthropic":
            assert spec.settings.max_tokens, f"{spec.name}: Anthropic requires max_tokens"
        if spec.provider == "openai-compatible":
            assert spec.base_url and spec.api_key_env
        if spec.provider in {"openai", "anthropic", "google"} and spec.name != "gemini-2.0-pro":
            assert spec.pricing.output_per_mtok > 0, spec.name
        assert spec.notes, f"{spec.name}: say where the price comes from"
    claude = get_model("claude-3.7-sonnet")
    assert claude.thinking and claude.settings.reasoning_budget_tokens
    assert (
        claude.settings.max_tokens
        and claude.settings.max_tokens > claude.settings.reasoning_budget_tokens
    )


def test_shipped_judges() -> None:
    judges = load_roster("judges")
    assert {"gemini-2.5-pro", "gpt-4o", "deepseek-r1", "claude-3.7-sonnet", "local-openai"} <= set(
        judges
    )
    assert load_groups("judges")["paper"] == ["gemini-2.5-pro"]


def test_local_judge_reads_its_endpoint_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_roster("judges")["local-openai"].base_url == "http://127.0.0.1:8000/v1"
    monkeypatch.setenv("POEMETRIC_LOCAL_BASE_URL", "http://gpu-node:9000/v1")
    monkeypatch.setenv("POEMETRIC_LOCAL_MODEL", "my/model")
    spec = load_roster("judges")["local-openai"]
    assert spec.base_url == "http://gpu-node:9000/v1"
    assert spec.model == "my/model"


# -- selection ---------------------------------------------------------------------------------------
def test_select_keeps_order_and_deduplicates() -> None:
    names = [s.name for s in select_models("gpt-4o, qwen2.5 ,qwen2.5-7b-instruct,gpt-4o")]
    assert names[0] == "gpt-4o"
    assert names[1:] == load_groups()["qwen2.5"]


def test_select_groups() -> None:
    assert len(select_models("paper30")) == 30
    assert [s.name for s in select_models("markov")] == ["markov"]
    assert len(select_models("all")) == 32  # the paper's 30, markov, smollm2-135m


def test_select_unknown_name_suggests_close_matches() -> None:
    with pytest.raises(
        RosterError, match=r"unknown model or group 'gpt4o' \(did you mean 'gpt-4o'"
    ):
        select_models("gpt4o")
    with pytest.raises(RosterError, match="always part of a run"):
        select_models("human,gpt-4o")
    with pytest.raises(RosterError, match="no models selected"):
        select_models(" , ")


# -- user folders and bad files ------------------------------------------------------------------------
def test_user_folder_adds_and_overrides_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "mine", "tiny.yaml", GOOD)
    override = (
        (resource_path("generators") / "gpt-4o.yaml")
        .read_text()
        .replace("model: gpt-4o-2024-08-06", "model: gpt-4o-2024-11-20")
    )
    _write(tmp_path / "mine", "gpt-4o.yaml", override)
    _write(tmp_path / "mine", "groups.yaml", "favourites: [tiny, gpt-4o]\n")
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(tmp_path / "mine"))
    roster = load_roster()
    assert roster["tiny"].settings.max_tokens == 64
    assert roster["gpt-4o"].model == "gpt-4o-2024-11-20"
    assert [s.name for s in select_models("favourites")] == ["tiny", "gpt-4o"]
    assert [s.name for s in select_models("mine")] == ["tiny"]  # joined through its own file
    assert len(select_models("paper30")) == 30


def test_missing_user_folder_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(tmp_path / "absent"))
    with pytest.raises(RosterError, match="POEMETRIC_GENERATORS_DIR"):
        load_roster()


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        (GOOD.replace("model: tiny-model", "model: tiny-model\ntemprature: 0.5"),
         r"bad\.yaml:4: temprature: unknown key 'temprature' \(did you mean 'settings\.temperature'\?\); allowed:"),
        (GOOD.replace("  max_tokens: 64", "  max_tokens: 64\n  temprature: 0.5"),
         r"bad\.yaml:8: settings\.temprature: unknown key 'temprature' \(did you mean 'temperature'\?\)"),
        (GOOD.replace("  max_tokens: 64", "  max_tokens: -3"),
         r"bad\.yaml:7: settings\.max_tokens: -3 should be at least 1$"),
        # Pydantic's words, without the value ("Input should be a valid integer, unable to
        # parse string as an integer"), became the value and what the field takes.
        (GOOD.replace("  max_tokens: 64", "  max_tokens: lots"),
         r"bad\.yaml:7: settings\.max_tokens: 'lots' is not a whole number$"),
        (GOOD.replace("  max_tokens: 64", "  max_tokens: 1.5"),
         r"bad\.yaml:7: settings\.max_tokens: 1\.5 is not a whole number$"),
        (GOOD + "open_weights: maybe\n", r"bad\.yaml:9: open_weights: 'maybe' is not true or false$"),
        # Pydantic read a boolean as a number: `max_tokens: true` was 1, `temperature: false` 0.
        (GOOD.replace("  max_tokens: 64", "  max_tokens: true"),
         r"bad\.yaml:7: settings\.max_tokens: true is not a whole number$"),
        (GOOD.replace("  max_tokens: 64", "  temperature: false"),
         r"bad\.yaml:7: settings\.temperature: false is not a number$"),
        (GOOD + "limits: {max_concurrency: yes}\n",
         r"bad\.yaml:9: limits\.max_concurrency: true is not a whole number$"),
        (GOOD + "pricing: {input_per_mtok: true}\n",
         r"bad\.yaml:9: pricing\.input_per_mtok: true is not a number$"),
        (GOOD + "reask: false\n", r"bad\.yaml:9: reask: false is not a whole number$"),
        (GOOD + "pricing: {input_per_mtok: $2}\n",
         r"bad\.yaml:9: pricing\.input_per_mtok: '\$2' is not a number$"),
        (GOOD + "display_name: 2024\n", r"bad\.yaml:9: display_name: 2024 is not text \(write it in quotes\)$"),
        (GOOD + "structured: json\n", r"bad\.yaml:9: structured: 'json' should be 'off' or 'auto'$"),
        (GOOD.replace("name: tiny", "name: other"), r"bad\.yaml:1: name 'other' must equal the file name"),
        (GOOD.replace("provider: openai-compatible", "provider: nonesuch"),
         r"bad\.yaml:2: unknown provider 'nonesuch'"),
        (GOOD + "model: again\n", r"bad\.yaml:\d+: invalid YAML: duplicate key 'model'"),
        ("name: [unclosed\n", r"bad\.yaml:\d+: invalid YAML"),
        ("- a list\n", r"bad\.yaml: expected a mapping"),
        (GOOD.replace("provider: openai-compatible\n", ""), r"bad\.yaml:1: provider: missing \(add a line 'provider: \.\.\.'\)$"),
        # A misspelt required key was two problems, "provider: missing (add a line 'provider:
        # ...') (and 1 more)" first: it is one, at the misspelt key's line.
        (GOOD.replace("provider:", "provder:"),
         r"model file:\n  \S*bad\.yaml:2: provder: unknown key 'provder' \(did you mean 'provider'\?\); allowed: [^\n]*$"),
        (GOOD.replace("groups: [mine]", "groups: mine"),
         r"bad\.yaml:4: groups: should be a list: \[a, b\] \(one item: \[a\]\)"),
        (GOOD + "pricing: 0.5\n", r"bad\.yaml:9: pricing: should be a mapping: \{key: value\}, or "
         r"'key: value' lines .* \(keys: batch_discount, input_per_mtok, output_per_mtok\)"),
        (GOOD.replace("base_url: http://127.0.0.1:9/v1\n", ""),
         r"bad\.yaml:2: base_url: missing; provider 'openai-compatible' has no default endpoint"),
        (GOOD.replace("api_key_env: TINY_API_KEY\n", ""),
         r"bad\.yaml:2: api_key_env: missing; provider 'openai-compatible' has no default key "
         r"variable: name the environment variable .* or write api_key_env: false"),
        (GOOD.replace("base_url: http://127.0.0.1:9/v1", "base_url: ${NOPE_NOT_SET}"),
         r"bad\.yaml:5: base_url: environment variable NOPE_NOT_SET is not set"),
        (GOOD + "notes: ${HOME}\n", r"bad\.yaml:\d+: notes: \$\{\.\.\.\} is only replaced in"),
        (GOOD.replace("base_url: http://127.0.0.1:9/v1", "base_url: http://h/v1?key=${MY_API_KEY}"),
         r"bad\.yaml:5: base_url: \$\{MY_API_KEY\} names a secret; name it in api_key_env"),
        (GOOD.replace("model: tiny-model", "model: ${hf_token:-x}"),
         r"bad\.yaml:3: model: \$\{hf_token\} names a secret"),
    ],
)  # fmt: skip
def test_bad_model_files_name_file_and_line(tmp_path: Path, text: str, pattern: str) -> None:
    path = _write(tmp_path, "bad.yaml", text.replace("name: tiny", "name: bad", 1))
    if "name: other" in text:
        path.write_text(text)
    with pytest.raises(RosterError, match=pattern):
        load_model_file(path)


@pytest.mark.parametrize(("value", "expected"), [("off", "off"), ("no", "off"), ("on", "auto")])
def test_structured_off_unquoted_is_the_default_not_an_error(
    tmp_path: Path, value: str, expected: str
) -> None:
    """YAML reads an unquoted `off` as false: `structured: off`, as docs/judging.md writes it,
    made the judge unusable with "Input should be 'off' or 'auto'"."""
    path = _write(tmp_path, "tiny.yaml", f"{GOOD}structured: {value}\n")
    assert load_model_file(path, kind="judges").structured == expected


def test_bad_groups_are_reported(tmp_path: Path) -> None:
    _write(tmp_path, "tiny.yaml", GOOD)
    _write(tmp_path, "groups.yaml", "mine2: [tiny, tinny]\n")
    with pytest.raises(
        RosterError,
        match=r"groups\.yaml:1: group 'mine2' names unknown .* 'tinny' \(did you mean 'tiny'",
    ):
        load_groups(directory=tmp_path)
    _write(tmp_path, "groups.yaml", "a: [b]\nb: [a]\n")
    with pytest.raises(RosterError, match="cycle"):
        load_groups(directory=tmp_path)
    _write(tmp_path, "groups.yaml", "tiny: [tiny]\n")
    with pytest.raises(RosterError, match="has the name of a model"):
        load_groups(directory=tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# mine\nmine:\n  - tiny\n  - tinny\n",
         ":4: group 'mine' names unknown model or group 'tinny' (did you mean 'tiny'?)"),
        ("other: [tiny]\nmine: tiny\n", ":2: group 'mine' must map to a list of names (one member: [tiny])"),
        ("mine:\n  - tiny\n  - {name: tiny}\n",
         ":3: group 'mine' has a member that is not a name: {'name': 'tiny'}"),
        ("\n- tiny\n", ":2: expected a mapping of group name -> list of members ('mine: [gpt-4o, tiny]' lines)"),
        ("other: [tiny]\ntiny: [tiny]\n", ":2: group 'tiny' has the name of a model"),
    ],
)  # fmt: skip
def test_bad_groups_name_their_line(tmp_path: Path, text: str, message: str) -> None:
    """Each was `groups.yaml: ...` without the line (a group of many lines, a file of many
    groups); a group of one name written without brackets was not told how to write it."""
    _write(tmp_path, "tiny.yaml", GOOD)
    path = _write(tmp_path, "groups.yaml", text)
    with pytest.raises(RosterError) as error:
        load_groups(directory=tmp_path)
    assert str(error.value) == f"{path}{message}"


def test_roster_from_a_directory(tmp_path: Path) -> None:
    _write(tmp_path, "tiny.yaml", GOOD)
    assert list(load_roster(directory=tmp_path)) == ["tiny"]
    assert [row.name for row in list_models(directory=tmp_path)] == ["tiny"]
    assert [s.name for s in select_models("all", directory=tmp_path)] == ["tiny"]


# -- CLI ---------------------------------------------------------------------------------------------
def test_models_cli_lists_and_shows() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["models", "--group", "closed"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    assert "10 models in group closed" in listed.output
    one = runner.invoke(app, ["models", "--group", "local"], env={"COLUMNS": "200"})
    assert one.exit_code == 0 and "1 model in group local" in one.output  # was "1 models"
    assert "claude-3-7-sonnet-20250219" in listed.output
    judges = runner.invoke(app, ["models", "--judges"], env={"COLUMNS": "200"})
    assert judges.exit_code == 0 and "local-openai" in judges.output
    shown = runner.invoke(app, ["models", "show", "qwen2.5-72b-instruct"])
    assert shown.exit_code == 0, shown.output
    assert "tensor_parallel_size: 4" in shown.output
    assert "generators/qwen2.5-72b-instruct.yaml" in shown.output
    unknown = runner.invoke(app, ["models", "show", "gpt-4oo"])
    assert unknown.exit_code == 2 and "did you mean" in unknown.output
    bad_group = runner.invoke(app, ["models", "--group", "nope"])
    assert bad_group.exit_code == 2 and "unknown group 'nope'" in bad_group.output


@pytest.mark.parametrize(
    "args",
    [
        ["models", "list", "--judges", "--group", "pilot"],
        ["models", "--judges", "list", "--group", "pilot"],
        ["models", "--judges", "--group", "pilot", "list"],
    ],
)
def test_models_list_is_the_listing(args: list[str]) -> None:
    """`dataset list`, `prompts list` and `batches list` exist, and `models list` answered "No
    such command 'list'": it prints the table `poemetric models` prints, with the same options
    before or after `list`."""
    wide = {"COLUMNS": "200"}
    listed = CliRunner().invoke(app, args, env=wide)
    assert listed.exit_code == 0, listed.output
    bare = CliRunner().invoke(app, ["models", "--judges", "--group", "pilot"], env=wide)
    assert listed.output == bare.output and "3 judges in group pilot" in listed.output
    every = CliRunner().invoke(app, ["models", "list"], env=wide)
    assert every.output == CliRunner().invoke(app, ["models"], env=wide).output


@pytest.mark.parametrize(
    "value",
    ["sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "local-secret", "0a1b2c3d" * 8],
    ids=["openai-key", "dashed", "hex-key"],
)
def test_a_key_pasted_into_api_key_env_is_refused_without_repeating_it(
    tmp_path: Path, value: str
) -> None:
    """`api_key_env: sk-...` (the key where its variable's name belongs) was accepted: `models
    show` printed the key, and `generate` printed it in "set the environment variable sk-..."."""
    _write(tmp_path, "tiny.yaml", GOOD.replace("TINY_API_KEY", value))
    with pytest.raises(RosterError) as raised:
        load_model_file(tmp_path / "tiny.yaml")
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'tiny.yaml'}:8: api_key_env must be the name of the")
    assert value not in message
    env = {"POEMETRIC_GENERATORS_DIR": str(tmp_path), "COLUMNS": "300"}
    shown = CliRunner().invoke(app, ["models", "show", "tiny"], env=env)
    assert shown.exit_code == 2 and value not in shown.output


def test_a_variable_name_in_api_key_env_is_fine(tmp_path: Path) -> None:
    for value in ("OPENAI_API_KEY", "my_key_2", "TOGETHER_API_KEY_FOR_THE_POEMETRIC_PROJECT_RUNS"):
        _write(tmp_path, "tiny.yaml", GOOD.replace("TINY_API_KEY", value))
        assert load_model_file(tmp_path / "tiny.yaml").api_key_env == value


def test_models_show_prints_only_the_fields_of_the_models_role() -> None:
    """`models show markov` printed `template: null`, `structured: 'off'` and `reask: 1`, judge
    settings that a generator file is refused for setting."""
    generator = CliRunner().invoke(app, ["models", "show", "markov"])
    assert generator.exit_code == 0, generator.output
    keys = {line.split(":")[0] for line in generator.output.splitlines()}
    assert {"provider", "settings", "pricing", "options"} <= keys
    assert not keys & set(JUDGE_ONLY_FIELDS)
    judge = CliRunner().invoke(app, ["models", "show", "local-openai", "--judges"])
    assert judge.exit_code == 0, judge.output
    assert set(JUDGE_ONLY_FIELDS) <= {line.split(":")[0] for line in judge.output.splitlines()}


def test_models_show_prints_the_vllm_block_only_for_provider_vllm() -> None:
    """`models show markov` (any provider but vllm) printed `vllm: null`, a block that its file
    is refused for setting."""
    markov = CliRunner().invoke(app, ["models", "show", "markov"])
    assert markov.exit_code == 0, markov.output
    assert "vllm" not in {line.split(":")[0] for line in markov.output.splitlines()}
    local = CliRunner().invoke(app, ["models", "show", "deepseek-r1-distill-llama-8b"])
    assert local.exit_code == 0, local.output
    assert "provider: vllm" in local.output
    assert "vllm" in {line.split(":")[0] for line in local.output.splitlines()}


@pytest.mark.parametrize("where", ["before", "after"])
def test_models_show_judges_flag_before_or_after_show(where: str) -> None:
    """`models --judges show gpt-4o` showed generators/gpt-4o.yaml: the flag before `show` went
    to the listing and was dropped, and the generator file was shown as the judge."""
    args = ["models", "--judges", "show", "gpt-4o"]
    if where == "after":
        args = ["models", "show", "gpt-4o", "--judges"]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[0].endswith("judges/gpt-4o.yaml")


def test_models_show_names_the_other_roster() -> None:
    """A judge asked for as a generator was "unknown generator 'local-openai'", with no hint."""
    judge = CliRunner().invoke(app, ["models", "show", "local-openai"])
    assert judge.exit_code == 2
    assert judge.stderr.strip() == (
        "error: unknown generator 'local-openai'; it is a judge: "
        "`poemetric models show local-openai --judges`"
    )
    generator = CliRunner().invoke(app, ["models", "--judges", "show", "markov"])
    assert generator.exit_code == 2
    assert "it is a generator: `poemetric models show markov`" in generator.stderr


@pytest.mark.parametrize(
    ("args", "listing"),
    [
        (["paper30"], "poemetric models --group paper30"),
        (["pilot", "--judges"], "poemetric models --judges --group pilot"),
    ],
    ids=["generators", "judges"],
)
def test_models_show_of_a_group_names_the_listing(args: list[str], listing: str) -> None:
    """`models show paper30` (the README's group) said only "unknown generator 'paper30'"."""
    result = CliRunner().invoke(app, ["models", "show", *args], env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    kind = "judge" if "--judges" in args else "generator"
    assert result.stderr.strip() == (
        f"error: unknown {kind} {args[0]!r}; it is a group: `{listing}` lists its models"
    )
    assert CliRunner().invoke(app, listing.split()[1:]).exit_code == 0


def test_two_files_of_one_model_in_one_folder_are_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tiny.yaml` beside an old `tiny.yml`: the `.yml` was used and the edited `.yaml` ignored,
    without a word. Across folders a later file still replaces an earlier one."""
    _write(tmp_path / "mine", "tiny.yaml", GOOD)
    _write(tmp_path / "mine", "tiny.yml", GOOD.replace("max_tokens: 64", "max_tokens: 32"))
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(tmp_path / "mine"))
    with pytest.raises(RosterError) as raised:
        load_roster()
    assert str(raised.value) == (
        f"{tmp_path / 'mine' / 'tiny.yaml'} and tiny.yml both define generator 'tiny'; keep one "
        "of them"
    )
    (tmp_path / "mine" / "tiny.yml").rename(tmp_path / "tiny.yml")
    _write(tmp_path / "later", "tiny.yml", GOOD.replace("max_tokens: 64", "max_tokens: 32"))
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", f"{tmp_path / 'mine'}:{tmp_path / 'later'}")
    assert load_roster()["tiny"].settings.max_tokens == 32


def test_a_command_reads_each_model_file_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`poemetric models` read every model file three times (rows, unusable files, groups),
    `demo` its generators twice, the `hf:` and `vllm:` scorers twice and `probe build
    --generator` twice: each loads the roster once and passes it on."""
    from poemetric.probes.scorers import make_scorer
    from poemetric.probes.scorers.hf import spec_for
    from poemetric.probes.scorers.vllm_scorer import vllm_spec_for
    from poemetric.roster import loading

    read: list[Path] = []
    real = loading.load_model_file

    def reading(path: Path, *args: object, **kwargs: bool) -> object:
        read.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    def invoke(*args: str) -> str:
        return CliRunner().invoke(app, list(args), env={"COLUMNS": "400"}).output

    monkeypatch.setattr(loading, "load_model_file", reading)
    out = str(tmp_path / "out")
    build = ("probe", "build", "demo", "-o", out, "-t", "last_line", "--generator", "nosuch")
    runs: list[tuple[Callable[[], object], str]] = [
        (lambda: invoke("models"), "gpt-4o"),
        (lambda: invoke("models", "--judges"), "local-openai"),
        (lambda: invoke("demo", "--run", out, "--judge", "nosuch"), "unknown judge 'nosuch'"),
        (lambda: invoke(*build), "unknown generator 'nosuch'"),
        (lambda: spec_for("smollm2-135m").model, "SmolLM2-135M-Instruct"),
        (lambda: vllm_spec_for("org/model").model, "org/model"),
        (lambda: make_scorer("chat:gpt-4o").name, "chat:gpt-4o"),
    ]
    for run, expected in runs:
        read.clear()
        assert expected in str(run())
        assert read and len(read) == len(set(read)), (expected, len(read), len(set(read)))
    assert not (tmp_path / "out").exists()


def test_an_unknown_name_says_where_model_files_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written to a folder of one's own without exporting POEMETRIC_GENERATORS_DIR (or in
    another shell) was "unknown model or group 'markov3' (did you mean 'markov'?)": the close
    name pointed away from the cause. Every lookup now names the folders read and the variable."""
    folder = tmp_path / "my-models"
    _write(folder, "markov3.yaml", "name: markov3\nprovider: markov\nmodel: markov-ngram\n")
    bundled = resource_path("generators")
    hint = f"(files read from {bundled}; a folder of your own: POEMETRIC_GENERATORS_DIR=DIR)"
    run = str(tmp_path / "run")
    for args in (["generate", "--run", run, "--models", "markov3", "--dry-run"],
                 ["models", "show", "markov3"]):  # fmt: skip
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and hint in result.stderr, result.output
    judge = CliRunner().invoke(app, ["judge", "--run", run, "--judge", "my-judge"])
    assert judge.exit_code == 2
    assert f"(files read from {resource_path('judges')}; a folder of your own: " in judge.stderr
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))  # as the hint says
    found = CliRunner().invoke(app, ["generate", "--run", run, "--models", "markov3", "--dry-run"])
    assert found.exit_code == 0, found.output


def test_a_generator_file_is_not_offered_the_judge_settings(tmp_path: Path) -> None:
    """A generator file's `reaks: 2` was told "did you mean 'reask'?" with reask, structured and
    template among the allowed keys; written so, the file was then refused as setting a judge
    setting. A judge file is still offered them. An empty file said "got NoneType"."""
    text = "name: bad\nprovider: markov\nmodel: m\nreaks: 2\n"
    generators, judges = tmp_path / "generators", tmp_path / "judges"
    for folder in (generators, judges):
        _write(folder, "bad.yaml", text)
    with pytest.raises(RosterError) as generator:
        load_model_file(generators / "bad.yaml", kind="generators")
    assert str(generator.value).endswith(
        "bad.yaml:4: reaks: unknown key 'reaks'; allowed: api_key_env, base_url, display_name, "
        "groups, in_all, limits, model, name, notes, open_weights, options, pricing, provider, "
        "settings, thinking, vllm"
    )
    with pytest.raises(RosterError, match=r"reaks: unknown key 'reaks' \(did you mean 'reask'"):
        load_model_file(judges / "bad.yaml", kind="judges")
    empty = _write(tmp_path, "empty.yaml", "")
    with pytest.raises(RosterError, match=r"empty\.yaml: expected a mapping of model fields, "
                       r"got an empty file$"):  # fmt: skip
        load_model_file(empty)
