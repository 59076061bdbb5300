"""`$POEMETRIC_HOME`'s dataset registry and errata, valid YAML with a wrong field (a misspelt
key, a wrong type, a missing key, a list where a mapping goes, an unknown name, a value out of
range): each is one `error: FILE:LINE: field: what is wrong` (the closest key or name where one
is close), exit 2, nothing printed before it. They were pydantic tracebacks, `dataset show`'s
after its table."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from poemetric.data.registry import DatasetEntry
from poemetric.paths import RESOURCE_DIRS, resource_root


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the resources ($POEMETRIC_HOME), each test's files written over it."""
    folder = tmp_path_factory.mktemp("home")
    for kind in RESOURCE_DIRS:
        shutil.copytree(resource_root() / kind, folder / kind)
    return folder


def _edited(home: Path, name: str, old: str, new: str, into: str | None = None) -> tuple[Path, str]:
    """`datasets/NAME` (written as `datasets/INTO`) with `old` written as `new`; the file and
    its text as shipped."""
    path = home / "datasets" / (into or name)
    shipped = (resource_root() / "datasets" / name).read_text(encoding="utf-8")
    assert old in shipped, old
    path.write_text(shipped.replace(old, new, 1), encoding="utf-8")
    return path, shipped


def _refused(home: Path, *args: str) -> str:
    """The stderr of `poemetric ARGS` that must refuse its input: exit 2, nothing on stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "poemetric", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400", "POEMETRIC_HOME": str(home)},
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stderr


DEMO = "  - name: demo\n"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    file: poems.csv\n    bundled: true\n    sha256: 2fa",
         "    fiel: poems.csv\n    bundled: true\n    sha256: 2fa",
         ":10: datasets[0].fiel: unknown key 'fiel' (did you mean 'file'?)"),
        ("datasets:\n", "dataset:\n", ":5: dataset: unknown key 'dataset' (did you mean 'datasets'?)"),
        ("    poems: 16\n", "    poems: many\n", ":13: datasets[0].poems: 'many' is not a whole number"),
        ("    poems: 16\n", "    poems: -3\n", ":13: datasets[0].poems: -3 should be at least 1"),
        ("    bundled: true\n", "    bundled: sure\n", ":11: datasets[0].bundled: 'sure' is not true or false"),
        ("    file: poems.csv\n", "", ":6: datasets[0].file: missing (add a line 'file: ...')"),
        (DEMO, "  - [demo]\n  - name: demo\n",
         ":6: datasets[0]: should be a mapping: {key: value}, or 'key: value' lines indented below "
         "it (keys: bundled, commit, description, file, licence, name, poems, repository, sha256, url)"),
        ("    sha256: 2fa1e65b66c15aabcacef8e54cafb58f393977dab4a2fe1ce58b29eda711d50e\n",
         "    sha256: 2fa1e65b\n",
         ":12: datasets[0].sha256: '2fa1e65b' is not a sha256: 64 hexadecimal digits, as "
         "`sha256sum FILE` prints"),
        ("  - name: lear-limericks\n", DEMO, ":15: datasets[1].name: 'demo' names another dataset too (line 6)"),
    ],
    ids=["misspelt", "misspelt-top", "type", "range", "bool", "missing", "list", "sha256", "twice"],
)  # fmt: skip
def test_a_wrong_field_in_the_registry_is_one_error(
    home: Path, old: str, new: str, message: str
) -> None:
    path, shipped = _edited(home, "registry.yaml", old, new)
    try:
        assert _refused(home, "dataset", "list") == f"error: {path}{message}\n"
    finally:
        path.write_text(shipped, encoding="utf-8")


def test_a_registry_of_several_wrong_fields_names_each(home: Path) -> None:
    """A list where a mapping goes at the top, and a key beside it: each on its own line."""
    path, shipped = _edited(home, "registry.yaml", "datasets:\n", "datasets:\n  x: 1\nother:\n")
    try:
        assert _refused(home, "dataset", "list").splitlines() == [
            f"error: {path}:5: datasets: should be a list: [a, b] (one item: [a]), or one "
            "'- item' line each below it",
            f"  {path}:7: other: unknown key 'other'; allowed: datasets",
        ]
    finally:
        path.write_text(shipped, encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    evidence: >-\n      A Petrarchan", "    evidense: >-\n      A Petrarchan",
         ":20: errata[0].evidense: unknown key 'evidense' (did you mean 'evidence'?)"),
        ("  - row: 124\n", "  - row: first\n", ":15: errata[0].row: 'first' is not a whole number"),
        ("  - row: 124\n", "  - row: 0\n", ":15: errata[0].row: 0 should be at least 1"),
        ("    content_sha256: eef2ba91a5006b52\n", "",
         ":15: errata[0].content_sha256: missing (add a line 'content_sha256: ...')"),
        ("    field: rhyme_pattern\n", "    field: rhyme_patern\n",
         ":17: errata[0].field: 'rhyme_patern' should be 'rhyme_pattern', 'meter_pattern' or "
         "'form' (did you mean 'rhyme_pattern'?)"),
        ("errata:\n", "errata:\n  row: 1\nmore:\n",
         ":14: errata: should be a list: [a, b] (one item: [a]), or one '- item' line each below "
         "it\n  {path}:16: more: unknown key 'more'; allowed: errata, release_sha256"),
    ],
    ids=["misspelt", "type", "range", "missing", "name", "list"],
)  # fmt: skip
def test_a_wrong_field_in_the_errata_is_one_error_before_the_table(
    home: Path, old: str, new: str, message: str
) -> None:
    """`dataset show demo` with errata of demo (the release's, as demo's own): it printed the
    table, then the traceback."""
    path, _ = _edited(home, "poemetric/errata.yaml", old, new, into="demo/errata.yaml")
    try:
        stderr = _refused(home, "dataset", "show", "demo", "--limit", "2")
        assert stderr == f"error: {path}{message.format(path=path)}\n"
    finally:
        path.unlink()


def test_a_registry_sha256_in_capitals_is_the_file_hash() -> None:
    """An upper-case sha256 (as some tools print it) never equalled the file's: every command
    called the file 'not the pinned' one."""
    digest = "2FA1E65B66C15AABCACEF8E54CAFB58F393977DAB4A2FE1CE58B29EDA711D50E"
    entry = DatasetEntry(name="x", description="x", file="x.csv", sha256=digest)
    assert entry.sha256 == digest.lower()
