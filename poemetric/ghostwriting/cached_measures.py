"""The per-poem ghostwriting measures, looked up in the run's `MeasureCache` before they are
measured and stored there after (docs/analysis.md, "Measures kept in the run"): `analyze`,
`report` and `figures` on one run measure each poem once, and a resumed or merged run measures
only its new poems.

* A text's measures (`TextMeasures`) depend on the text alone, given the code and the options
  `window_lines` and `raplyzer_phonetics`: version `text_version(options)`, item the text's
  digest. eSpeak's vowels (`raplyzer_phonetics="espeak"`) depend on the eSpeak program
  installed, which no digest here sees: they are measured every time.
* A poem's nearest reference text (similarity, reference id) depends on its text, the reference
  ids it is not compared with, and the reference corpus: its ids and texts in order (a tie goes
  to the first): version `uniqueness_version(references)`, item the digest of the text and the
  excluded ids. Labels are looked up by id (a relabelled corpus is not measured again). The
  figure's corpus (the run's originals) is the tables' (the dataset snapshot) unless the run
  was prepared with `--limit`: then each has its own version.

Both versions hold `code_digest()`: the bytes of every module in `MEASURE_SOURCES`, the
lexicon's version tag (CMUdict), the Python and library versions, and `MEASURES_VERSION`,
raised by hand for a change none of these shows.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Collection, Iterable, Sequence
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from poemetric.form import user_lexicon
from poemetric.ghostwriting.language import not_english_reason
from poemetric.ghostwriting.raplyzer import raplyzer_density
from poemetric.ghostwriting.rhyme_density import rhyme_density
from poemetric.ghostwriting.uniqueness import Nearest, ReferenceText, UniquenessIndex

if TYPE_CHECKING:
    from poemetric.ghostwriting.metrics import GhostwritingOptions
    from poemetric.progress_lines import Advance
    from poemetric.store.measure_cache import MeasureCache

#: Raise for a change to the measures that the modules below do not show.
MEASURES_VERSION = 1
#: Modules (under poemetric/) whose code decides a measure: a change to any of them measures
#: every poem again. tests/test_ghostwriting_cache.py checks that every module the measures
#: import is here or known not to matter.
MEASURE_SOURCES = (
    "ghostwriting/cached_measures.py",
    "ghostwriting/metrics.py",
    "ghostwriting/rhyme_density.py",
    "ghostwriting/raplyzer.py",
    "ghostwriting/syllables.py",
    "ghostwriting/language.py",
    "ghostwriting/uniqueness.py",
    "text/tokens.py",
    "screening.py",
    "text/apostrophes.py",
    "text/lines.py",
    "form/phonetics.py",
    "form/phonetic_tables.py",
    "form/morphology.py",
    "form/dictionary.py",
    "form/letter_to_sound.py",
    "form/letter_tables.py",
    "form/lexicon.py",
    "form/user_lexicon.py",
)
#: Libraries whose versions are part of `code_digest` (tf-idf, sparse products).
LIBRARIES = ("numpy", "scipy", "scikit-learn")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
TEXT_KIND = "ghostwriting text"
UNIQUENESS_KIND = "ghostwriting uniqueness"


class TextMeasures(NamedTuple):
    """The measures of one text, in the order of `metrics.POEM_COLUMNS`."""

    syllables: int
    rhymed_syllables: int
    rhyme_density_unweighted: float
    entropy_weight: float
    rhyme_density: float
    rhyme_density_raplyzer: float
    english: bool


_TEXT_TYPES = (int, int, float, float, float, float, bool)


@cache
def code_digest() -> str:
    """A digest of what decides the measures besides their inputs (the module docstring)."""
    return code_digest_of(PACKAGE_ROOT)


def code_digest_of(root: Path) -> str:
    """`code_digest` of the modules in `root` (a copy of the package's folder)."""
    from poemetric.form import lexicon

    digest = hashlib.sha256(f"measures {MEASURES_VERSION}\n".encode())
    for name in MEASURE_SOURCES:
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    libraries = [f"{name} {_version(name)}" for name in LIBRARIES]
    python = f"python {sys.version_info.major}.{sys.version_info.minor}"
    digest.update(json.dumps([lexicon.store().tag, python, *libraries]).encode())
    return digest.hexdigest()


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


def _digest(*parts: object) -> str:
    payload = json.dumps(parts, ensure_ascii=True)  # any text, lone surrogates included
    return hashlib.sha256(payload.encode("ascii")).hexdigest()[:32]


def text_version(options: GhostwritingOptions) -> str | None:
    """The version of the text measures under `options`; None when they are not kept."""
    if options.raplyzer_phonetics != "cmu":
        return None
    # A user lexicon switched on in this process (Python API) changes the pronunciations read.
    lexicon = user_lexicon.active()
    return _digest(
        TEXT_KIND,
        code_digest(),
        options.window_lines,
        options.raplyzer_phonetics,
        *(() if lexicon is None else (f"lexicon {lexicon.digest}",)),
    )


def uniqueness_version(references: Iterable[ReferenceText]) -> str:
    """The version of the nearest references in the corpus `references` (ids and texts)."""
    corpus = hashlib.sha256()
    for reference in references:
        corpus.update(json.dumps([reference.id, reference.text]).encode("ascii") + b"\n")
    return _digest(UNIQUENESS_KIND, code_digest(), corpus.hexdigest())


def measure_text(text: str, options: GhostwritingOptions) -> TextMeasures:
    measured = rhyme_density(text, window_lines=options.window_lines)
    return TextMeasures(
        measured.syllables,
        measured.rhymed_syllables,
        measured.raw,
        measured.entropy_weight,
        measured.density,
        raplyzer_density(text, phonetics=options.raplyzer_phonetics),
        not_english_reason(text) is None,
    )


def text_measures(
    texts: Sequence[str],
    options: GhostwritingOptions,
    store: MeasureCache | None = None,
    advance: Advance | None = None,
) -> list[TextMeasures]:
    """Each text's measures, from `store` where it has them; the others are measured (each
    distinct text once) and stored. `advance(done, total)` after each text."""
    version = text_version(options) if store is not None else None
    kept = store.read(version) if store is not None and version is not None else {}
    known: dict[str, TextMeasures] = {}
    new: dict[str, list[Any]] = {}
    result: list[TextMeasures] = []
    for done, text in enumerate(texts, start=1):
        measures = known.get(text)
        if measures is None:
            item = _digest(text)
            measures = _stored_text(kept.get(item))
            if measures is None:
                measures = measure_text(text, options)
                new[item] = list(measures)
            known[text] = measures
        result.append(measures)
        if advance is not None:
            advance(done, len(texts))
    if store is not None and version is not None:
        store.write(TEXT_KIND, version, new)
    return result


def _stored_text(value: Any) -> TextMeasures | None:
    """A stored value as `TextMeasures`, or None when it is not one (then measured again)."""
    if not isinstance(value, list) or len(value) != len(_TEXT_TYPES):
        return None
    if not all(type(v) is t for v, t in zip(value, _TEXT_TYPES, strict=True)):
        return None
    return TextMeasures(*value)


def nearest_references(
    texts: Sequence[str],
    exclude: Sequence[Collection[str]],
    references: Sequence[ReferenceText],
    store: MeasureCache | None = None,
) -> list[Nearest]:
    """Each text's nearest reference, leaving out the ids in `exclude[i]` for text i
    (`UniquenessIndex.nearest`), from `store` where it has them; the others are scored (the
    corpus indexed only then) and stored."""
    version = uniqueness_version(references) if store is not None else None
    kept = store.read(version) if store is not None and version is not None else {}
    labels = {reference.id: reference.label for reference in references}
    items = [_digest(text, sorted(skipped)) for text, skipped in zip(texts, exclude, strict=True)]
    found = [_stored_nearest(kept.get(item), labels) for item in items]
    missing = [k for k, nearest in enumerate(found) if nearest is None]
    new: dict[str, list[Any]] = {}
    if missing:
        index = UniquenessIndex(references)
        scored = index.nearest([texts[k] for k in missing], [exclude[k] for k in missing])
        for k, nearest in zip(missing, scored, strict=True):
            found[k] = nearest
            new[items[k]] = [nearest.similarity, nearest.reference_id]
    if store is not None and version is not None:
        store.write(UNIQUENESS_KIND, version, new)
    return [nearest for nearest in found if nearest is not None]


def _stored_nearest(value: Any, labels: dict[str, str]) -> Nearest | None:
    if not isinstance(value, list) or len(value) != 2 or type(value[0]) is not float:
        return None
    similarity, reference = value
    if reference is None and (math.isnan(similarity) or similarity == 0.0):
        return Nearest(similarity, None, None)
    if not isinstance(reference, str) or reference not in labels:
        return None
    return Nearest(similarity, reference, labels[reference])
