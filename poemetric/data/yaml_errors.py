"""PyYAML's error for invalid YAML as one line of the file's: the line where the broken construct
began (an unclosed quote, `[` or `{`), not only where PyYAML gave up, which is often the end of the
file.

PyYAML gives two marks: `context_mark` ("while scanning a quoted scalar", line 4) and
`problem_mark` ("found unexpected end of stream", line 6). `yaml_problem` names the context's
line first where the context is a construct that opened there; for a block mapping or list the
problem's line stays first (the context is where the whole mapping began, often line 1, while the
problem's line is the one indented wrongly).
"""

from __future__ import annotations

import yaml

#: PyYAML's context (after "while scanning " / "while parsing ") in a user's words, and what
#: closes it where it is never closed.
_OPENED: dict[str, tuple[str, str | None]] = {
    "a quoted scalar": ("a quoted value", "end it with the same quote mark"),
    "a double-quoted scalar": ("a quoted value", "end it with the same quote mark"),
    "a single-quoted scalar": ("a quoted value", "end it with the same quote mark"),
    "a flow sequence": ("a [ list", "end it with ']'"),
    "a flow mapping": ("a { mapping", "end it with '}'"),
    "a simple key": ("a key", None),
    "a block scalar": ("a block of text (| or >)", None),
    "a plain scalar": ("a value", None),
}
#: Contexts that span many lines from where they began: said after the problem's line.
_ENCLOSING: dict[str, str] = {
    "a block mapping": "the mapping",
    "a block collection": "the list",
    "an indentless sequence": "the list",
}
_END = ("end of stream", "<stream end>")
#: What to do about PyYAML's commonest problems, which name the parser's state, not the fix.
_FIXES: tuple[tuple[str, str], ...] = (
    ("mapping values are not allowed here",
     "a value holding ': ' must be quoted (\"a: b\"), and a key may not follow a value on its line"),
    ("found character '\\t' that cannot start any token", "indent with spaces, not tabs"),
    ("expected <block end>", "this line is indented unlike the lines of its block above it"),
)  # fmt: skip


def _with_fix(problem: str) -> str:
    """`problem`, with what to do where it is one of `_FIXES`."""
    fix = next((fix for start, fix in _FIXES if problem.startswith(start)), None)
    return f"{problem}; {fix}" if fix else problem


def _context_name(context: str) -> str:
    return context.removeprefix("while scanning ").removeprefix("while parsing ")


def yaml_problem(error: yaml.YAMLError) -> tuple[int | None, str]:
    """(1-based line, reason) of a PyYAML error: `invalid YAML: ...`, the construct that began
    on `line` and what PyYAML found (and where) when it began on another line than the problem."""
    problem_mark = getattr(error, "problem_mark", None)
    problem = _with_fix(getattr(error, "problem", None) or str(error).splitlines()[0])
    problem_line = None if problem_mark is None else problem_mark.line + 1
    context = getattr(error, "context", None)
    context_mark = getattr(error, "context_mark", None)
    context_line = None if context_mark is None else context_mark.line + 1
    if not context or context_line is None or context_line == problem_line:
        return problem_line, f"invalid YAML: {problem}"
    if not context.startswith("while "):
        # Not a construct that opened there but the first half of the problem ("found duplicate
        # anchor 'x'; first occurrence" ... "second occurrence"): the problem's line is the one
        # to fix, and the two halves are one sentence, as PyYAML words them.
        return problem_line or context_line, (
            f"invalid YAML: {context} (line {context_line}), {problem}"
        )
    name = _context_name(context)
    if name in _ENCLOSING:
        return problem_line, (
            f"invalid YAML: {problem} (in {_ENCLOSING[name]} that begins on line {context_line})"
        )
    thing, closer = _OPENED.get(name, (name, None))
    if any(end in problem for end in _END):  # its line is past the last one: not said
        what_to_do = f"; {closer}" if closer else ""
        return context_line, (
            f"invalid YAML: {thing} starting here is never closed (found the end of the "
            f"file){what_to_do}"
        )
    at = f" (on line {problem_line})" if problem_line is not None else ""
    return context_line, f"invalid YAML: {thing} starting here: {problem}{at}"
