"""Download (or copy) a registry dataset into the user data dir, verified by sha256.

The file is written to a temporary name next to the target and moved into place only when its
hash matches (and, given `validate`, when it reads as a dataset), so a failed, tampered or
unusable download never leaves a file behind, nor replaces the file that was there.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import httpx

from poemetric.data.io import DatasetError
from poemetric.data.registry import DatasetEntry, get_entry
from poemetric.hints import program
from poemetric.paths import replaced_when_done

CHUNK_SIZE = 1 << 16
DEFAULT_TIMEOUT_S = 60.0


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(CHUNK_SIZE), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_dataset(
    name: str = "poemetric",
    *,
    source: str | Path | None = None,
    url: str | None = None,
    commit: str | None = None,
    sha256: str | None = None,
    dest: str | Path | None = None,
    force: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    validate: Callable[[Path], object] | None = None,
) -> Path:
    """Put dataset `name` at its user-data path (or `dest`) and return that path.

    `source` copies a local file instead of downloading. `url`, `commit` and `sha256` override
    the registry's pinned values (for mirrors, newer releases and tests). An existing file with
    the expected hash is kept unless `force`. `validate` (e.g. `load_dataset`) is called on the
    new file before it is moved into place; its `DatasetError` keeps the earlier file.
    """
    entry = get_entry(name)
    if entry.bundled:
        raise DatasetError(f"dataset {name!r} is bundled with POEMetric; nothing to fetch")
    expected = (sha256 or entry.sha256 or "").lower() or None
    target = Path(dest) if dest is not None else entry.path
    if target.is_file() and not force and (expected is None or file_sha256(target) == expected):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # The temporary name ends in the target's suffix, so that `validate` reads its format.
    with replaced_when_done(target, suffix=f".part{target.suffix}") as temp:
        with temp.open("wb") as out:
            if source is not None:
                origin = str(source)
                digest = _copy_local(Path(source), out)
            else:
                origin = _resolve_url(entry, url, commit)
                digest = _download(origin, out, timeout_s, entry.name)
        if expected is not None and digest != expected:
            raise DatasetError(
                f"sha256 mismatch for {origin}: expected {expected}, got {digest}; "
                f"nothing was written to {target}"
                + (
                    _not_the_release(entry, origin, commit)
                    if source is not None and sha256 is None
                    else ""
                )
            )
        if validate is not None:
            try:
                validate(temp)
            except DatasetError as error:
                raise DatasetError(
                    f"{str(error).replace(str(temp), origin)}; nothing was written to {target}"
                ) from None
    return target


def _not_the_release(entry: DatasetEntry, origin: str, commit: str | None) -> str:
    """What to do with a `--from` file that is not the release: the message was the two hashes
    alone, and a user with a dataset of their own did not learn that it needs no fetching."""
    url = entry.download_url(commit)
    fetch = (
        f"to fetch the release, run `{program()} dataset fetch {entry.name}` (it downloads {url})"
        if url
        else "to fetch the release, pass the release file to --from"
    )
    return (
        f". {origin} is not the {entry.name!r} release; to use your own file, pass its path "
        f"where a dataset is asked for (`--dataset {shlex.quote(origin)}`), without fetching it; "
        + fetch
    )


def _resolve_url(entry: DatasetEntry, url: str | None, commit: str | None) -> str:
    if url is not None:
        return url.format(commit=commit or entry.commit or "main")
    resolved = entry.download_url(commit)
    if resolved is None:
        raise DatasetError(f"dataset {entry.name!r} has no download URL; use --from PATH")
    return resolved


def _copy_local(source: Path, out: BinaryIO) -> str:
    if not source.is_file():
        raise DatasetError(f"--from {source}: no such file")
    digest = hashlib.sha256()
    with source.open("rb") as stream:
        for chunk in iter(lambda: stream.read(CHUNK_SIZE), b""):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _download(url: str, out: BinaryIO, timeout_s: float, name: str) -> str:
    digest = hashlib.sha256()
    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=timeout_s) as response:
            response.raise_for_status()
            for chunk in response.iter_bytes(CHUNK_SIZE):
                digest.update(chunk)
                out.write(chunk)
    except httpx.HTTPStatusError as error:
        raise DatasetError(
            f"download failed: {url} answered HTTP {error.response.status_code}; check the URL "
            "and commit, or download the file yourself and pass it with --from PATH"
        ) from None
    except httpx.HTTPError as error:
        raise DatasetError(
            f"could not download {url} ({type(error).__name__}: {error}); if you are offline, "
            f"download the file on another machine and run `{program()} dataset fetch {name} "
            "--from PATH`"
        ) from None
    return digest.hexdigest()
