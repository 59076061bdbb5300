"""Uniqueness of a user's own poem files (`poemetric ghostwriting score --reference`).

Uniqueness (docs/ghostwriting.md, section 3) is a poem's largest tf-idf similarity to a text of
a *reference corpus*: the poems given alone do not define it (scored against one another, a
folder of drafts of one poem would read as near-copies of each other, and one poem has nothing
to compare with). `ghostwriting metrics --run` takes the run's dataset as the corpus; `score`
takes the corpora named by `--reference`, read as `metrics --reference` reads them. A poem is
not compared with its own file when a `--reference` folder (or file) holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from poemetric.ghostwriting.uniqueness import Nearest

#: What `score` says when no `--reference` is given (the uniqueness column is left out).
NO_REFERENCE = "no uniqueness column without --reference CORPUS (see --help)"


@dataclass
class OwnUniqueness:
    """Each poem's nearest reference text (in the order of the poems), and the corpus read."""

    nearest: list[Nearest]
    #: What `score` prints under its table: each poem's nearest text, the corpus, the near-copies.
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _own_ids(poem: Path, corpora: Sequence[tuple[Path, str]]) -> set[str]:
    """The reference ids (`load_reference_corpus`'s, with `reference_corpora`'s prefixes) that
    are the poem's own file."""
    resolved = poem.resolve()
    ids: set[str] = set()
    for corpus, prefix in corpora:
        root = corpus.resolve()
        if corpus.is_dir() and resolved.is_relative_to(root):
            ids.add(f"{prefix}/{resolved.relative_to(root)}")
        elif corpus.is_file() and root == resolved:
            ids.add(prefix)
    return ids


def own_poems_uniqueness(
    poems: Sequence[tuple[Path, str]], corpora: Sequence[Path], threshold: float
) -> OwnUniqueness:
    """Uniqueness of each (file, text) against the texts of `corpora`; raises
    `ReferenceCorpusError` for an unreadable corpus, or one with no text but the poems' own."""
    from poemetric.ghostwriting.references import (
        ReferenceCorpusError,
        load_reference_corpora,
        reference_corpora,
    )
    from poemetric.ghostwriting.uniqueness import UniquenessIndex, is_near_copy
    from poemetric.text.plural import counted

    loaded = load_reference_corpora(corpora)
    named_corpora = reference_corpora(corpora)  # each path resolved once, not once a poem
    exclude = [_own_ids(path, named_corpora) for path, _ in poems]
    ids = {text.id for text in loaded.texts}
    if all(ids <= mine for mine in exclude):
        raise ReferenceCorpusError(
            f"{', '.join(map(str, corpora))}: no text but the poems scored; a poem is not "
            "compared with its own file, so give a corpus of other texts"
        )
    index = UniquenessIndex(loaded.texts)
    nearest = index.nearest([text for _, text in poems], exclude)
    named = [_nearest_line(path, found) for (path, _), found in zip(poems, nearest, strict=True)]
    lines = [line for line in named if line is not None]
    copies = [
        str(path)
        for (path, _), found in zip(poems, nearest, strict=True)
        if is_near_copy(found.similarity, threshold)
    ]
    skipped = f" ({counted(len(loaded.empty), 'empty file')} skipped)" if loaded.empty else ""
    lines.append(
        f"uniqueness: highest similarity to one of {counted(len(loaded.texts), 'reference text')}"
        f"{skipped}, 1.0 = a copy (higher = less unique); near-copies (>= {threshold:g}): "
        + (", ".join(copies) if copies else "none")
    )
    return OwnUniqueness(nearest, lines, loaded.notes)


def _nearest_line(path: Path, found: Nearest) -> str | None:
    if found.reference_id is not None:
        return f"{path}: nearest {found.reference_label} ({found.reference_id})"
    if found.similarity == 0.0:
        return f"{path}: no word in common with any reference text (uniqueness 0)"
    return None  # a text without words: no similarity at all
