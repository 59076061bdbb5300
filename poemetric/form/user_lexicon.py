"""Pronunciations a user adds: a file of CMUdict lines the form check reads before CMUdict.

    # names.txt (a comment; CMUdict's own ;;; comments are read too)
    KILDARE  K IH0 L D EH1 R
    SIOBHAN  SH IH0 V AO1 N
    SIOBHAN(2)  SH AH0 V AO1 N

A word's lines (case and CMUdict's ``(2)`` marks ignored; in file order) replace whatever
CMUdict, the contraction table or a letter-to-sound guess would give that word, and its
inflections and compounds are built on them as on CMUdict's (*Kildare's*). The file is given
by `--lexicon FILE` on `poemetric form check`, `form scan` and `form run`, else by
`POEMETRIC_LEXICON` (`resolve`); from Python, `read_lexicon` and `use_lexicon` / `using`
(the pipeline stage: `run_form_stage(..., lexicon=...)`). Worker processes get it from
`poemetric.form.parallel`.

A malformed line is a `LexiconError` naming the file and line (every such line, up to
`MAX_PROBLEMS`): no phones after the word, a phone that is not ARPAbet (the message lists
the 39), a vowel without its stress digit (0, 1, 2), a consonant with one, no vowel at all.

Its `digest` (of the entries, not of comments or spacing) is part of the checker version a
check records (`recorded_version`), so `form run` re-checks stored
verdicts when the file changes or is left out, and `merge` never takes checks made with two
lexicons for the same. The per-machine tables (`poemetric.form.lexicon`, the metre module's
word entries) hold CMUdict alone: they are opened, and built if need be, before a user lexicon
is put in use (`use_lexicon`), and a word the user lexicon touches is never read from them
(`touches`).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

#: The environment variable naming a user lexicon when no `--lexicon` is given (empty: none).
ENV_VAR = "POEMETRIC_LEXICON"
#: CMUdict's phone set (ARPAbet, as `cmudict.phones()` lists it): vowels take a stress digit.
VOWELS = frozenset(
    ("AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW")
)
CONSONANTS = frozenset(
    (
        "B",
        "CH",
        "D",
        "DH",
        "F",
        "G",
        "HH",
        "JH",
        "K",
        "L",
        "M",
        "N",
        "NG",
        "P",
        "R",
        "S",
        "SH",
        "T",
        "TH",
        "V",
        "W",
        "Y",
        "Z",
        "ZH",
    )
)
#: Malformed lines named in one error (then a count).
MAX_PROBLEMS = 10

_VARIANT = re.compile(r"\(\d+\)$")


class LexiconError(ValueError):
    """A user lexicon that cannot be used; the message names the file and each bad line."""


@dataclass(frozen=True)
class UserLexicon:
    """Words (normalised as the checker looks them up) -> pronunciations, from `source`."""

    source: str
    entries: dict[str, tuple[str, ...]] = field(hash=False)
    digest: str = ""

    def __len__(self) -> int:
        return len(self.entries)


def read_lexicon(path: Path) -> UserLexicon:
    """The user lexicon in `path` (UTF-8; `poemetric.data.text_files`); `LexiconError` names
    the file and every malformed line."""
    from poemetric.data.text_files import TextFileError, read_utf8_file

    try:
        text = read_utf8_file(path)
    except TextFileError as error:
        raise LexiconError(str(error)) from None
    return parse_lexicon(text, str(path))


def parse_lexicon(text: str, source: str) -> UserLexicon:
    """The user lexicon in `text`, read from `source` (named in errors)."""
    from poemetric.form.phonetics import normalize_word

    entries: dict[str, list[str]] = {}
    problems: list[str] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith(";;;"):
            continue
        word, *phones = line.split()
        key = normalize_word(_VARIANT.sub("", word))
        problem = _problem(phones) if key else f"{word!r} is not a word"
        if problem is not None:
            problems.append(f"{source}:{number}: {problem} (in {line!r})")
            continue
        found = entries.setdefault(key, [])
        spoken = " ".join(phone.upper() for phone in phones)
        if spoken not in found:
            found.append(spoken)
    if problems:
        more = len(problems) - MAX_PROBLEMS
        listed = problems[:MAX_PROBLEMS] + ([f"... and {more} more"] if more > 0 else [])
        raise LexiconError("\n".join(listed))
    if not entries:
        raise LexiconError(
            f"{source}: no pronunciations (lines such as 'KILDARE  K IH0 L D EH1 R')"
        )
    done = {key: tuple(found) for key, found in entries.items()}
    body = "\n".join(f"{key} {'|'.join(found)}" for key, found in sorted(done.items()))
    return UserLexicon(source, done, hashlib.sha256(body.encode()).hexdigest()[:12])


def _problem(phones: list[str]) -> str | None:
    """What is wrong with a line's phones, or None."""
    if not phones:
        return "no phones after the word (a line is a word, then its ARPAbet phones)"
    for phone in phones:
        upper = phone.upper()
        base, digit = (upper[:-1], upper[-1]) if upper[-1:].isdigit() else (upper, "")
        if base not in VOWELS and base not in CONSONANTS:
            return (
                f"unknown phone {phone!r}; the ARPAbet phones are {' '.join(sorted(VOWELS))} "
                f"(vowels, each with a stress digit 0, 1 or 2) and "
                f"{' '.join(sorted(CONSONANTS))}"
            )
        if base in VOWELS and digit not in {"0", "1", "2"}:
            return (
                f"vowel {phone!r} needs a stress digit: 0 (unstressed), 1 (primary), 2 (secondary)"
            )
        if base in CONSONANTS and digit:
            return f"consonant {phone!r} takes no stress digit"
    if not any(phone[-1:].isdigit() for phone in phones):
        return "no vowel: a word needs at least one (with its stress digit)"
    return None


