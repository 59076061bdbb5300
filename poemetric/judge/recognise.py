"""`poemetric judge recognise`: does a judge know the human poems it scores? (memorisation probe)

The paper found that Gemini-2.5-Pro recognised 80 of 203 human poems (39.4%), which bears on its
human-authorship scores. Here each judge is asked, for every human poem of the run, to name its
title and author (or to say it does not know); the answer is scored against the dataset with a
normalised fuzzy match and stored in `recognitions`. `analyze` reports the recognised share per
judge and splits human-authorship scores by recognised / not recognised.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
import unicodedata
from collections.abc import Sequence
from functools import partial
from typing import Any

from rich.console import Console

from poemetric.judge.answer_objects import load_pairs, object_spans
from poemetric.judge.finish import finish_note
from poemetric.judge.parse import split_reasoning
from poemetric.prompts import RECOGNISE_TEMPLATE, bundled_template
from poemetric.providers.base import Completion, ModelSpec, ResponseSchema
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.report import StageReport
from poemetric.runner.rows import ParsedAnswerRows, stored_statuses
from poemetric.runner.runner import RunnerOptions, rerun_in_child, run_stage
from poemetric.store.db import RunStore, stable_id
from poemetric.store.selections import record_selection

STAGE = "recognise"
#: Normalised similarity from which an answered title / author counts as the dataset's.
TITLE_MATCH = 0.8
AUTHOR_MATCH = 0.85
_UNKNOWN_AUTHORS = {"", "anonymous", "anon", "unknown", "traditional"}
_DONT_KNOW = re.compile(
    r"\b(?:do(?:n'?t| not)|cannot|can'?t)\s+(?:know|recogni[sz]e|identify)|\bnot familiar\b|"
    r"\bunknown\b|\bno idea\b",
    re.IGNORECASE,
)

RECOGNITION_SCHEMA = ResponseSchema(
    name="poem_recognition",
    schema={
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "The title, or empty if unknown."},
            "author": {"type": "string", "description": "The author, or empty if unknown."},
        },
        "required": ["title", "author"],
        "additionalProperties": False,
    },
    description="Record the title and author of the poem, if you know them.",
)


class RecognitionParseError(ValueError):
    pass


def recognition_id_for(poem_id: str, judge: str, sample_index: int) -> str:
    return stable_id("recognition", poem_id, judge, sample_index)


# -- matching -------------------------------------------------------------------------------------
def normalise(text: str | None) -> str:
    """Lower case, accents and punctuation removed, a leading article dropped."""
    if not text:
        return ""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    words = re.sub(r"[^\w\s]", " ", plain).split()
    if words and words[0] in {"the", "a", "an"}:
        words = words[1:]
    return " ".join(words)


#: A Roman numeral (strict: "IIII", "IL" and "VV" are not one).
_ROMAN = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
#: Words a numeral of a title follows: "Sonnet XVIII", "Canto I", "Book IV", "Part II".
_NUMBERED = frozenset({
    "sonnet", "sonnets", "canto", "cantos", "book", "part", "psalm", "chapter", "section",
    "elegy", "ode", "hymn", "poem", "no", "number", "epigram", "stanza", "act", "scene",
})  # fmt: skip


def _roman_value(numeral: str) -> int:
    values = [_ROMAN_VALUES[ch] for ch in numeral]
    return sum(-v if v < after else v for v, after in zip(values, [*values[1:], 0], strict=True))


def arabic_numerals(title: str) -> str:
    """`title` with its Roman numerals as digits ("Sonnet XVIII" is "Sonnet 18"): an upper-case
    numeral standing alone after a word such as Sonnet, Canto, Book, Part or Psalm, or ending
    a title that is not all capitals ("Elegy XIV"). Not the pronoun "I" ("Who Am I", "Song I
    Heard"; "Part I" and "Book I: ..." are numerals), nor words ("Mix", "CIVIL WAR", the last
    word of an all-capitals title: "THE BEST MIX")."""
    words = list(re.finditer(r"[^\W\d_]+|\d+", title))
    pieces, start = [], 0
    for index, word in enumerate(words):
        text = word.group()
        if not text.isupper() or not text.isascii() or not _ROMAN.fullmatch(text):
            continue
        last = index == len(words) - 1
        after_word = index > 0 and words[index - 1].group().lower() in _NUMBERED
        if text == "I":  # the pronoun, unless a numbered word's "I" ends the title or a clause
            follows = title[word.end() :].lstrip(" ")
            numeral = after_word and (not follows or not follows[0].isalnum())
        else:
            numeral = after_word or (last and not title.isupper())
        if numeral:
            pieces += [title[start : word.start()], str(_roman_value(text))]
            start = word.end()
    return "".join([*pieces, title[start:]])


def title_similarity(answered: str | None, truth: str | None) -> float:
    """1.0 for the same title (whole words of the longer one, at least 8 characters); 0.0 for
    titles with different numbers ("Sonnet 1" for "Sonnet 18", Roman numerals read as digits:
    "Sonnet XIX"); the normalised string similarity otherwise."""
    left, right = (normalise(arabic_numerals(t)) if t else "" for t in (answered, truth))
    if not left or not right:
        return 0.0
    numbers = [set(re.findall(r"\d+", side)) for side in (left, right)]
    if all(numbers) and not numbers[0] & numbers[1]:  # "Sonnet 1" is not "Sonnet 18"
        return 0.0
    shorter, longer = sorted((left, right), key=len)
    # Whole words: "Sonnet 18" for "Sonnet 18: Shall I...", not "Sonnet 1".
    if len(shorter) >= 8 and f" {shorter} " in f" {longer} ":
        return 1.0
    return difflib.SequenceMatcher(None, left, right).ratio()


def author_similarity(answered: str | None, truth: str | None) -> float:
    """1.0 for the same surname with compatible first names or initials ("W. B. Yeats",
    "Yeats" for "William Butler Yeats"); the normalised string similarity otherwise."""
    left, right = normalise(answered).split(), normalise(truth).split()
    if not left or not right:
        return 0.0
    if left[-1] == right[-1]:
        initials = [w[0] for w in left[:-1]], [w[0] for w in right[:-1]]
        shorter, longer = sorted(initials, key=len)
        if longer[: len(shorter)] == shorter or not shorter:
            return 1.0
    return difflib.SequenceMatcher(None, " ".join(left), " ".join(right)).ratio()


def is_recognised(
    title_score: float, author_score: float, title: str | None, author: str | None
) -> bool:
    """The judge named the poem: its author (when the dataset knows one) and its title (when
    the dataset has one); a poem with neither cannot be recognised."""
    known_author = normalise(author) not in _UNKNOWN_AUTHORS
    known_title = bool(normalise(title))
    if not known_author and not known_title:
        return False
    return (not known_author or author_score >= AUTHOR_MATCH) and (
        not known_title or title_score >= TITLE_MATCH
    )


def parse_recognition(text: str) -> tuple[str | None, str | None]:
    """(title, author) named in the answer, None for each one the judge did not know."""
    body, _, _ = split_reasoning(text)
    found: tuple[str | None, str | None] | None = None
    for start, end in object_spans(body):
        pairs = load_pairs(body[start:end])
        if pairs is None:
            continue
        fields = {str(k).strip().lower(): v for k, v in pairs}
        if "title" in fields or "author" in fields:
            answer = (_named(fields.get("title")), _named(fields.get("author")))
            if found is not None and found != answer:
                raise RecognitionParseError("the answer names two different poems")
            found = answer
    if found is not None:
        return found
    if _DONT_KNOW.search(body):
        return None, None
    raise RecognitionParseError("no {'title', 'author'} object in the answer")


def _named(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    return None if normalise(text) in {"", "null", "none", "unknown", "n a"} else text


# -- the stage ------------------------------------------------------------------------------------
def human_poems(store: RunStore) -> list[sqlite3.Row]:
    """The poems a judge is asked to recognise (poem_id, content), in dataset order: the human
    poems of the run (a run snapshots the whole dataset; --limit limits its prompts)."""
    return store.query(
        "SELECT poem_id, content FROM poems WHERE poem_id IN "
        "(SELECT poem_id FROM generations WHERE author = 'human' AND status = 'ok') "
        "ORDER BY position"
    )


def recognise_jobs(
    store: RunStore, judge: ModelSpec, *, limit: int | None = None
) -> tuple[list[Job], dict[str, str]]:
    template = bundled_template(RECOGNISE_TEMPLATE)
    template_hash = store.add_template(template.name, template.text)
    poems = human_poems(store)
    schema = RECOGNITION_SCHEMA if judge.structured == "auto" else None
    jobs: list[Job] = []
    for poem in poems[:limit] if limit else poems:
        text = template.text.replace("{the_poem}", str(poem["content"]).strip())
        request = user_request(text, judge.settings, 0, response_schema=schema)
        key = recognition_id_for(poem["poem_id"], judge.name, 0)
        row = {
            "recognition_id": key,
            "poem_id": poem["poem_id"],
            "judge": judge.name,
            "sample_index": 0,
            "provider": judge.provider,
            "settings": settings_json(judge.settings),
            "template_hash": template_hash,
        }
        jobs.append(Job(key, judge, request, cache_key(judge, request, scope=poem["poem_id"]), row))
    statuses = stored_statuses(
        store, jobs, table="recognitions", parent="poem_id", owner="judge", name=judge.name
    )
    return jobs, statuses


class RecognitionRows(ParsedAnswerRows):
    """Result rows of the `recognitions` table."""

    table = "recognitions"
    parse_errors = (RecognitionParseError,)

    def __init__(self, store: RunStore) -> None:
        self.truth = {
            str(r["poem_id"]): (r["title"], r["author"])
            for r in store.query("SELECT poem_id, title, author FROM poems")
        }

    def parse(self, job: Job, completion: Completion) -> dict[str, Any]:
        try:
            title, author = parse_recognition(completion.text)
        except RecognitionParseError as error:
            ending = finish_note(completion, job.request.settings, reasked=False)
            if ending is None:
                raise
            raise RecognitionParseError(f"{error}; {ending}") from error
        true_title, true_author = self.truth.get(str(job.row["poem_id"]), (None, None))
        title_score = title_similarity(title, true_title)
        author_score = author_similarity(author, true_author)
        return {
            "answered_title": title,
            "answered_author": author,
            "title_similarity": round(title_score, 4),
            "author_similarity": round(author_score, 4),
            "recognised": int(is_recognised(title_score, author_score, true_title, true_author)),
        }


def run_recognition(
    store: RunStore,
    judges: ModelSpec | Sequence[ModelSpec],
    *,
    options: RunnerOptions | None = None,
    console: Console | None = None,
) -> StageReport:
    """Ask every judge to name each human poem of the run; store and score the answers."""
    options = options or RunnerOptions()
    handler = RecognitionRows(store)
    panel = [judges] if isinstance(judges, ModelSpec) else list(judges)
    if not options.dry_run:  # what `merge` counts its poems against
        limit = options.limit
        picked = None if limit is None else [row["poem_id"] for row in human_poems(store)[:limit]]
        record_selection(store, STAGE, [judge.name for judge in panel], limit=limit, poems=picked)
    return run_stage(
        store,
        STAGE,
        panel,
        jobs_for=lambda spec: recognise_jobs(store, spec, limit=options.limit),
        handler_for=lambda spec: handler,
        options=options,
        child_entry=partial(rerun_in_child, stage=run_recognition),
        console=console,
    )


__all__ = [
    "RecognitionParseError",
    "author_similarity",
    "is_recognised",
    "parse_recognition",
    "run_recognition",
    "title_similarity",
]
