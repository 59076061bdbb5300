"""Where POEMetric finds its bundled resources and keeps user data."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

RESOURCE_DIRS = ("prompts", "datasets", "judges", "generators", "analysis")
#: The run folder's survey secret (beside `poemetric.sqlite`, never inside it): every rater and
#: admin link is derived from it (`poemetric.survey.tokens`), and `merge` carries it over
#: (`poemetric.store.merge_surveys`), so it is named here, below both.
SURVEY_SECRET_FILE = "survey-secret.key"


@cache
def resource_root() -> Path:
    """Directory holding `prompts/`, `datasets/`, `judges/`, `generators/` and `analysis/`.

    Order: `$POEMETRIC_HOME`, the source checkout (editable install), then the copy bundled
    into the wheel under `poemetric/_resources`.
    """
    override = os.environ.get("POEMETRIC_HOME")
    if override:
        return Path(override).expanduser().resolve()
    return installed_root()


def installed_root() -> Path:
    """The resource folders that came with POEMetric (the checkout's, or the wheel's
    `poemetric/_resources`), whether or not `$POEMETRIC_HOME` replaces them."""
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "prompts").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    return Path(__file__).resolve().parent / "_resources"


def docs_dir() -> Path:
    """The documentation pages (`docs/NAME.md`, which help texts and messages name): the
    checkout's `docs/`, or the copy in the wheel's `poemetric/_resources/docs`. Not replaced by
    `$POEMETRIC_HOME`, which holds data, not the pages that describe this version."""
    return installed_root() / "docs"


def resource_path(kind: str, *parts: str) -> Path:
    if kind not in RESOURCE_DIRS:
        raise ValueError(f"unknown resource kind {kind!r}; expected one of {RESOURCE_DIRS}")
    return resource_root().joinpath(kind, *parts)


def home_lacks(kind: str, *parts: str) -> str:
    """Why a bundled folder (or, with `parts`, a file in it) is missing when `$POEMETRIC_HOME` is
    set and lacks it (a home made for a few files of one kind replaces every bundled folder); ""
    otherwise. A reinstall, which the messages suggested, does not bring it back."""
    if not os.environ.get("POEMETRIC_HOME"):
        return ""
    if not resource_path(kind).is_dir():
        return (
            f"POEMETRIC_HOME={resource_root()} has no {kind}/ and replaces every bundled folder "
            f"({', '.join(RESOURCE_DIRS)}): copy the ones you keep into it"
        )
    if not parts or resource_path(kind, *parts).exists():
        return ""
    # Its folder is there (made for a file of one's own) without this bundled file: a reinstall
    # was suggested, which changes nothing under the home.
    name = "/".join((kind, *parts))
    installed = installed_root().joinpath(kind, *parts)
    source = f": copy it from {installed}" if installed.exists() else ""
    return (
        f"POEMETRIC_HOME={resource_root()} replaces the bundled folders and has no {name}{source}"
    )


def bundled_recipes() -> list[str]:
    """Names of the figure recipes in `analysis/` (`NAME.yaml`), sorted: what `figures
    --recipe` lists (its help named two of three from a list kept by hand)."""
    return sorted(path.stem for path in resource_path("analysis").glob("*.yaml"))


#: Bytes of a survey secret (`secrets.token_bytes`, made by `poemetric.survey.tokens`).
SURVEY_SECRET_BYTES = 32


class SurveySecretError(ValueError):
    """A survey secret file too short to be one: every link derived from it is guessable."""


def survey_secret_path(run_dir: Path) -> Path:
    """The survey secret file of the run folder `run_dir` (`SURVEY_SECRET_FILE`)."""
    return Path(run_dir) / SURVEY_SECRET_FILE


def read_survey_secret(run_dir: Path) -> bytes | None:
    """The run's survey secret, None when it has none. One shorter than a secret is refused: an
    empty file (left by a write that failed: a full disk) or one cut short gave links anyone could
    derive from the survey's and the raters' names (the HMAC of an empty key), served as if
    private, and poem codes that no longer hid which poem a sheet shows."""
    path = survey_secret_path(run_dir)
    if not path.is_file():
        return None
    secret = path.read_bytes()
    if len(secret) < SURVEY_SECRET_BYTES:
        raise SurveySecretError(
            f"{path}: holds {len(secret)} bytes, not the {SURVEY_SECRET_BYTES} random bytes of a "
            "survey secret (a write that failed?), so the links made from it could be guessed; "
            "delete it and run the command again: a new secret makes new links (links and sheet "
            "codes printed before no longer open or import)"
        )
    return secret


def write_secret_file(path: Path, secret: bytes) -> None:
    """Write `secret` to a new file at `path`, readable by its owner alone (mode 0600; an
    existing file is an error, never overwritten). A write that fails (a full disk, Ctrl-C)
    leaves no file, not one cut short that would stand for the secret afterwards."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secret)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def user_data_path(*parts: str) -> Path:
    """Per-user data directory (downloaded datasets, caches); `$POEMETRIC_DATA_DIR` overrides."""
    from platformdirs import user_data_dir  # here: `replaced_when_done` users need not load it

    base = os.environ.get("POEMETRIC_DATA_DIR") or user_data_dir("poemetric", appauthor=False)
    return Path(base).expanduser().joinpath(*parts)


def user_cache_path(*parts: str) -> Path:
    """Per-machine caches (the form checker's tables, a local GGUF model's converted copy):
    `$POEMETRIC_CACHE_DIR`, else platformdirs' user cache dir."""
    base = os.environ.get("POEMETRIC_CACHE_DIR")
    if not base:
        from platformdirs import user_cache_dir

        base = user_cache_dir("poemetric", appauthor=False)
    return Path(base).expanduser().joinpath(*parts)


@contextmanager
def replaced_when_done(path: Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary file beside `path` (its name ending in `suffix`), moved onto it when the
    block ends without an exception: an interrupted write (Ctrl-C) or a rejected one leaves the
    earlier file whole, never a truncated one. A `path` that is neither a regular file nor absent
    (a device such as /dev/null, a FIFO) is refused with an `OSError`: the move would replace it,
    for every process, with a plain file."""
    if path.exists() and not path.is_file():
        raise OSError(errno.EINVAL, "not a regular file (a folder, device or pipe)", str(path))
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(handle)
    temp = Path(name)
    try:
        yield temp
        temp.chmod(0o644)  # mkstemp creates 0600
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
