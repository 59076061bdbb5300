"""The poem record: one row of a POEMetric-style human poem dataset.

Column names follow the authors' release (`POEMetric_human_poems_annotated.csv`):
`form, source, title, author, content, poem_link-href, year, meter_pattern, rhyme_pattern,
theme, imagery`, plus an optional `poem_id` (or `id`) column.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from poemetric.data.normalize import (
    normalize_content,
    normalize_rhyme_pattern,
    rhyme_groups,
)
from poemetric.data.poem_ids import derive_poem_id
from poemetric.data.text_files import newlines
from poemetric.data.years import read_year, split_year
from poemetric.form_names import normalize_form
from poemetric.suggest import close_names


class PoemForm(StrEnum):
    """The seven fixed forms of POEMetric. Input is read as the form checker reads a form
    (`form check`): in any case and spacing, a plural or the checker's other spellings of one
    (`Sonnets`, `ghazel`) as that form (`Sonnet`, `sonnets` → `sonnet`)."""

    BALLAD = "ballad"
    GHAZAL = "ghazal"
    LIMERICK = "limerick"
    PANTOUM = "pantoum"
    SESTINA = "sestina"
    SONNET = "sonnet"
    VILLANELLE = "villanelle"

    @classmethod
    def parse(cls, value: str) -> PoemForm:
        cleaned = value.strip().lower()
        known = [form.value for form in cls]
        if not cleaned:  # was "unknown form ''", as if '' were a form POEMetric lacks
            raise ValueError(f"empty form: every poem needs one of {', '.join(known)}")
        try:
            return cls(cleaned)
        except ValueError:
            pass
        # The checker's own reading of a form, so that a file `form check` checks is one the
        # dataset reads (it refused `Sonnets`).
        try:
            return cls(normalize_form(cleaned))
        except ValueError:
            raise ValueError(
                f"unknown form {value!r}; expected one of {', '.join(known)}"
                f"{_form_hint(cleaned, known)}"
            ) from None


#: Forms the form checker knows beside the seven (`form check`, `form scan`), each one close to
#: one of them in spelling, which a dataset's form is therefore not to be "corrected" to.
_CHECKER_ONLY_FORMS = {
    "ballade": "the French fixed form of three eight-line stanzas and an envoi, not a ballad",
    "double sestina": "twelve stanzas of twelve lines, not a sestina",
}


def _form_hint(cleaned: str, known: list[str]) -> str:
    """`; did you mean 'sonnet'?` for a typo ('sonet', 'Limericks', 'limerick(s)'), and for a
    form named with its kind ('petrarchan sonnet'), which goes in the rhyme pattern. A ballade
    or a double sestina is said to be a form of its own: 'did you mean ballad' made a user
    relabel ballades, which were then prompted for and checked as ballads."""
    singular = re.sub(r"s$", "", " ".join(re.split(r"[\s_-]+", cleaned)))
    if singular in _CHECKER_ONLY_FORMS:
        return (
            f"; a {singular} is {_CHECKER_ONLY_FORMS[singular]}: a dataset holds the seven forms "
            f"above (`poemetric form check` and `form scan --form '{singular}'` check a "
            f"{singular})"
        )
    close = close_names(cleaned, known)
    if close:
        return f"; did you mean {' or '.join(map(repr, close))}?"
    named = [form for form in known if re.search(rf"\b{form}s?\b", cleaned)]
    if len(named) != 1:
        return ""
    (form,) = named
    scheme = (
        ": a kind such as Petrarchan or Shakespearean is told by the rhyme_pattern, "
        "'ABBAABBA CDECDE' or 'ABAB CDCD EFEF GG'"
        if form == PoemForm.SONNET
        else ""
    )
    return f"; did you mean {form!r}? (give the form alone{scheme})"


#: Columns of the POEMetric human-poem CSV, in the authors' order.
POEMETRIC_COLUMNS: tuple[str, ...] = (
    "form",
    "source",
    "title",
    "author",
    "content",
    "poem_link-href",
    "year",
    "meter_pattern",
    "rhyme_pattern",
    "theme",
    "imagery",
)
#: Columns every dataset file must have (the rest may be absent). The generation prompt is built
#: from form, meter, rhyme scheme and theme, so their columns must exist even where a value is empty.
REQUIRED_COLUMNS: tuple[str, ...] = (
    "form",
    "title",
    "author",
    "content",
    "meter_pattern",
    "rhyme_pattern",
    "theme",
)
#: Columns that may carry an explicit, user-chosen poem id.
ID_COLUMNS: tuple[str, ...] = ("poem_id", "id")
#: Columns written by `write_dataset` (id first, so a re-read keeps the same ids).
OUTPUT_COLUMNS: tuple[str, ...] = ("poem_id", *POEMETRIC_COLUMNS)
#: Every column the loader understands; other columns are reported as ignored.
KNOWN_COLUMNS: frozenset[str] = frozenset((*OUTPUT_COLUMNS, "id", "link"))
#: Fields made from the `year` cell (`years.split_year`), not read from a column of their name:
#: the loader warned such a column ignored, yet read a `year_range` column unchecked, which
#: `write_dataset` then wrote as the year (`c. 1850`, refused on the next read).
YEAR_FIELDS: tuple[str, ...] = ("author_dates", "year_range")

_EXPLICIT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+-]*")
_ID_RULE = (
    "use ASCII letters A-Z a-z, digits and . _ : + - (no spaces), starting with a letter or digit"
)


def _id_fault(value: str) -> str:
    """What breaks the id rule: 'poème-1' broke "use letters, digits", è being a letter."""
    bad = [char for char in dict.fromkeys(value) if not re.fullmatch(r"[A-Za-z0-9._:+-]", char)]
    if bad:
        names = ["a space" if char == " " else repr(char) for char in bad]
        if len(names) == 1:
            return f"{names[0]} is not allowed"
        return f"{', '.join(names[:-1])} and {names[-1]} are not allowed"
    return f"it starts with {value[0]!r}"


#: The columns a record's derived poem id is made of (`derive_poem_id`).
ID_SOURCE_COLUMNS: tuple[str, ...] = ("form", "title", "author", "content")


def record_poem_id(values: dict[str, Any]) -> str | None:
    """The poem id the loader gives a record of a dataset file without an id value (its form,
    title, author and content as `Poem` reads them), without validating the rest of the record;
    None when one of the four is missing or unusable (no poem of the dataset has that record)."""
    form, title, author, content = (values.get(column) for column in ID_SOURCE_COLUMNS)
    if not (
        isinstance(form, str)
        and isinstance(title, str)
        and isinstance(author, str)
        and isinstance(content, str)
    ):
        return None
    try:
        parsed = PoemForm.parse(form)
    except ValueError:
        return None
    text = normalize_content(content)
    if not (title.strip() and author.strip() and text.strip()):
        return None
    return derive_poem_id(parsed, author.strip(), title.strip(), text)


def given_poem_id(values: dict[str, Any]) -> Any:
    """The id a dataset record gives its poem: the first non-empty of its `poem_id` and `id`
    cells (`ID_COLUMNS`), None when neither has one (the loader then derives it). A blank
    `poem_id` cell does not hide an `id`."""
    cells = (_blank_to_none(values.get(column)) for column in ID_COLUMNS)
    return next((cell for cell in cells if cell is not None), None)


def dataset_record_id(values: dict[str, Any]) -> str | None:
    """The poem id the loader gives a dataset file's record: its own (`given_poem_id`, read as
    `Poem` reads it), else the derived one (`record_poem_id`); None when it has neither."""
    given = _id_text(given_poem_id(values))
    return given if isinstance(given, str) and given else record_poem_id(values)


def _id_text(value: Any) -> Any:
    """An id cell as the loader reads it: blank is "" (derive it); a whole number (a JSONL or
    Parquet id column of integers) is the same id as its digits in a CSV, also when it comes as
    a float (`7.0`: pandas stores an integer column with a blank cell as floats)."""
    value = _blank_to_none(value)
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else value


def _blank_to_none(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN from pandas
        return None
    if isinstance(value, str) and not value.strip():
        return None
    return value


class Poem(BaseModel):
    """One human poem with its annotations (POEMetric column names are accepted as aliases)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", frozen=True)

    poem_id: str = Field(
        default="",
        validation_alias=AliasChoices("poem_id", "id"),
        description="Stable id: the file's poem_id/id column, else derived by derive_poem_id().",
    )
    form: PoemForm
    source: str | None = None
    title: str = Field(min_length=1)
    author: str = Field(min_length=1)
    content: str
    link: str | None = Field(default=None, validation_alias=AliasChoices("poem_link-href", "link"))
    year: int | None = Field(
        default=None, description="The poem's year; the first of its `year_range` where given."
    )
    author_dates: str | None = Field(
        default=None,
        description="Life dates given instead of a year (the release's `year` holds e.g. "
        "'1897 - 1965' for some poems; a range of 15 years or more, or an open one, '1946 -'); "
        "`year` is then None.",
    )
    year_range: str | None = Field(
        default=None,
        description="The years of composition given as a range shorter than a life "
        "('1850-1851'), as written; `year` is then its first year.",
    )
    meter_pattern: str | None = None
    rhyme_pattern: str | None = None
    theme: str | None = None
    imagery: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _split_year(cls, data: Any) -> Any:
        """A `year` value like '1897 - 1965' is the author's life span, not a year; a shorter
        range ('1850-1851') is the years of composition, kept as `year_range` (`split_year`)."""
        return split_year(data) if isinstance(data, dict) else data

    @field_validator(
        "source", "link", "meter_pattern", "theme", "imagery", "author_dates", "year_range",
        mode="before",
    )  # fmt: skip
    @classmethod
    def _strip_optional(cls, value: Any) -> Any:
        value = _blank_to_none(value)
        return newlines(value.strip()) if isinstance(value, str) else value

    @model_validator(mode="before")
    @classmethod
    def _given_id(cls, data: Any) -> Any:
        """With both columns, the first non-empty of `poem_id` and `id` (`given_poem_id`): a
        blank `poem_id` cell hid the `id` (the poem got a derived id)."""
        if isinstance(data, dict) and "id" in data and "poem_id" in data:
            data = {**data, "poem_id": given_poem_id(data)}
        return data

    @field_validator("poem_id", mode="before")
    @classmethod
    def _read_id(cls, value: Any) -> Any:
        """A blank id cell means "derive it", as a missing column does (`_id_text`)."""
        return _id_text(value)

    @field_validator("poem_id", mode="after")
    @classmethod
    def _check_id(cls, value: str | None) -> str:
        if value and not _EXPLICIT_ID.fullmatch(value):
            raise ValueError(f"bad poem id {value!r}: {_id_fault(value)}; {_ID_RULE}")
        return value or ""

    @field_validator("title", "author", mode="before")
    @classmethod
    def _strip_required(cls, value: Any) -> Any:
        return newlines(value.strip()) if isinstance(value, str) else value

    @field_validator("form", mode="before")
    @classmethod
    def _parse_form(cls, value: Any) -> Any:
        if isinstance(value, str):
            return PoemForm.parse(value)
        return value

    @field_validator("content", mode="before")
    @classmethod
    def _normalize_content(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = normalize_content(value)
            if not value.strip():
                raise ValueError("empty poem")
        return value

    @field_validator("year", mode="before")
    @classmethod
    def _parse_year(cls, value: Any) -> Any:
        return read_year(_blank_to_none(value))

    @field_validator("rhyme_pattern", mode="before")
    @classmethod
    def _parse_rhyme(cls, value: Any) -> Any:
        value = _blank_to_none(value)
        if isinstance(value, str):
            return normalize_rhyme_pattern(value)
        return value

    @model_validator(mode="after")
    def _derive_id(self) -> Poem:
        if not self.poem_id:
            derived = derive_poem_id(self.form, self.author, self.title, self.content)
            object.__setattr__(self, "poem_id", derived)
        return self

    # -- convenience -----------------------------------------------------------------------
    @property
    def lines(self) -> list[str]:
        """Non-blank lines of the poem."""
        return [line for line in self.content.split("\n") if line.strip()]

    @property
    def stanzas(self) -> list[list[str]]:
        """Lines grouped by blank-line-separated stanzas."""
        return [
            [line for line in block.split("\n") if line.strip()]
            for block in re.split(r"\n\s*\n", self.content)
            if block.strip()
        ]

    @property
    def rhyme_groups(self) -> list[str]:
        return rhyme_groups(self.rhyme_pattern)

    def to_row(self) -> dict[str, Any]:
        """The poem as a row with the release's column names (plus `poem_id` first)."""
        data = self.model_dump(mode="json")
        row = {column: data.get(column) for column in OUTPUT_COLUMNS}
        row["poem_link-href"] = data["link"]
        row["year"] = self.year_range or (
            str(self.year) if self.year is not None else self.author_dates
        )
        return row

    def to_store_row(self, dataset: str, position: int) -> dict[str, Any]:
        """A row of the run store's `poems` table (see poemetric/store/schema_initial.py)."""
        return {
            "poem_id": self.poem_id,
            "dataset": dataset,
            "position": position,
            "form": self.form.value,
            "title": self.title,
            "author": self.author,
            "content": self.content,
            "meter": self.meter_pattern,
            "rhyme": self.rhyme_pattern,
            "theme": self.theme,
            "imagery": self.imagery,
            "record": json.dumps(self.model_dump(mode="json"), ensure_ascii=False, sort_keys=True),
        }
