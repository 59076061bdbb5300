"""The YAML files users edit (model and judge files, `groups.yaml`, figure recipes, the dataset
registry, errata): read with the line of every key, duplicate keys refused, and pydantic's
validation errors said in the file's words, `FILE:LINE: field: what is wrong`: a misspelt key
with the closest allowed one, a wrong value as the file wrote it and what the field takes.

`read_yaml_document` reads a file and its node tree; `line_of` is the line of a pydantic
location; `field_problems` turns a `ValidationError` into `FieldProblem`s; `validate_yaml_file`
does all three and raises a `YamlFieldError` (a `TextFileError`: the command line prints it as
`error: ...`, exit 2, whatever the command).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from poemetric.data.text_files import TextFileError, read_utf8_file
from poemetric.data.yaml_errors import yaml_problem

Model = TypeVar("Model", bound=BaseModel)
Location = tuple[int | str, ...]


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    """A mapping without a duplicate key (a second `model:` replaced the first unseen)."""
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # `<<: *shared`: the merged keys may be given again, as YAML allows
        key = loader.construct_object(key_node)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a key cannot be a list or a mapping", key_node.start_mark
            ) from None
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first on line {seen[key] + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    loader.flatten_mapping(node)
    return dict(loader.construct_pairs(node))


def _strict(base: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    """`base` (a SafeLoader) rejecting duplicate mapping keys."""
    loader: type[yaml.SafeLoader] = type(f"Strict{base.__name__}", (base,), {})
    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    return loader


#: libyaml's loader, fast (a roster is some forty files a command), and PyYAML's own, whose
#: words for invalid YAML say more ("expected the node content, but found '<stream end>'", not
#: "did not find expected node content"): it reads a file libyaml refused, for its message.
_FAST_LOADER = _strict(getattr(yaml, "CSafeLoader", yaml.SafeLoader))
_LOADER = _strict(yaml.SafeLoader)


def _load(loader_class: type[yaml.SafeLoader], text: str) -> tuple[Any, yaml.Node | None]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def parse_yaml(name: str | Path, text: str) -> tuple[Any, yaml.Node | None]:
    """The document of `text` and its node (None, None for an empty one); invalid YAML or a
    duplicate key is a `TextFileError`, `NAME:LINE: invalid YAML: problem` (`yaml_problem`: the
    line where an unclosed quote or bracket began)."""
    try:
        return _load(_FAST_LOADER, text)
    except yaml.YAMLError as fast_error:
        error = fast_error
    try:
        _load(_LOADER, text)
    except yaml.YAMLError as words:
        error = words
    raise TextFileError(name, *yaml_problem(error)) from None


def read_yaml_document(path: Path) -> tuple[Any, yaml.Node]:
    """The YAML document of a UTF-8 file (`read_utf8_file`) and its node; invalid YAML is
    `FILE:LINE: invalid YAML: problem`, an empty (or blank, or comments only) file
    `FILE: the file is empty`."""
    text = read_utf8_file(path)
    data, node = parse_yaml(path, text)
    if data is None or node is None:
        what = "the file is empty" if not text.strip() else "the file holds only comments"
        raise TextFileError(path, None, what)
    return data, node


def line_of(node: yaml.Node | None, loc: Sequence[int | str]) -> int | None:
    """1-based line of the YAML node at pydantic location `loc` (or of its nearest parent): a
    mapping's key is found on the key's line."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in loc:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(part):
                    child = value_node
                    line = key_node.start_mark.line + 1
                    break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def _keys_at(node: yaml.Node | None, loc: Sequence[int | str]) -> list[str]:
    """The keys of the mapping at `loc`; [] where there is none."""
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == str(part)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            node = node.value[part] if part < len(node.value) else None
        else:
            return []
    return [str(k.value) for k, _ in node.value] if isinstance(node, yaml.MappingNode) else []


@dataclass(frozen=True)
class FieldProblem:
    """One wrong field: its location, line (None: the file's), message, and for an unknown key
    the keys allowed there (`allowed`) and whether `message` names the closest (`suggested`)."""

    loc: Location
    line: int | None
    message: str
    allowed: tuple[str, ...] = ()
    suggested: bool = False

    @property
    def field(self) -> str:
        """`datasets[0].file`: the keys, with the 0-based position of a list's item."""
        text = ""
        for part in self.loc:
            text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
        return text

    def reason(self, *, allowed: bool = True) -> str:
        """`field: message`; the allowed keys follow an unknown key without a close one
        (`allowed=True`: after any unknown key)."""
        field = f"{self.field}: " if self.loc else ""
        listed = self.allowed and (allowed or not self.suggested)
        return f"{field}{self.message}" + (
            f"; allowed: {', '.join(self.allowed)}" if listed else ""
        )

    def text(self, path: str | Path, *, allowed: bool = True) -> str:
        """`FILE:LINE: field: message` (`reason`)."""
        where = f"{path}:{self.line}" if self.line is not None else str(path)
        return f"{where}: {self.reason(allowed=allowed)}"


