"""The `user_model` fixture (conftest.py) the model-file tests share: the file it writes is a
model of the user's roster folder for its kind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from poemetric.roster import load_roster


def test_user_model_files_join_the_roster_of_their_kind(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    writer = user_model("generators", "mine", "name: mine\nprovider: markov\nmodel: markov\n")
    other = user_model("generators", "other", "name: other\nprovider: markov\nmodel: markov\n")
    judge = user_model("judges", "critic", "name: critic\nprovider: markov\nmodel: markov\n")
    assert writer == tmp_path / "generators" / "mine.yaml" and other.parent == writer.parent
    assert judge == tmp_path / "judges" / "critic.yaml"
    generators, judges = load_roster("generators"), load_roster("judges")
    assert {"mine", "other"} <= set(generators) and "critic" not in generators
    assert "critic" in judges and "mine" not in judges