def resolve(option: Path | None) -> UserLexicon | None:
    """The user lexicon of a command: `--lexicon FILE` when given, else the file named by
    `POEMETRIC_LEXICON` (unset or empty: none)."""
    if option is not None:
        return read_lexicon(option)
    named = os.environ.get(ENV_VAR, "").strip()
    if not named:
        return None
    try:
        return read_lexicon(Path(named).expanduser())
    except LexiconError as error:
        raise LexiconError(f"{ENV_VAR}: {error}") from None


# -- the lexicon in use ----------------------------------------------------------------------------

_active: UserLexicon | None = None


def recorded_version() -> str:
    """The checker version a check records: `CHECKER_VERSION`, and with a user lexicon in use
    the digest of its entries, `form-2.14+lexicon-<digest>`: checks made with other
    pronunciations are not the same checks (`form run` re-checks them, `merge` does not take
    one for the other)."""
    return version_with(_active)


def version_with(lexicon: UserLexicon | None) -> str:
    """The checker version of checks made with `lexicon` (None: CMUdict alone)."""
    from poemetric.form.checker import CHECKER_VERSION

    return CHECKER_VERSION if lexicon is None else f"{CHECKER_VERSION}+lexicon-{lexicon.digest}"


def active() -> UserLexicon | None:
    """The user lexicon the checker reads now (None: CMUdict alone)."""
    return _active


def phones(key: str) -> tuple[str, ...]:
    """The user's pronunciations of a normalised word (empty when it has none)."""
    lexicon = _active
    return () if lexicon is None else lexicon.entries.get(key, ())


def touches(key: str) -> bool:
    """Whether the user lexicon may change how `key` is read: the word itself, or the *-ee*
    word that an older spelling in *-e* is also read as (*se*, *see*: `phonetics`)."""
    lexicon = _active
    return lexicon is not None and (key in lexicon.entries or key + "e" in lexicon.entries)


def use_lexicon(lexicon: UserLexicon | None) -> None:
    """Check with `lexicon` from now on (None: CMUdict alone). Every cached pronunciation,
    rhyme and scansion is forgotten when it changes."""
    global _active
    if (None if _active is None else _active.digest) == (
        None if lexicon is None else lexicon.digest
    ):
        _active = lexicon
        return
    if lexicon is not None and _active is None:
        from poemetric.form import meter_words

        meter_words.word_entry_table().get("the")  # built from CMUdict alone if it is not yet
    _active = lexicon
    clear_word_caches()
    for forget in _WATCHERS:
        forget()


#: Cache clearers of modules outside the checker that keep words' readings
#: (`ghostwriting.syllables`), registered with `on_change`.
_WATCHERS: list[Callable[[], None]] = []


def on_change(forget: Callable[[], None]) -> None:
    """Call `forget` whenever the lexicon in use changes (a cache of readings to clear)."""
    _WATCHERS.append(forget)


@contextmanager
def using(lexicon: UserLexicon | None) -> Iterator[None]:
    """`use_lexicon(lexicon)` within the block, the one in use before after it."""
    before = _active
    use_lexicon(lexicon)
    try:
        yield
    finally:
        use_lexicon(before)


#: Cached functions that hold no word's reading (tables opened, metre templates): kept.
_KEPT = frozenset(
    {
        "poemetric.form.lexicon.store",
        "poemetric.form.lexicon.table",
        "poemetric.form.meter_words.word_entry_table",
        "poemetric.form.meter_templates._stored_realisations",
        "poemetric.form.meter_templates.length_table",
    }
)


def clear_word_caches() -> None:
    """Forget every cached result of the checker's modules that may hold a word's reading
    (`functools` caches of the loaded `poemetric.form` modules, and the metre module's own)."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("poemetric.form.") or module is None:
            continue
        for attribute, value in vars(module).items():
            if (
                callable(getattr(value, "cache_clear", None))
                and getattr(value, "__module__", None) == name
                and f"{name}.{attribute}" not in _KEPT
            ):
                value.cache_clear()
        if name == "poemetric.form.meter":
            module.clear_caches()


def default_version() -> str | None:
    """The checker version `form run` records by default: with the user lexicon that
    $POEMETRIC_LEXICON names, or none; None when that file is unusable (then no stored check is
    this checker's). `poemetric merge` keeps, of two checks by different versions, this one's."""
    named = os.environ.get(ENV_VAR, "").strip()
    return _default_version(named, _modified(named))


@lru_cache(maxsize=4)
def _default_version(_named: str, _modified: int) -> str | None:
    """`default_version`, keyed by the file and its time of change: read once per merge, not
    once per row."""
    try:
        return version_with(resolve(None))
    except LexiconError:
        return None


def _modified(named: str) -> int:
    try:
        return Path(named).expanduser().stat().st_mtime_ns if named else 0
    except OSError:
        return -1
