"""Model prices: a paid model whose file gives none costs an unknown amount, not $0."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric.cli.generate_cmd  # registers `poemetric generate`
import poemetric.cli.models_cmd  # noqa: F401 - registers `poemetric models`
from poemetric.cli.app import app
from poemetric.roster import load_model_file, load_roster, price_unknown
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

UNPRICED = """\
name: {name}
provider: openai-compatible
model: some-paid-model
base_url: https://api.example.com/v1
api_key_env: TINY_API_KEY
"""


@pytest.fixture(autouse=True)
def _no_user_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "unpriced.yaml").write_text(UNPRICED.format(name="unpriced"))
    discount_only = UNPRICED.format(name="discount-only") + "pricing: {batch_discount: 1.0}\n"
    (folder / "discount-only.yaml").write_text(discount_only)
    return folder


def test_shipped_models_all_have_a_known_price() -> None:
    for kind in ("generators", "judges"):
        for spec in load_roster(kind).values():  # type: ignore[arg-type]
            assert not price_unknown(spec), f"{kind}/{spec.name}"


def test_a_paid_model_without_prices_is_unknown_and_a_local_one_is_free(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert price_unknown(load_model_file(folder / "unpriced.yaml"))
    assert price_unknown(load_model_file(folder / "discount-only.yaml"))
    assert not price_unknown(load_roster()["markov"])  # no pricing: in its file, and local


def test_models_shows_an_unknown_price_as_unknown(tmp_path: Path) -> None:
    env = {"POEMETRIC_GENERATORS_DIR": str(_folder(tmp_path)), "COLUMNS": "250"}
    listed = CliRunner().invoke(app, ["models"], env=env)
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.output.splitlines() if line.startswith("unpriced "))
    assert row.count("?") == 2 and " - " not in row  # "-" is free (a local model)
    assert "price ?: discount-only, unpriced give no pricing: in their files" in listed.output


def test_max_cost_refuses_a_model_of_unknown_price(tmp_path: Path) -> None:
    """`--max-cost 1` let every call of such a model through: its estimate and cost were $0."""
    env = {"POEMETRIC_GENERATORS_DIR": str(_folder(tmp_path))}
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "unpriced,gpt-4o", "--dry-run"]
    refused = CliRunner().invoke(app, [*args, "--max-cost", "1"], env=env)
    assert refused.exit_code == 2, refused.output
    assert refused.stderr.startswith(
        "error: --max-cost cannot bound unpriced: its price is unknown"
    )
    assert not run.exists()
    warned = CliRunner().invoke(app, args, env=env)
    assert warned.exit_code == 0, warned.output
    assert "warning: price unknown for unpriced: its cost is counted as $0" in warned.stderr
    priced = CliRunner().invoke(app, [*args[:4], "gpt-4o,markov", "--dry-run", "--max-cost", "1"])
    assert priced.exit_code == 0 and "price unknown" not in priced.stderr


LOCAL = """\
name: {name}
provider: openai-compatible
model: {model}
base_url: {base_url}
api_key_env: LOCAL_SERVER_KEY
"""


def test_a_server_on_this_machine_is_free_not_of_unknown_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model behind a `vllm serve` / llama.cpp / Ollama on localhost, whose file gives no
    pricing (nothing to price), showed `?`, was warned about by every command, and `--max-cost`
    refused it, so a run mixing it with paid models could not be capped."""
    folder = tmp_path / "mine"
    folder.mkdir()
    monkeypatch.setenv("LOCAL_SERVER_KEY", "EMPTY")
    with OpenAIServer() as server:
        urls = {
            "lora-a": ("Qwen/Qwen2.5-7B-Instruct", f"http://localhost:{server.port}/v1"),
            "lora-b": ("llama3:8b", f"http://127.0.0.1:{server.port}/v1/"),
        }
        for name, (model, url) in urls.items():
            (folder / f"{name}.yaml").write_text(LOCAL.format(name=name, model=model, base_url=url))
        assert not any(price_unknown(load_model_file(folder / f"{n}.yaml")) for n in urls)
        env = {"POEMETRIC_GENERATORS_DIR": str(folder), "COLUMNS": "250"}
        listed = CliRunner().invoke(app, ["models"], env=env)
        assert listed.exit_code == 0, listed.output
        rows = [line for line in listed.output.splitlines() if line.startswith("lora-")]
        assert len(rows) == 2 and all(row.count(" - ") == 2 and "?" not in row for row in rows)
        assert "price ?" not in listed.output
        run = tmp_path / "run"
        args = ["generate", "--run", str(run), "--limit", "2", "--max-cost", "1", "--models"]
        capped = CliRunner().invoke(app, [*args, "lora-a,lora-b,gpt-4o", "--dry-run"], env=env)
        assert capped.exit_code == 0, capped.output
        assert "price unknown" not in capped.stderr
        ran = CliRunner().invoke(app, [*args, "lora-a,lora-b", "--no-progress"], env=env)
        assert ran.exit_code == 0 and "price unknown" not in ran.stderr, ran.output
    assert {call.body["model"] for call in server.generation_requests} == {
        "Qwen/Qwen2.5-7B-Instruct",
        "llama3:8b",
    }
    with RunStore(run, create=False) as store:
        assert store.count("generations", "status = 'ok' AND author LIKE 'lora-%'") == 4


def test_probe_commands_that_pay_warn_of_an_unknown_price(tmp_path: Path) -> None:
    """`probe run --scorer chat:` and `probe build -t last_line` with an API generator pay for
    their calls too: an unpriced model's cost was printed as $0.0000 without a word."""
    import poemetric.cli.probe_cmd  # noqa: F401 - registers `poemetric probe`
    from poemetric.probes.pairs import Pair, write_jsonl

    env = {"POEMETRIC_GENERATORS_DIR": str(_folder(tmp_path))}  # TINY_API_KEY unset: no call
    pairs = tmp_path / "pairs.jsonl"
    poem = "There was an Old Man with a beard,\nWho said, 'It is just as I feared!'"
    pair = Pair(
        id="p1", poem_id="poem1", task="synonym", original=poem, corrupted=poem.replace("d,", ",")
    )
    write_jsonl([pair], pairs)
    probe = ["probe", "run", str(pairs), "-o", str(tmp_path / "s.jsonl"), "--no-progress"]
    run = ["--run", str(tmp_path / "run")]
    warning = "warning: price unknown for unpriced: its cost is counted as $0"
    scored = CliRunner().invoke(app, [*probe, *run, "--scorer", "chat:unpriced"], env=env)
    assert warning in scored.stderr, scored.output
    build = ["probe", "build", "demo", "-t", "last_line", "--generator", "unpriced"]
    built = CliRunner().invoke(app, [*build, *run, "-o", str(tmp_path / "ll.jsonl")], env=env)
    assert warning in built.stderr, built.output
    priced = CliRunner().invoke(app, [*probe, *run, "--scorer", "chat:gpt-4o"], env=env)
    assert "price unknown" not in priced.stderr