def field_problems(
    error: ValidationError,
    node: yaml.Node | None,
    model: type[BaseModel],
    *,
    hidden_keys: Sequence[str] = (),
    unrepeated: Sequence[str] = (),
) -> list[FieldProblem]:
    """Pydantic's errors of `model` read from the YAML `node`, each once. A required key
    missing beside an unknown key that is its misspelling (`fiel:` for `file:`) is one problem,
    the unknown key's. The top-level `hidden_keys` are not offered as allowed; the values of
    the top-level fields `unrepeated` are never repeated (a key pasted in the wrong place)."""
    problems: list[FieldProblem] = []
    for item in error.errors():
        loc: Location = tuple(item["loc"])
        kind = item["type"]
        if kind == "extra_forbidden":
            problems.append(_unknown_key(loc, node, model, hidden_keys))
            continue
        if kind == "missing" and (typo := _misspelt(loc, node, model)) is not None:
            # Said once: as pydantic's unknown key, or here for a model that takes other keys
            # (a recipe's figure, whose other keys are the figure's parameters).
            if typo not in _extra_locs(error) and all(p.loc != typo for p in problems):
                problems.append(_unknown_key(typo, node, model, ()))
            continue
        message = _plain_message(model, kind, loc, item, unrepeated)
        problems.append(FieldProblem(loc, line_of(node, loc), message))
    return problems


def _extra_locs(error: ValidationError) -> list[Location]:
    return [tuple(e["loc"]) for e in error.errors() if e["type"] == "extra_forbidden"]


def _unknown_key(
    loc: Location, node: yaml.Node | None, model: type[BaseModel], hidden_keys: Sequence[str]
) -> FieldProblem:
    """`unknown key 'fiel' (did you mean 'file'?)`, with the keys allowed beside it (the
    top-level `hidden_keys` left out)."""
    hidden = hidden_keys if len(loc) == 1 else ()
    allowed = [key for key in _allowed_keys(model, loc[:-1]) if key not in hidden]
    close = _closest_key(model, str(loc[-1]), loc[:-1], allowed) if allowed else None
    message = f"unknown key {loc[-1]!r}" + (f" (did you mean {close!r}?)" if close else "")
    return FieldProblem(loc, line_of(node, loc), message, tuple(allowed), close is not None)


def _misspelt(loc: Location, node: yaml.Node | None, model: type[BaseModel]) -> Location | None:
    """The location of a key beside a missing required one that is its misspelling."""
    allowed = set(_allowed_keys(model, loc[:-1]))
    strays = [key for key in _keys_at(node, loc[:-1]) if key not in allowed]
    close = difflib.get_close_matches(str(loc[-1]), strays, n=1, cutoff=0.6)
    return (*loc[:-1], close[0]) if close else None


#: Pydantic's error types for a value of the wrong kind, and what the field takes instead.
_NOT_A = {
    **dict.fromkeys(("int_parsing", "int_type", "int_from_float"), "a whole number"),
    **dict.fromkeys(("float_parsing", "float_type"), "a number"),
    **dict.fromkeys(("bool_parsing", "bool_type"), "true or false"),
    "string_type": "text",
}
#: Pydantic's bound errors: the bound's key in the error's context, and its words.
_BOUNDS = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}


