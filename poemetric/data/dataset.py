"""`load_dataset`: a validated, immutable list of poems from a name or a file."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from poemetric.data.io import SUPPORTED_SUFFIXES, DatasetError, RawTable
from poemetric.data.registry import dataset_registry
from poemetric.data.schema import Poem, PoemForm
from poemetric.data.validation import validate_file
from poemetric.hints import program
from poemetric.suggest import did_you_mean
from poemetric.text.plural import counted, plural

#: How many problems a DatasetError lists before "... and N more".
ERRORS_SHOWN = 20
#: How many dataset files of a folder given as a dataset its error names.
FOLDER_FILES_SHOWN = 3
#: A dataset card's suffixes: listed beside the data files of a folder given as a dataset.
CARD_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset. `sha256` is the hash of the file's bytes (for provenance); `warnings`
    are `validate`'s warnings of the file (a meter the form checker cannot read, a JSONL key read
    as empty, ignored columns), which a command preparing a run from it passes on."""

    name: str
    path: Path
    sha256: str
    poems: list[Poem]
    warnings: tuple[str, ...] = ()
    #: Each poem's `file:line` (`file:row N` in Parquet), by poem id, for messages.
    where: Mapping[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.poems)

    def __iter__(self) -> Iterator[Poem]:
        return iter(self.poems)

    def get(self, poem_id: str) -> Poem:
        for poem in self.poems:
            if poem.poem_id == poem_id:
                return poem
        raise KeyError(f"no poem {poem_id!r} in dataset {self.name!r}")

    def head(self, limit: int | None) -> Dataset:
        """The first `limit` poems (all when None), keeping name, path and hash."""
        if limit is None:
            return self
        return Dataset(
            self.name, self.path, self.sha256, self.poems[:limit], self.warnings, self.where
        )

    def only(self, poem_ids: Collection[str]) -> Dataset:
        """The poems whose id is in `poem_ids`, in file order, keeping name, path and hash."""
        kept = [poem for poem in self.poems if poem.poem_id in poem_ids]
        return Dataset(self.name, self.path, self.sha256, kept, self.warnings)

    def form_counts(self) -> dict[PoemForm, int]:
        counts = Counter(poem.form for poem in self.poems)
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0].value)))

    def store_rows(self) -> list[dict[str, object]]:
        """Rows for `RunStore.add_poems`, positions in file order."""
        return [poem.to_store_row(self.name, index) for index, poem in enumerate(self.poems)]


#: A poem kept as a text file of its own (a folder of them is how many hold their poems).
POEM_TEXT_SUFFIXES = (".txt", ".md")
POEM_TEXT_HOW = (
    "a dataset is one table of poems, each with its form, title, author, meter_pattern, "
    "rhyme_pattern and theme (docs/datasets.md): put each poem's text in the content column of "
    "a CSV file; `poemetric form scan FILE --form FORM` checks one poem's text"
)


def resolve_dataset(spec: str | Path) -> tuple[str, Path]:
    """(name, path) for a registry name (`demo`, `poemetric`) or a file path."""
    if isinstance(spec, str) and spec in (registry := dataset_registry()):
        entry = registry[spec]
        if not entry.present:
            raise DatasetError(entry.missing_message())
        return entry.name, entry.path
    path = Path(spec).expanduser()
    if path.is_file():
        suffix = path.suffix.lower()
        if suffix in POEM_TEXT_SUFFIXES:
            raise DatasetError(
                f"{path}: unsupported file type {suffix!r}, a poem's text: {POEM_TEXT_HOW}"
            )
        return path.stem, path
    if path.is_dir():  # was "unknown dataset '/tmp'", as if the name were mistyped
        raise DatasetError(_folder_message(path))
    if isinstance(spec, str) and path.suffix.lower() not in SUPPORTED_SUFFIXES:
        known = ", ".join(sorted(dataset_registry()))
        raise DatasetError(
            f"unknown dataset {spec!r}{did_you_mean(spec, dataset_registry())}: expected a "
            f"dataset name ({known}) or the path to a "
            f"{'/'.join(SUPPORTED_SUFFIXES)} file"
        )
    raise DatasetError(f"dataset file {path} does not exist")


def _folder_message(folder: Path) -> str:
    """Why a folder is no dataset, and the dataset files it holds (a few, with their paths)."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.is_file())
    except OSError:
        names = []
    data = [name for name in names if Path(name).suffix.lower() in SUPPORTED_SUFFIXES]
    cards = [name for name in names if Path(name).suffix.lower() in CARD_SUFFIXES]
    found = [str(folder / name) for name in (*data, *cards)]
    known = ", ".join(sorted(dataset_registry()))
    message = (
        f"dataset {str(folder)!r} is a folder, not a file: give a dataset name ({known}) or the "
        f"path to a {'/'.join(SUPPORTED_SUFFIXES)} file"
    )
    # Several text files are likely poems, one a file; a lone one is more likely notes.
    texts = [name for name in names if Path(name).suffix.lower() in POEM_TEXT_SUFFIXES]
    if not found and len(texts) > 1:
        return f"{message}; it holds {counted(len(texts), 'text file')} (poems?): {POEM_TEXT_HOW}"
    if not found:
        return message
    more = len(found) - FOLDER_FILES_SHOWN
    listed = ", ".join(found[:FOLDER_FILES_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return f"{message}; the folder holds {listed}"


def load_dataset(
    spec: str | Path, *, data: bytes | None = None, table: RawTable | None = None
) -> Dataset:
    """Load and validate a dataset; raises DatasetError listing the first problems, if any.

    `spec` is `demo` (bundled), `poemetric` (the authors' release, after
    `poemetric dataset fetch poemetric`), or a path to a CSV/TSV/JSONL/Parquet file; `data` and
    `table` are that file's bytes and `read_table` of them when the caller has read them
    (`probe build` reads a file once to tell a dataset from a file of just the poems).
    """
    name, path = resolve_dataset(spec)
    report = validate_file(path, data, table)
    if not report.ok:
        raise DatasetError(
            f"{path}: {counted(len(report.issues), 'problem')}; fix "
            f"{plural(len(report.issues), 'it', 'them')} or run "
            f"`poemetric dataset validate {path}`:\n{report.summary(ERRORS_SHOWN)}"
        )
    mismatch = pinned_hash_mismatch(spec, report.sha256)
    if mismatch is not None:
        raise DatasetError(f"{path}: {mismatch}")
    return Dataset(
        name=name,
        path=path,
        sha256=report.sha256,
        poems=report.poems,
        warnings=tuple(report.warnings),
        where=report.where,
    )


def pinned_hash_mismatch(spec: str | Path, sha256: str) -> str | None:
    """Why the file that a fetched dataset's name (`poemetric`) resolved to, of this sha256, is
    not its pinned release; None for a path, a bundled dataset or the pinned file."""
    entry = dataset_registry().get(spec) if isinstance(spec, str) else None
    if entry is None or entry.bundled or not entry.sha256 or entry.sha256 == sha256:
        return None
    return (
        f"sha256 {sha256} is not the pinned {entry.sha256} of dataset {entry.name!r}, so it is "
        f"not read by that name; re-run `{program()} dataset fetch {entry.name}` (or pass its path)"
    )
