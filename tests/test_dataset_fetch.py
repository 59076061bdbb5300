"""Downloading a dataset from a local HTTP server (no network): hash check, atomic write."""

from __future__ import annotations

import hashlib
import http.server
import shutil
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from poemetric.data import DatasetError, load_dataset
from poemetric.data.fetch import fetch_dataset
from poemetric.paths import RESOURCE_DIRS, resource_root


@pytest.fixture
def served_dir(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A directory served over HTTP on 127.0.0.1; yields (directory, base URL)."""
    root = tmp_path / "www"
    root.mkdir()

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(QuietHandler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _small_release(root: Path) -> tuple[bytes, str]:
    demo_bytes = load_dataset("demo").path.read_bytes()
    (root / "abc123").mkdir()
    (root / "abc123" / "release.csv").write_bytes(demo_bytes)
    return demo_bytes, hashlib.sha256(demo_bytes).hexdigest()


def test_download_verifies_and_writes(served_dir: tuple[Path, str], tmp_path: Path) -> None:
    root, base = served_dir
    payload, digest = _small_release(root)
    dest = tmp_path / "data" / "release.csv"
    path = fetch_dataset(
        "poemetric", url=base + "/{commit}/release.csv", commit="abc123", sha256=digest, dest=dest
    )
    assert path == dest and dest.read_bytes() == payload
    assert len(load_dataset(dest)) == 16
    # Already present with the right hash: kept, no download needed (server may be gone).
    assert fetch_dataset("poemetric", url="http://127.0.0.1:9/x", sha256=digest, dest=dest) == dest


def test_download_with_wrong_hash_leaves_nothing(
    served_dir: tuple[Path, str], tmp_path: Path
) -> None:
    root, base = served_dir
    _small_release(root)
    dest_dir = tmp_path / "data"
    with pytest.raises(DatasetError, match=r"sha256 mismatch .* nothing was written"):
        fetch_dataset(
            "poemetric", url=f"{base}/abc123/release.csv", sha256="0" * 64, dest=dest_dir / "r.csv"
        )
    assert list(dest_dir.iterdir()) == []


def test_download_errors_are_clear(served_dir: tuple[Path, str], tmp_path: Path) -> None:
    _, base = served_dir
    with pytest.raises(DatasetError, match="HTTP 404"):
        fetch_dataset("poemetric", url=f"{base}/missing.csv", dest=tmp_path / "r.csv")
    with pytest.raises(DatasetError, match=r"--from PATH"):
        fetch_dataset("poemetric", url="http://127.0.0.1:9/x.csv", dest=tmp_path / "r.csv")
    assert list(tmp_path.glob("*.csv")) == [] and list(tmp_path.glob(".*part")) == []


def test_default_url_is_pinned() -> None:
    from poemetric.data import get_entry

    entry = get_entry("poemetric")
    assert entry.download_url() == (
        "https://raw.githubusercontent.com/Bingru-Li/POEMetric/"
        "80dc7cb37796aa58b07c8f04555574e1b1eb40b9/POEMetric_human_poems_annotated.csv"
    )
    assert entry.sha256 == "96dce2be83cabc5f2d5171b9546ae38badbf7516d09b71ac54ad3322d97fe7af"
    with pytest.raises(DatasetError, match="bundled"):
        fetch_dataset("demo")


def test_a_forced_fetch_of_an_unusable_file_keeps_the_earlier_one(
    served_dir: tuple[Path, str], tmp_path: Path
) -> None:
    """`fetch --from BAD --sha256 <its hash> --force` moved BAD over the good file, then failed
    to load it (exit 1, the good release gone). With `validate` it is checked first."""
    root, base = served_dir
    demo_bytes, demo_sha = _small_release(root)
    target = tmp_path / "data" / "r.csv"
    url = f"{base}/abc123/release.csv"
    fetch_dataset("poemetric", url=url, sha256=demo_sha, dest=target, validate=load_dataset)
    bad = b"poem_id,title\nx,no poem here\n"
    (root / "abc123" / "bad.csv").write_bytes(bad)
    with pytest.raises(DatasetError) as caught:
        fetch_dataset(
            "poemetric",
            url=f"{base}/abc123/bad.csv",
            sha256=hashlib.sha256(bad).hexdigest(),
            dest=target,
            force=True,
            validate=load_dataset,
        )
    message = str(caught.value)
    assert f"{base}/abc123/bad.csv" in message and f"nothing was written to {target}" in message
    assert ".part" not in message  # the temporary file is not named
    assert target.read_bytes() == demo_bytes
    assert [p.name for p in target.parent.iterdir()] == ["r.csv"]


def test_offline_hint_names_the_dataset_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dataset added to one's own registry that could not be downloaded was told to run
    `dataset fetch poemetric --from PATH`, another dataset's command."""
    home = tmp_path / "home"
    for kind in RESOURCE_DIRS:
        shutil.copytree(resource_root() / kind, home / kind)
    registry = home / "datasets" / "registry.yaml"
    registry.write_text(
        registry.read_text(encoding="utf-8").rstrip("\n")
        + "\n  - name: my-sonnets\n"
        + "    description: a lab's own sonnets\n"
        + "    file: sonnets.csv\n"
        + "    bundled: false\n"
        + "    url: http://127.0.0.1:9/sonnets.csv\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("POEMETRIC_HOME", str(home))
    resource_root.cache_clear()  # the resources are looked up once per process
    try:
        with pytest.raises(DatasetError) as raised:
            fetch_dataset("my-sonnets", dest=tmp_path / "s.csv")
    finally:
        resource_root.cache_clear()
    assert "dataset fetch my-sonnets --from PATH" in str(raised.value)
