"""Prompt templates: load them from `prompts/`, render them, and hash them.

The generation template is Jinja2 (`prompts/generation.jinja`). The judge prompt and the expert
survey are the paper's published instruments, kept verbatim with `{generation_prompt}` and
`{the_poem}` placeholders that are substituted literally (the prompt itself contains JSON braces,
so `str.format` would not do).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cache, lru_cache
from pathlib import Path
from typing import Protocol

import jinja2

from poemetric.data.normalize import MISSING_VALUE_WORDS
from poemetric.paths import home_lacks, resource_path
from poemetric.suggest import did_you_mean
from poemetric.text.plural import plural

GENERATION_TEMPLATE = "generation.jinja"
JUDGE_TEMPLATE = "judge.md"
JUDGE_REASK_TEMPLATE = "judge-reask.md"
RECOGNISE_TEMPLATE = "recognise.md"
SURVEY_TEMPLATE = "survey.md"
JUDGE_PLACEHOLDERS = ("{generation_prompt}", "{the_poem}")
#: The variables `render_generation_prompt` gives a generation template.
GENERATION_VARIABLES = ("form", "meter", "rhyme", "theme")


class PromptError(ValueError):
    pass


class PromptFields(Protocol):
    """What the generation template needs from a poem (a `poemetric.data.Poem` has these)."""

    @property
    def form(self) -> object: ...
    @property
    def meter_pattern(self) -> str | None: ...
    @property
    def rhyme_pattern(self) -> str | None: ...
    @property
    def theme(self) -> str | None: ...


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    text: str
    path: Path
    #: The text as POEMetric read the file before a byte-order mark was dropped (`path.read_text`:
    #: U+FEFF first), when that differs from `text`; None otherwise.
    legacy_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def sha256(self) -> str:
        return template_hash(self.text)

    def as_stored(self, hashes: Collection[str]) -> PromptTemplate:
        """This template as a run that recorded `hashes` used it: its legacy text when the run
        recorded the hash of that (and not today's), so that resuming a run judged or prepared
        before the byte-order mark was dropped sends, and records, what the run holds already;
        else itself (another template's hash is for the caller to refuse)."""
        if self.legacy_text is None or self.sha256 in hashes:
            return self
        if template_hash(self.legacy_text) not in hashes:
            return self
        return replace(self, text=self.legacy_text, legacy_text=None)


@dataclass(frozen=True)
class RenderedPrompt:
    text: str
    name: str
    template_hash: str


def template_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Suffixes tried, in order, for a template named without one (`template: judge-v2`).
TEMPLATE_SUFFIXES = (".md", ".txt", ".jinja")


def bundled_templates() -> list[Path]:
    """The template files in `prompts/`, by name (its README.md is not one)."""
    return sorted(
        path
        for path in resource_path("prompts").glob("*.*")
        if path.suffix in TEMPLATE_SUFFIXES and path.name != "README.md"
    )


def template_path(name_or_path: str | Path, *, relative_to: Path | None = None) -> Path:
    """A template file: beside `relative_to` (a judge file's folder) when given, then a path as
    given (relative to the working folder), then a file inside `prompts/`; a name without suffix
    tries .md, .txt and .jinja. POEMetric's own defaults go through `bundled_template`."""
    name = str(name_or_path)
    names = [name] if Path(name).suffix else [name, *(name + s for s in TEMPLATE_SUFFIXES)]
    for candidate in names:
        for folder in (relative_to, None):  # beside the judge file first (docs/models.md)
            path = Path(candidate) if folder is None else folder / candidate
            if path.is_file():
                return path
        bundled = resource_path("prompts", candidate)
        if bundled.is_file():
            return bundled
    templates = bundled_templates()
    # A misspelt name is offered the closest bundled one; a path that is not there is not.
    names = [path.name if Path(name).suffix else path.stem for path in templates]
    close = did_you_mean(name, names) if Path(name).name == name else ""
    available = ", ".join(path.name for path in templates)
    if not templates:  # "bundled templates: " and nothing: a $POEMETRIC_HOME without prompts/
        available = f"none ({home_lacks('prompts') or resource_path('prompts')})"
    raise PromptError(f"no prompt template {name!r}{close}; bundled templates: {available}")


@cache
def load_template(name_or_path: str | Path) -> PromptTemplate:
    """A template's text as UTF-8, a byte-order mark dropped (it was sent to every model at
    the start of the prompt); another encoding is a `PromptError` naming the file and line (a
    UnicodeDecodeError traceback before). `legacy_text` keeps the text with the mark, which runs
    judged or prepared before it was dropped hold (`PromptTemplate.as_stored`)."""
    from poemetric.data.text_files import TextFileError, decode_utf8, file_bytes

    path = template_path(name_or_path)
    try:
        data = file_bytes(path)
        text = decode_utf8(path, data)
    except TextFileError as error:
        raise PromptError(str(error)) from None
    return PromptTemplate(name=path.name, text=text, path=path, legacy_text=_legacy_text(data))


def bundled_template(name: str) -> PromptTemplate:
    """POEMetric's own template `name`: `prompts/NAME` as bundled (or under `$POEMETRIC_HOME`),
    never a file of that name in the working folder. `load_template` reads a name as a path
    first, so a `generation.jinja` or `judge.md` kept where the commands ran (a draft, a copy
    being edited) replaced the paper's prompt for every model or judge without a word."""
    path = resource_path("prompts", name)
    # A $POEMETRIC_HOME whose prompts/ holds templates of one's own but not this one: say so
    # (it was "no prompt template '/HOME/prompts/judge.md'" and nothing of why).
    lacks = home_lacks("prompts", name)  # "" at once without the variable
    if lacks and resource_path("prompts").is_dir():  # no prompts/ at all: template_path says so
        raise PromptError(f"no prompt template {name!r}: {lacks}")
    return load_template(path)


def template_or_bundled(
    template: str | Path | PromptTemplate | None, default: str
) -> PromptTemplate:
    """`template` loaded (a name, a file, or a loaded template), or, when it is None, the
    bundled `default` (`bundled_template`: never a file of that name in the working folder)."""
    if isinstance(template, PromptTemplate):
        return template
    return bundled_template(default) if template is None else load_template(template)


def _legacy_text(data: bytes) -> str | None:
    """The text that `path.read_text(encoding="utf-8")` gave before a byte-order mark was
    dropped (U+FEFF first: runs of then recorded its hash), when the file has one; else None."""
    if not data.startswith(b"\xef\xbb\xbf"):
        return None
    from poemetric.data.text_files import newlines

    return newlines(data.decode("utf-8"))  # decode_utf8 accepted it


_JINJA = jinja2.Environment(
    undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
)


@lru_cache(maxsize=16)
def _compiled(text: str) -> jinja2.Template:
    """A generation template compiled once, not once per poem (most of a render's time)."""
    return _JINJA.from_string(text)


def _given(value: str | None) -> str:
    """A field's text for the template: "" when it is empty or a word for a missing value
    (`MISSING_VALUE_WORDS`): the prompt sent every model "Meter: None." or "Theme: n/a." for
    them. The form checker reads most of them as a metre not given; `null`, `nil` and `N/A` it
    does not scan (no metre score, which `dataset validate` warns of)."""
    text = (value or "").strip()
    return "" if text.lower() in MISSING_VALUE_WORDS else text


def _form_name(form: object) -> str:
    value = form.value if isinstance(form, Enum) else form
    return str(value).strip().lower()


def render_generation_prompt(
    poem: PromptFields, template: str | Path | PromptTemplate | None = None
) -> RenderedPrompt:
    """The exact text every model receives for this poem's prompt.

    `template` is a bundled template's name, a file, or an already loaded template (e.g. the
    one a run stored when it was prepared); None: the bundled `prompts/generation.jinja`.
    """
    loaded = template_or_bundled(template, GENERATION_TEMPLATE)
    try:
        text = _compiled(loaded.text).render(
            form=_form_name(poem.form),
            meter=_given(poem.meter_pattern),
            rhyme=_given(poem.rhyme_pattern),
            theme=_given(poem.theme),
        )
    except jinja2.UndefinedError as error:  # a typo'd {{ metre }}: its line, what there is
        raise PromptError(
            f"{loaded.path}{_template_line(error)}: {error}{_closest_variable(error)}; the "
            f"generation template's variables: {', '.join(GENERATION_VARIABLES)}"
        ) from error
    except jinja2.TemplateSyntaxError as error:  # an unclosed {% if %}: the line Jinja stopped on
        message = " ".join((error.message or str(error)).split())
        raise PromptError(f"{loaded.path}:{error.lineno}: {message}") from error
    except jinja2.TemplateError as error:
        raise PromptError(f"{loaded.path}: {error}") from error
    if not text.strip():  # every model would be sent an empty message
        poem_id = getattr(poem, "poem_id", None)
        which = f"poem {poem_id} ({_form_name(poem.form)})" if poem_id else "a poem"
        raise PromptError(f"{loaded.path}: renders an empty prompt for {which}")
    return RenderedPrompt(text=text.strip() + "\n", name=loaded.name, template_hash=loaded.sha256)


def _template_line(error: jinja2.TemplateError) -> str:
    """`:LINE` of the template where rendering failed (Jinja's frame of the template), or ''."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    lines = [frame.lineno for frame in frames if frame.filename == "<template>"]
    return f":{lines[-1]}" if lines else ""


def _closest_variable(error: jinja2.UndefinedError) -> str:
    """` (did you mean 'meter'?)` for Jinja's `'metre' is undefined`, else ''."""
    name = re.match(r"'(\w+)' is undefined", str(error))
    return did_you_mean(name.group(1), GENERATION_VARIABLES) if name else ""


def _fill_instrument(template: PromptTemplate, generation_prompt: str, poem: str) -> str:
    missing = [p for p in JUDGE_PLACEHOLDERS if p not in template.text]
    if missing:
        raise PromptError(
            f"{template.path} lacks the {plural(len(missing), 'placeholder')} {', '.join(missing)}"
        )
    # Substitute the poem last so that a poem containing "{generation_prompt}" stays literal.
    marker = "\x00POEM\x00"
    text = template.text.replace("{the_poem}", marker)
    text = text.replace("{generation_prompt}", generation_prompt.strip())
    return text.replace(marker, poem.strip())


def render_judge_prompt(
    generation_prompt: str, poem: str, template: str | Path | PromptTemplate | None = None
) -> RenderedPrompt:
    """The judge prompt of the paper's Appendix C for one (anonymised) poem (`template`: a
    name, a file, or a loaded template)."""
    loaded = template_or_bundled(template, JUDGE_TEMPLATE)
    return RenderedPrompt(
        text=_fill_instrument(loaded, generation_prompt, poem),
        name=loaded.name,
        template_hash=loaded.sha256,
    )


def render_survey(generation_prompt: str, poem: str) -> str:
    """The human-expert survey page of the paper's Appendix C for one poem."""
    return _fill_instrument(bundled_template(SURVEY_TEMPLATE), generation_prompt, poem)
