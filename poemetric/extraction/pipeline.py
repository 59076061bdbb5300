"""The extraction passes, in order: HTML line breaks, code fences, rules, preamble, the final of
a draft and its revision, the first of several alternatives, title, reasoning after the poem
(moved to the reasoning), closing remarks, syllable counts and rhyme-scheme letters at line
ends, "Line 1:" labels, line numbers ("1. "), stanza labels, markdown; each removal is noted in
`ExtractedPoem.notes`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from poemetric.extraction.alternatives import announces_several, keep_first_alternative
from poemetric.extraction.classify import (
    _FORM_RE,
    _FORMS,
    _is_commentary,
    _is_meta_prose,
    _is_preamble,
    _plain,
    _quote,
)
from poemetric.extraction.closing import strip_trailing_chatter
from poemetric.extraction.marks import (
    numbered_stanzas,
    strip_line_labels,
    strip_line_numbers,
    strip_scheme_letters,
    strip_syllable_counts,
    unheaded,
)
from poemetric.extraction.opening import ITALIC_LINE as _ITALIC_LINE
from poemetric.extraction.opening import chat_before_handover as _chat_before_handover
from poemetric.extraction.opening import first_content as _first_content
from poemetric.extraction.opening import names_the_form
from poemetric.extraction.opening import runs_into_verse as _runs_into_verse
from poemetric.extraction.reasoning import split_reasoning, split_trailing_reasoning
from poemetric.extraction.revisions import keep_final_revision
from poemetric.extraction.signature import drop_byline, is_signature, title_before_credit
from poemetric.extraction.stanza_labels import LABEL_LINE, strip_stanza_labels
from poemetric.text.plural import counted


@dataclass
class ExtractedPoem:
    poem: str
    reasoning: str | None = None
    notes: list[str] = field(default_factory=list)
    title: str | None = None


_RULE = re.compile(r"^\s*(?:-\s*){3,}$|^\s*(?:\*\s*){3,}$|^\s*(?:_\s*){3,}$|^\s*[~=]{3,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_TITLE_PREFIX = re.compile(r"^\s*(?:\*\*|__)?\s*title\s*:\s*(?:\*\*|__)?\s*(.+?)\s*$", re.I)
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(.+?)\1\s*$")


def extract_poem(text: str, reasoning: str | None = None) -> ExtractedPoem:
    """The poem in `text` (a model's answer), its reasoning, and notes on what was removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    answer, merged_reasoning, notes = split_reasoning(text, reasoning)
    answer = _html_breaks(answer, notes)
    lines = [line.rstrip() for line in answer.split("\n")]
    lines = _unfence(lines, notes)
    lines = _strip_rules(lines, notes)
    several = announces_several(lines)  # "Here are two limericks:", read before it goes
    lines = _strip_leading_chatter(lines, notes)
    lines, final_title = keep_final_revision(lines, notes)
    lines, option_title = keep_first_alternative(lines, notes, several=several)
    lines, title = _strip_title(lines, notes)
    if title is not None:
        lines = _strip_leading_chatter(lines, notes)  # metadata such as "Form: villanelle"
    title = title if title is not None else option_title or final_title
    lines, afterthought = split_trailing_reasoning(lines, notes)
    if afterthought:
        merged_reasoning = "\n\n".join(filter(None, [merged_reasoning, afterthought]))
    lines = strip_trailing_chatter(lines, notes)
    lines = strip_syllable_counts(lines, notes)
    lines = strip_scheme_letters(lines, notes)
    lines = strip_syllable_counts(lines, notes)  # a count before the letter: "... Peru (8) (A)"
    lines = strip_line_labels(lines, notes)
    lines = strip_line_numbers(lines, notes)
    lines = strip_stanza_labels(lines, notes)
    lines = _strip_markdown(lines, notes)
    poem = _tidy(lines)
    original = _tidy([line.rstrip() for line in answer.split("\n")])
    if not poem and original:
        notes.append("extraction would remove everything; kept the answer as it was")
        poem, title = original, None
    return ExtractedPoem(poem=poem, reasoning=merged_reasoning, notes=notes, title=title)


_BR = re.compile(r"<br\s*/?>[ \t]*\n?", re.IGNORECASE)
_NBSP_ENTITY = re.compile(r"&(?:nbsp|#160|#x0*a0);", re.IGNORECASE)


def _html_breaks(text: str, notes: list[str]) -> str:
    """HTML line breaks as lines: a model writing for a chat window ends lines with `<br>` (or
    writes the whole poem on one line joined by them) and makes stanza breaks of `&nbsp;`."""
    breaks = len(_BR.findall(text))
    if breaks:
        notes.append(f"replaced {counted(breaks, '<br> tag')} with line breaks")
        text = _BR.sub("\n", text)
    spaces = len(_NBSP_ENTITY.findall(text))
    if spaces:
        notes.append(
            f"replaced {spaces} &nbsp; with a space (a line of only &nbsp; is a blank line)"
        )
        text = _NBSP_ENTITY.sub(" ", text)
    return text


def _unfence(lines: list[str], notes: list[str]) -> list[str]:
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    if not fences:
        return lines
    if len(fences) == 2 and any(line.strip() for line in lines[fences[0] + 1 : fences[1]]):
        start, end = fences
        outside = [line for line in lines[:start] + lines[end + 1 :] if line.strip()]
        if all(
            _is_preamble(x) or _is_commentary(x) or _is_meta_prose(x) or is_signature(x)
            for x in outside
        ):
            for line in outside:
                notes.append(f"removed text outside the code block: {_quote(line)}")
            notes.append("removed code fences")
            return lines[start + 1 : end]
    notes.append(f"removed {counted(len(fences), 'code fence line')}")
    return [line for i, line in enumerate(lines) if i not in set(fences)]


def _strip_rules(lines: list[str], notes: list[str]) -> list[str]:
    count = sum(1 for line in lines if _RULE.match(line))
    if count:
        notes.append(f"removed {counted(count, 'horizontal rule')} (kept as stanza breaks)")
        return ["" if _RULE.match(line) else line for line in lines]
    return lines


def _strip_leading_chatter(lines: list[str], notes: list[str]) -> list[str]:
    index = _first_content(lines)
    poem = _chat_before_handover(lines, index)
    if poem is not None:
        notes.extend(
            f"removed preamble: {_quote(line)}" for line in lines[index:poem] if line.strip()
        )
        index = poem
    removed_any = False
    while index < len(lines):
        line = lines[index]
        if is_signature(line) and not _runs_into_verse(lines, index):  # "*A sonnet by Claude*"
            index += len(lines[index:]) - len(drop_byline(lines[index:], notes))
            continue
        continuation = removed_any and (_is_meta_prose(line) or _is_preamble(line))
        if not (_is_preamble(line) or continuation) or _runs_into_verse(lines, index):
            break
        notes.append(f"removed preamble: {_quote(line)}")
        removed_any = True
        index = _first_content(lines, index + 1)
    return lines[index:]


def _paragraph_end(lines: list[str], start: int) -> int:
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def _looks_like_title(text: str) -> bool:
    words = text.split()
    if not words or len(words) > 10 or text[-1:] in {".", ",", ";", ":"}:
        return False
    long_words = [w.strip("\"'“”‘’()") for w in words if len(w.strip("\"'“”‘’()")) >= 4]
    return (
        all(w[:1].isupper() or not w[:1].isalpha() for w in long_words) and words[0][:1].isupper()
    )


_QUOTED = re.compile(r'^(?:"([^"“”]+)"|“([^"“”]+)”|([—–~])\s*([^"“”—–~]+?)\s*\3)$')


def _unquoted(text: str) -> str:
    """A line wholly in double quotes, or between dashes or tildes, without them ('"Salt Hours"',
    '— Salt Hours —', '~ Salt Hours ~' -> 'Salt Hours')."""
    quoted = _QUOTED.match(text)
    return (quoted.group(1) or quoted.group(2) or quoted.group(4)).strip() if quoted else text


_FORM_SUFFIX = re.compile(
    rf"^(.+?)\s*(?:[—–:,]|\s-)\s*\(?((?:a|an)\s+(?:[\w'’-]+\s+){{0,3}}?(?:{_FORMS})\b\.?)\)?\s*$|"
    rf"^(.+?)\s*\(((?:a|an)?\s*(?:[\w'’-]+\s+){{0,3}}?(?:{_FORMS}))\)\s*$",
    re.IGNORECASE,
)


#: A line that only names the form: "A Ballad", "(A Petrarchan Sonnet)", "## A Villanelle".
_FORM_ONLY = re.compile(
    rf"^\(?\s*(?:a|an)\s+(?:[\w'’-]+\s+){{0,3}}?(?:{_FORMS})\s*\.?\s*\)?$", re.IGNORECASE
)


def _names_the_form(lines: list[str], index: int) -> bool:
    """`lines[index]`, the answer's first line, only names the poem's form over the poem: in
    brackets ("(Sonnet)", "(A limerick about a baker)"), in italics over a blank line ("*A
    Shakespearean sonnet*"), or standing alone (`_form_subtitle`); two verse lines or more
    follow it."""
    following = _first_content(lines, index + 1)
    if following >= len(lines) or _paragraph_end(lines, following) - following < 2:
        return False
    return names_the_form(lines[index], blank_after=following > index + 1) or _form_subtitle(
        lines, index
    )


def _form_subtitle(lines: list[str], index: int) -> bool:
    """`lines[index]` only names the poem's form and a blank line follows it (a subtitle that is
    neither bracketed nor in italics must stand alone, as verse seldom does)."""
    if index >= len(lines) or (index + 1 < len(lines) and lines[index + 1].strip()):
        return False
    text = _plain(lines[index])
    heading = _HEADING.match(text)
    return bool(_FORM_ONLY.match(heading.group(1) if heading else text))


def _titled_form(text: str) -> tuple[str, bool] | None:
    """The title of a line naming it and its form ('"Salt Hours" — a sonnet', 'Salt Hours (A
    Villanelle)'): the part before the form, when quoted or in title case; and whether quoted."""
    match = _FORM_SUFFIX.match(_plain(text))
    if not match:
        return None
    head = (match.group(1) or match.group(3)).strip()
    quoted = bool(_QUOTED.match(head))
    if quoted or _looks_like_title(head):
        return _unquoted(head), quoted
    return None


def _strip_title(
    lines: list[str], notes: list[str], *, form_named: bool = False
) -> tuple[list[str], str | None]:
    """`lines` without the title at their head, and the title (None: none). A first line that
    only names the form (`_names_the_form`) goes too, and a title under it is read."""
    index = _first_content(lines)
    if index >= len(lines):
        return lines, None
    line = lines[index]
    title: str | None = None
    if LABEL_LINE.match(unheaded(line)):  # "Stanza 1", "### Stanza 1", "**Verse 1:**"
        return lines, None
    if index in numbered_stanzas(lines) and len(numbered_stanzas(lines)) >= 2:
        return lines, None  # "**I**" over the first stanza, "**II**" over the second: numbers
    following = _first_content(lines, index + 1)
    blank_after = following > index + 1
    verse_after = following < len(lines) and _paragraph_end(lines, following) - following >= 2
    prefix, heading, bold = _TITLE_PREFIX.match(line), _HEADING.match(line), _BOLD_LINE.match(line)
    italic = _ITALIC_LINE.match(line)
    if prefix:
        title = prefix.group(1)
    elif heading:
        title = heading.group(1)
    elif (
        bold
        and following < len(lines)
        and len(bold.group(2).split()) <= 12
        and (blank_after or bold.group(2).strip()[-1:] not in {",", ".", ";", ":"})
    ):
        title = bold.group(2)
    elif italic and blank_after and verse_after and _looks_like_title(italic.group(2)):
        title = italic.group(2)
    elif (
        verse_after
        and (head := title_before_credit(line)) is not None
        and (_looks_like_title(_unquoted(_plain(head))) or _titled_form(head) is not None)
    ):  # '"Salt Hours" by GPT-4o', "*Salt Hours* — a sonnet by Claude": title and byline in one
        title = head
    elif blank_after and verse_after and _looks_like_title(_unquoted(line.strip())):
        title = line.strip()
    elif (
        not blank_after
        and _form_subtitle(lines, following)
        and _looks_like_title(_unquoted(_plain(line)))
    ):  # "Salt Hours\n(A Sonnet)\n\n...": a title over its subtitle
        title = line.strip()
    elif (
        not blank_after
        and following < len(lines)
        and is_signature(lines[following])
        and _paragraph_end(lines, following) == following + 1
        and _looks_like_title(_unquoted(_plain(line)))
    ):  # "Salt Hours\nby ChatGPT\n\n...": a title over its byline
        title = line.strip()
    elif (titled := _titled_form(line)) and (titled[1] or (blank_after and verse_after)):
        title = titled[0]
    if title is None:
        if form_named or not _names_the_form(lines, index):
            return lines, None
        notes.append(f"removed form name line: {_quote(line)}")
        return _strip_title(lines[_first_content(lines, index + 1) :], notes, form_named=True)
    titled = _titled_form(title)
    title = titled[0] if titled else _unquoted(_plain(title)).strip('"“”')
    notes.append(f"removed title line: {_quote(line)}")
    rest = lines[following:]
    # A subtitle such as "(A Petrarchan sonnet)" or "*a villanelle*" right after the title.
    # ("*Stanza 1*" is a stanza label, removed and noted as one later.)
    if (
        rest
        and _FORM_RE.search(rest[0])
        and len(rest[0].split()) <= 8
        and not LABEL_LINE.match(unheaded(rest[0]))
    ):
        candidate = rest[0].strip()
        bracketed = candidate.startswith("(") and candidate.endswith(")")
        if bracketed or _ITALIC_LINE.match(candidate) or _form_subtitle(rest, 0):
            notes.append(f"removed subtitle: {_quote(candidate)}")
            rest = rest[_first_content(rest, 1) :]
    rest = drop_byline(rest, notes)  # "*by Claude*" under the title
    return rest, title


_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_STAR_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")
_HARD_BREAK = re.compile(r"(?:\\|  +)$")


def _strip_markdown(lines: list[str], notes: list[str]) -> list[str]:
    content = [line for line in lines if line.strip()]
    if content and all(line.lstrip().startswith(">") for line in content):
        notes.append("removed blockquote markers")
        lines = [re.sub(r"^\s*>\s?", "", line) for line in lines]
    changed = 0
    result = []
    for line in lines:
        new = line
        if "*" in line or "_" in line:  # most lines have no emphasis markers at all
            new = _BOLD.sub(r"\2", new)
            new = _STAR_EMPHASIS.sub(r"\1", new)
            new = _UNDERSCORE_EMPHASIS.sub(r"\1", new)
        if new.endswith(("\\", "  ")):
            new = _HARD_BREAK.sub("", new)
        if new != line.rstrip():
            changed += 1
        result.append(new.rstrip())
    if changed:
        notes.append(f"removed markdown emphasis markers on {counted(changed, 'line')}")
    return result


def _tidy(lines: list[str]) -> str:
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out and out[-1]:
                out.append("")
            continue
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)