def _plain_message(
    model: type[BaseModel], kind: str, loc: Location, item: Any, unrepeated: Sequence[str]
) -> str:
    """Pydantic's words in YAML's, with the value given: a wrong container ("a valid tuple", "a
    valid dictionary or instance of Pricing") is a list, or a mapping with the keys it takes; a
    wrong scalar ("Input should be a valid integer, unable to parse string as an integer") is
    `'lots' is not a whole number`; a bound, `-3 should be at least 1`; a value of a fixed set,
    the set and the closest."""
    value, ctx = item.get("input"), item.get("ctx")
    if kind == "missing":  # pydantic: "Field required"
        return "missing" + (f" (add a line '{loc[-1]}: ...')" if loc else "")
    if kind in ("tuple_type", "list_type"):
        return "should be a list: [a, b] (one item: [a]), or one '- item' line each below it"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        keys = _allowed_keys(model, loc)
        what = "the file should be" if not loc else "should be"
        return f"{what} a mapping: {{key: value}}, or 'key: value' lines indented below it" + (
            f" (keys: {', '.join(keys)})" if keys else ""
        )
    message = str(item["msg"])
    if kind == "value_error" or loc[:1] in [(name,) for name in unrepeated]:
        return message.removeprefix("Value error, ")
    given = _given(value)
    if kind in _NOT_A:
        quote = " (write it in quotes)" if kind == "string_type" and _is_scalar(value) else ""
        return f"{given} is not {_NOT_A[kind]}{quote}"
    if kind in _BOUNDS and isinstance(ctx, dict):
        key, words = _BOUNDS[kind]
        return f"{given} should be {words} {ctx.get(key)}"
    if kind == "literal_error" and isinstance(ctx, dict):
        choices = _literal_choices(model, loc)
        close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.6)
        return f"{given} should be {ctx.get('expected')}" + (
            f" (did you mean {close[0]!r}?)" if close and isinstance(value, str) else ""
        )
    if kind == "string_pattern_mismatch" and isinstance(ctx, dict):
        return f"{given} does not match the pattern {ctx.get('pattern')}"
    return message


def _is_scalar(value: Any) -> bool:
    """A value YAML reads as a number, a boolean or null (`5`, `yes`, `~`), not as text."""
    return isinstance(value, (bool, int, float)) or value is None


def _given(value: Any) -> str:
    """A value as the YAML file wrote it (`true`, `null`, `'lots'`, `[1, 2]`), at most 60
    characters."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = "null" if value is None else repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _closest_key(
    model: type[BaseModel], word: str, parent: Location, allowed: list[str]
) -> str | None:
    """The allowed key closest to a misspelt one; at the top level also the keys one level down
    (`temprature` -> `settings.temperature`, not `template`)."""
    candidates = {key: key for key in allowed}
    if not parent:
        for key in allowed:
            for child in _allowed_keys(model, (key,)):
                candidates.setdefault(child, f"{key}.{child}")
    scored = [
        (difflib.SequenceMatcher(None, word, name).ratio(), dotted)
        for name, dotted in candidates.items()
    ]
    best = max(scored, default=(0.0, ""))
    return best[1] if best[0] >= 0.6 else None


def _field_annotation(model: type[BaseModel], loc: Location) -> Any:
    """The annotation of the field at `loc` (list positions skipped), or None."""
    current: Any = model
    annotation: Any = None
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None or str(part) not in fields:
            return None
        annotation = fields[str(part)].annotation
        current = _inner_model(annotation)
    return annotation


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (`Pricing`, `list[DatasetEntry]`, `Pricing | None`)."""
    todo = [annotation]
    while todo:
        found = todo.pop(0)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
        todo.extend(get_args(found))
    return None


def _allowed_keys(model: type[BaseModel], parent: Location) -> list[str]:
    """The keys of the mapping at `parent`: the fields of the model there, sorted."""
    inner = _inner_model(_field_annotation(model, parent)) if parent else model
    return sorted(inner.model_fields) if inner is not None else []


def _literal_choices(model: type[BaseModel], loc: Location) -> list[str]:
    """The values a `Literal` field at `loc` takes (`rhyme_pattern`, ...), or []."""
    todo = [_field_annotation(model, loc)]
    while todo:
        found = todo.pop(0)
        if get_origin(found) is Literal:
            return [str(choice) for choice in get_args(found)]
        todo.extend(get_args(found))
    return []


class YamlFieldError(TextFileError):
    """A YAML file with a wrong field: `FILE:LINE: field: what is wrong`, one line a problem
    (`problems`), the first one's `line` and `reason`."""

    #: The most problems a message lists; more are counted.
    SHOWN = 8

    def __init__(self, path: str | Path, problems: Sequence[FieldProblem]) -> None:
        first = problems[0]
        super().__init__(path, first.line, first.reason(allowed=False))
        lines = [p.text(path, allowed=False) for p in problems[: self.SHOWN]]
        hidden = len(problems) - self.SHOWN
        lines += [f"(and {hidden} more)"] if hidden > 0 else []
        self.args = ("\n  ".join(lines),)
        self.problems = list(problems)


def validate_yaml_file(
    path: Path, model: type[Model], document: tuple[Any, yaml.Node] | None = None
) -> Model:
    """The YAML file at `path` (or its `document`, as `read_yaml_document` returns it) as a
    `model`; a wrong field is a `YamlFieldError`, a file that cannot be read a `TextFileError`."""
    data, node = read_yaml_document(path) if document is None else document
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise YamlFieldError(path, field_problems(error, node, model)) from None
