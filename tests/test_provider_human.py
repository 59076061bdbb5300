"""`human`, the dataset's own author, was offered as a provider ("available: ..., human, ...")
and a model file naming it ran: the "model" copied the human poems under its own name (and a
judge of it answered with the poem). It is not a provider a model file can name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from test_provider_plugins import cli, user_models

from poemetric.store import RunStore

__all__ = ["user_models"]  # fixture


def test_human_is_not_a_provider_a_model_file_can_name(
    user_models: Callable[..., Path], tmp_path: Path
) -> None:
    copy = user_models("generators", "copy", "name: copy\nprovider: human\nmodel: x\n")
    judge = user_models("judges", "copy", "name: copy\nprovider: human\nmodel: x\n")
    user_models("generators", "typo", "name: typo\nprovider: nosuch\nmodel: x\n")
    short = "provider 'human' cannot be named in a model file (the dataset's author)"

    code, out, err = cli("models")
    assert code == 0 and f"  copy: {short}  ({copy}:2)" in out.splitlines(), out + err
    code, out, err = cli("models", "--judges")
    assert code == 0 and f"  copy: {short}  ({judge}:2)" in out.splitlines(), out + err
    code, out, err = cli("models", "show", "copy")
    assert (
        code == 2
        and err.splitlines()[0] == f"error: {copy}:2: model 'copy' cannot be used: {short}"
    )
    assert err.splitlines()[1].startswith(
        f"  {copy}:2: provider 'human' is the dataset's own author (the human poems every run "
        "holds), not a provider a model file can name"
    )

    # The list of providers offered for an unknown one leaves `human` out.
    code, out, err = cli("models", "show", "typo")
    (offered,) = [line for line in err.splitlines() if "unknown provider 'nosuch'" in line]
    available = offered.split("available: ")[1].split(" (")[0].split(", ")
    assert "markov" in available and "openai" in available and "human" not in available

    # It ran before: the "model" copy wrote the human poems under its own name.
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "copy,markov", "--limit",
                         "2", "--no-progress")  # fmt: skip
    assert code == 2 and err.startswith(f"error: {copy}:2: model 'copy' cannot be used: {short}")
    assert not run.exists()
    code, out, err = cli("generate", "--run", str(run), "--models", "markov", "--limit", "2",
                         "--no-progress")  # fmt: skip
    assert code == 0, out + err
    code, out, err = cli("judge", "--run", str(run), "--judge", "copy", "--no-progress")
    assert code == 2 and err.startswith(f"error: {judge}:2: judge 'copy' cannot be used: {short}")
    with RunStore(run) as store:
        assert store.count("judgments") == 0
