"""The survey secret every private link is derived from: a file too short to be one (an empty
file a failed write left) is refused, never used as the key of links anyone could derive."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from survey_support import answers_of, serving, survey_run

from poemetric import paths
from poemetric.store import RunStore
from poemetric.survey import tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import create_app


def _public_token(*parts: str) -> str:
    """The token the HMAC of an empty key gives: anyone can compute it from the names."""
    digest = hmac.new(b"", "\x00".join(parts).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = survey_run(tmp_path_factory.mktemp("secret") / "run", poems=2)
    with RunStore(path, create=False) as store:
        build_survey(store, raters="ann,ben", per_rater=2, per_poem=2, seed=1)
    tokens.load_secret(path)  # made as `survey links` makes it
    return path


@pytest.mark.parametrize("content", [b"", b"\x07" * 5])
def test_a_secret_file_cut_short_makes_no_links_and_serves_nothing(
    run: Path, content: bytes
) -> None:
    secret = tokens.secret_path(run)
    kept = secret.read_bytes()
    try:
        secret.write_bytes(content)
        done = subprocess.run(
            [sys.executable, "-m", "poemetric", "survey", "links", "--run", str(run),
             "--survey", "experts"],
            capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "400"},
        )  # fmt: skip
        assert done.returncode == 2, done.stdout + done.stderr
        assert "/r/" not in done.stdout and "/admin/" not in done.stdout
        assert _public_token("rater", "experts", "ann") not in done.stdout + done.stderr
        assert done.stderr.strip().splitlines() == [
            f"error: {secret}: holds {len(content)} bytes, not the 32 random bytes of a survey "
            "secret (a write that failed?), so the links made from it could be guessed; delete "
            "it and run the command again: a new secret makes new links (links and sheet codes "
            "printed before no longer open or import)"
        ]
        with pytest.raises(tokens.SurveySecretError, match="holds"):
            create_app(run, "experts")  # `survey serve` does not serve those links either
        assert secret.read_bytes() == content  # left for the user to see to
    finally:
        secret.write_bytes(kept)
    assert len(tokens.load_secret(run)) == 32


def test_a_secret_whose_write_fails_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while the secret is written: the empty file it left was read as the secret
    next time (links anyone could derive); now there is none, and the next command makes one."""
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, fd: int) -> None:
            self.handle = real_fdopen(fd, "wb")

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(paths.os, "fdopen", lambda fd, mode: FullDisk(fd))
    with pytest.raises(OSError, match="No space left"):
        tokens.load_secret(tmp_path)
    assert not tokens.secret_path(tmp_path).exists()
    monkeypatch.undo()
    secret = tokens.load_secret(tmp_path)
    assert len(secret) == 32 and tokens.secret_path(tmp_path).read_bytes() == secret
    assert tokens.secret_path(tmp_path).stat().st_mode & 0o777 == 0o600


def test_deleting_the_secret_revokes_the_links_of_a_survey_being_served(tmp_path: Path) -> None:
    """The docs: "deleting the secret revokes every link". A running `survey serve` held the
    tokens it started with: the links went on opening the survey (the admin page too) after the
    secret was deleted, and the new links `survey links` then printed were "not found" until the
    server was restarted."""
    run = survey_run(tmp_path / "run", poems=2)
    with RunStore(run, create=False) as store:
        build_survey(store, raters="ann,ben", per_rater=2, per_poem=2, seed=1)
    secret = tokens.load_secret(run)
    old = f"r/{tokens.rater_token(secret, 'experts', 'ann')}/1"
    old_admin = f"admin/{tokens.admin_token(secret, 'experts')}"
    csrf = tokens.csrf_token(secret, "experts", "ann")
    with serving(create_app(run, "experts")) as url:
        assert httpx.get(f"{url}/{old}").status_code == 200
        assert httpx.get(f"{url}/{old_admin}").status_code == 200
        tokens.secret_path(run).unlink()
        for address in (old, old.removesuffix("/1"), old_admin):
            assert httpx.get(f"{url}/{address}").status_code == 404, address
        saved = httpx.post(f"{url}/{old}/save", data={"csrf": csrf, "field": "form", "value": "4"})
        assert saved.status_code == 404 and answers_of(run, "ann") == {}
        fresh = tokens.load_secret(run)  # `survey links` makes a new secret, and new links
        new = f"r/{tokens.rater_token(fresh, 'experts', 'ann')}/1"
        assert httpx.get(f"{url}/{new}").status_code == 200
        assert httpx.get(f"{url}/admin/{tokens.admin_token(fresh, 'experts')}").status_code == 200
        assert httpx.get(f"{url}/{old}").status_code == 404
        new_csrf = tokens.csrf_token(fresh, "experts", "ann")
        assert httpx.post(f"{url}/{new}/save", data={"csrf": csrf, "field": "form",
                                                     "value": "4"}).status_code == 403  # fmt: skip
        assert httpx.post(f"{url}/{new}/save", data={"csrf": new_csrf, "field": "form",
                                                     "value": "4"}).status_code == 200  # fmt: skip
