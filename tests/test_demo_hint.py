"""The demo's hint for adding a judge works when followed exactly as printed."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from test_runner_support import VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.cli.judging import LOCAL_BASE_URL_ENV
from poemetric.store import RunStore
from poemetric.testing.servers import ChatCall, OpenAIServer


def test_following_the_printed_local_judge_hint_judges_the_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in (
        "POEMETRIC_LOCAL_BASE_URL",
        "POEMETRIC_LOCAL_MODEL",
        "POEMETRIC_LOCAL_API_KEY",
    ):
        monkeypatch.delenv(variable, raising=False)
    run = tmp_path / "demo"
    demo = CliRunner().invoke(
        app, ["demo", "--run", str(run), "--limit", "1", "--no-progress"], terminal_width=200
    )
    assert demo.exit_code == 0, demo.output
    hint = demo.output[demo.output.index("Judge stage skipped") :]
    local = hint[hint.index("OpenAI-compatible") :]
    exports = dict(re.findall(r"export (\w+)=(\S+)", local))
    serve = re.search(r"vllm serve (\S+) --api-key (\S+)", local)
    command = re.search(r"(poemetric judge .*--judge local-openai)", local)
    assert serve and command and exports, hint
    # The hint's server: the model it names, checking the key it names. Only the port differs
    # (the test cannot own port 8000), so the printed base URL is swapped for the test server's.
    model, key = serve.groups()
    assert exports["POEMETRIC_LOCAL_MODEL"] == model
    assert exports[LOCAL_BASE_URL_ENV].startswith("http://127.0.0.1:")

    def answer(call: ChatCall) -> str:
        assert call.body["model"] == model
        return VALID_JUDGE_ANSWER

    with OpenAIServer(answer, api_key=key) as server:
        for variable, value in exports.items():
            monkeypatch.setenv(variable, value)
        monkeypatch.setenv(LOCAL_BASE_URL_ENV, server.base_url)
        args = shlex.split(command.group(1))[1:]
        judged = CliRunner().invoke(app, [*args, "--no-progress"])
        assert judged.exit_code == 0, judged.output
    with RunStore(run, create=False) as store:
        assert store.count("judgments", "status = 'ok'") == store.count("generations") == 2


def test_judge_without_a_judge_prints_the_demos_local_judge_commands(tmp_path: Path) -> None:
    """`judge` with no --judge and the demo's closing hint print the same (working, tested above)
    local-judge commands; `judge` said `--api-key local`, the demo `--api-key local-secret`."""
    from poemetric.cli.demo_cmd import judge_hint
    from poemetric.cli.judging import load_judges

    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["judge", "--run", str(run)], terminal_width=200)
    assert result.exit_code == 2

    def local_commands(text: str) -> list[str]:
        start = text.index("OpenAI-compatible")
        return [
            line.split("   #")[0].strip()
            for line in text[start:].splitlines()[1:6]
            if line.strip().startswith(("vllm serve", "export", "poemetric judge"))
        ]

    printed = local_commands(result.output)
    assert len(printed) == 5 and printed == local_commands(judge_hint(run, load_judges()))
    assert printed[0].endswith("--api-key local-secret")
    assert "export POEMETRIC_LOCAL_API_KEY=local-secret" in printed


def test_the_printed_local_model_hint_keeps_the_extra_in_brackets() -> None:
    """Printed through Rich, `pip install 'poemetric[local]'` lost `[local]` (read as a style
    tag), so the command a user copied installed no PyTorch or transformers."""
    from rich.console import Console

    from poemetric.cli.demo_cmd import install_hint

    console = Console(record=True, width=200)
    console.print(install_hint(["torch", "transformers"]), highlight=False, soft_wrap=True)
    printed = console.export_text()
    assert "pip install 'poemetric[local]'" in printed
    assert printed.startswith("Real model skipped: torch, transformers not installed.")


def test_the_local_model_hints_name_make_only_under_make(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pip user was told `make install` and `(`make demo` does)`, which they cannot run, and
    `pip install torch==2.13.0`, which gives the CUDA build (several GB) on Linux: the make
    commands are named under make only, and pip's PyTorch comes from PyTorch's CPU index."""
    from rich.console import Console

    from poemetric.cli.demo_cmd import install_hint, local_model_offer
    from poemetric.hints import MAKE_ENV
    from poemetric.providers.transformers_engine import install_hint as engine_hint

    def printed(markup: str) -> str:
        console = Console(record=True, width=200)
        console.print(markup, highlight=False, soft_wrap=True)
        return console.export_text()

    monkeypatch.delenv(MAKE_ENV, raising=False)
    for said in (printed(install_hint(["torch"])), printed(local_model_offer(4)), engine_hint()):
        assert "make" not in said, said
    cpu = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    assert cpu in printed(install_hint(["torch"])) and cpu in engine_hint()
    monkeypatch.setenv(MAKE_ENV, "1")
    assert "make install" in printed(install_hint(["torch"])) and "make install" in engine_hint()
    assert "pip" not in printed(install_hint(["torch"]))
