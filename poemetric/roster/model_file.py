"""One model file: validation with file-and-line messages (after `${VAR}` interpolation,
`interpolation.py`), and the judge template a judge file names."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from pathlib import Path

import yaml
from pydantic import ValidationError

from poemetric.data.yaml_fields import line_of
from poemetric.providers.base import GenerationSettings, ModelSpec, VLLMOptions
from poemetric.providers.registry import (
    NOT_NAMEABLE,
    UnknownProviderError,
    available_providers,
    listed_providers,
    provider_class,
)
from poemetric.redaction import (
    refused_keys,
    remember_url_credentials,
)
from poemetric.roster.base import (
    RESERVED_NAMES,
    RosterError,
    RosterFileError,
    RosterKind,
)
from poemetric.roster.base_url_check import check_base_url
from poemetric.roster.field_errors import validation_error
from poemetric.roster.interpolation import interpolate, is_variable_name, unsigiled
from poemetric.roster.yaml_reader import _read_yaml
from poemetric.suggest import close_names, did_you_mean
from poemetric.text.plural import plural

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


#: Fields that only a judge file may set.
JUDGE_ONLY_FIELDS = ("template", "structured", "reask")
#: Fields read by one provider only (field: provider): a file of another provider may not set them.
PROVIDER_ONLY_FIELDS = {"vllm": "vllm"}


def load_model_file(
    path: Path,
    providers: Sequence[str] | None = None,
    kind: RosterKind | None = None,
    *,
    check_provider: bool = True,
) -> ModelSpec:
    """Read and validate one model file; the file stem must equal its `name`.

    `providers` (the registered provider names) is looked up when not given. With
    `check_provider=False` the checks that need the provider's class (its `options:` keys, the
    fields it needs, `api_key_env: false`) are skipped: loading the class imports its SDK, a
    second or more, which reading a display name does not need. A judge file's
    `template` is resolved (beside the file, or in prompts/) to a path and checked. A problem of
    the file is a `RosterFileError` (the roster defers it to the commands that select the model);
    a reserved name is a `RosterError`.
    """
    path = Path(path)
    data, node = _read_yaml(path)
    if not isinstance(data, dict):
        raise RosterFileError(
            f"{path}: expected a mapping of model fields, got "
            + ("an empty file" if data is None else type(data).__name__),
            "the file is empty" if data is None else "not a mapping of model fields",
        )
    data = interpolate(path, data, node)
    if isinstance(data.get("base_url"), str):  # a login written into it: redacted everywhere
        check_base_url(path, data["base_url"], node)
        remember_url_credentials(data["base_url"])
    try:
        spec = ModelSpec.model_validate(data)
    except ValidationError as error:
        hidden = JUDGE_ONLY_FIELDS if kind == "generators" else ()
        raise validation_error(path, error, node, hidden) from None
    if spec.api_key_env is False:
        if check_provider:
            _check_no_key(path, spec, node)
    elif isinstance(spec.api_key_env, str) and spec.api_key_env.lower() in _NO_KEY_WORDS:
        raise RosterFileError(
            f"{path}:{line_of(node, ('api_key_env',))}: api_key_env: {spec.api_key_env!r} "
            "would be read as a variable's name; for a server that checks no key write "
            "`api_key_env: false` (unquoted)",
            f"api_key_env: {spec.api_key_env!r} names a variable (no key: write false)",
        )
    elif (
        isinstance(spec.api_key_env, str)
        and spec.api_key_env.startswith("$")
        and is_variable_name(unsigiled(spec.api_key_env))
    ):
        # `$MY_KEY` / `${MY_KEY}`: a variable's name written as a shell reference.
        name = unsigiled(spec.api_key_env)
        raise RosterFileError(
            f"{path}:{line_of(node, ('api_key_env',))}: api_key_env: {spec.api_key_env} is not "
            f"a variable's name: it takes the name itself, without '$': write "
            f"`api_key_env: {name}`",
            f"api_key_env: {spec.api_key_env} is not a variable's name (drop the '$': {name})",
        )
    elif spec.api_key_env is not None and not is_variable_name(spec.api_key_env):
        # The value is not repeated: it is often the key itself, pasted in the wrong place.
        raise RosterFileError(
            f"{path}:{line_of(node, ('api_key_env',))}: api_key_env must be the name of the "
            "environment variable that holds the key (letters, digits and '_', e.g. "
            "OPENAI_API_KEY), never the key itself",
            "api_key_env is not a variable's name",
        )
    if spec.name != path.stem:
        raise RosterFileError(
            f"{path}:{line_of(node, ('name',))}: name {spec.name!r} must equal the file name "
            f"{path.stem!r} (rename the file or the model)",
            f"name {spec.name!r} differs from the file name",
        )
    if not _NAME_RE.match(spec.name):
        raise RosterFileError(
            f"{path}: name {spec.name!r} must be lower case letters, digits, '.', '_' or '-'",
            "the name must be lower case letters, digits, '.', '_' or '-'",
        )
    if spec.name in RESERVED_NAMES:
        raise RosterError(f"{path}: {spec.name!r} is reserved and cannot name a model")
    providers = available_providers() if providers is None else providers
    if spec.provider in NOT_NAMEABLE:
        listed, why = listed_providers(providers)
        raise RosterFileError(
            f"{path}:{line_of(node, ('provider',))}: provider {spec.provider!r} "
            f"{NOT_NAMEABLE[spec.provider]}; available: {listed}{why}",
            f"provider {spec.provider!r} cannot be named in a model file (the dataset's author)",
        )
    if spec.provider not in providers:
        close = close_names(spec.provider, providers, cutoff=0.75)
        listed, why = listed_providers(providers)
        raise RosterFileError(
            f"{path}:{line_of(node, ('provider',))}: unknown provider {spec.provider!r}; "
            f"available: {listed} (a provider of another package needs that package installed: "
            f"docs/providers.md){why}",
            f"unknown provider {spec.provider!r} (did you mean {close[0]!r}?)"
            if close
            else f"provider {spec.provider!r} is not installed",
        )
    if check_provider:
        _check_options(path, spec, node)
        _check_needed_fields(path, spec, node)
        _check_settings(path, spec, node)
    if "vllm" in spec.model_fields_set and spec.provider != PROVIDER_ONLY_FIELDS["vllm"]:
        raise RosterFileError(
            f"{path}:{line_of(node, ('vllm',))}: a `vllm:` block is read only by provider "
            f"'vllm', not {spec.provider!r}: its engine options would be ignored",
            f"`vllm:` engine options on provider {spec.provider!r} (read only by provider 'vllm')",
        )
    if kind == "generators":
        for field in JUDGE_ONLY_FIELDS:
            if field in spec.model_fields_set:
                raise RosterFileError(
                    f"{path}:{line_of(node, (field,))}: {field!r} is a judge setting; it belongs "
                    "in a file under judges/",
                    f"{field!r} is a judge setting (it belongs under judges/)",
                )
    if spec.template is not None:
        spec = spec.model_copy(update={"template": _judge_template(path, spec.template, node)})
    asks = "api_key_env" if "api_key_env" in spec.model_fields_set else "provider"
    spec._key_asked_at = f"{path}:{line_of(node, (asks,))}"
    spec._model_file = str(path)
    return spec


#: `api_key_env` values meant as "no key" that YAML reads as text, not as `false`.
_NO_KEY_WORDS = frozenset({"false", "none", "no", "off", "null"})


def _check_no_key(path: Path, spec: ModelSpec, node: yaml.Node | None) -> None:
    """`api_key_env: false` (no key) on a remote provider that needs one is a file error, so a
    forgotten key is never sent as none; a provider that cannot be loaded is reported later."""
    try:
        cls = provider_class(spec.provider)
    except (UnknownProviderError, ImportError):
        return
    if cls.remote and not cls.accepts_no_key:
        raise RosterFileError(
            f"{path}:{line_of(node, ('api_key_env',))}: api_key_env: false (no key) is for a "
            f"server that checks none (provider openai-compatible); provider {spec.provider!r} "
            "needs a key: name the variable that holds it, or remove the line to read the "
            "provider's default variable",
            f"api_key_env: false, but provider {spec.provider!r} needs a key",
        )


def _check_needed_fields(path: Path, spec: ModelSpec, node: yaml.Node | None) -> None:
    """What the provider has no default for: `base_url` (`needs_base_url`: `openai-compatible`)
    and `api_key_env` (`needs_api_key_env`; `false` says no key). A file without it is unusable,
    named by the listing, rather than found out by a run (and priced as a paid API)."""
    try:
        cls = provider_class(spec.provider)
    except (UnknownProviderError, ImportError):
        return
    where = f"{path}:{line_of(node, ('provider',))}"
    if cls.needs_base_url and not spec.base_url:
        raise RosterFileError(
            f"{where}: base_url: missing; provider {spec.provider!r} has no default endpoint: "
            "give the server's address as the SDK takes it, with its /v1 (e.g. base_url: "
            "http://127.0.0.1:8000/v1)",
            f"base_url: missing (provider {spec.provider!r} needs the server's address)",
        )
    if cls.needs_api_key_env and spec.api_key_env is None:
        raise RosterFileError(
            f"{where}: api_key_env: missing; provider {spec.provider!r} has no default key "
            "variable: name the environment variable that holds the server's key (e.g. "
            "api_key_env: MY_SERVER_KEY), or write api_key_env: false for a server that checks "
            "no key",
            f"api_key_env: missing (provider {spec.provider!r} has no default key variable; "
            "false: no key)",
        )


def _check_settings(path: Path, spec: ModelSpec, node: yaml.Node | None) -> None:
    """A `RosterFileError` for a setting the provider cannot send for this model (its
    `refused_settings`: `temperature` for an OpenAI reasoning model): run, it would be left out
    while the run's record and `models show` say it was used, or fail every call. An API key in
    `extra` too: settings are stored with every answer, exported and shown in the report."""
    key_envs = [spec.api_key_env] if isinstance(spec.api_key_env, str) else []
    refused = refused_keys(spec.settings.extra, "extra", key_envs)
    with contextlib.suppress(UnknownProviderError, ImportError):
        refused.update(provider_class(spec.provider).refused_settings(spec))
    _refuse(path, node, "settings", refused)


def _refuse(path: Path, node: yaml.Node | None, section: str, refused: dict[str, str]) -> None:
    """A `RosterFileError` naming each refused `section.field` with its line, if any."""
    if not refused:
        return
    problems = [
        f"{path}:{line_of(node, (section, *field.split('.')))}: {section}.{field}: {why}"
        for field, why in refused.items()
    ]
    field, why = next(iter(refused.items()))
    more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
    raise RosterFileError(
        "invalid model file:\n  " + "\n  ".join(problems), f"{section}.{field}: {why}{more}"
    )


def _check_options(path: Path, spec: ModelSpec, node: yaml.Node | None) -> None:
    """A `RosterFileError` for a key of `options:` that the provider does not read (its
    `option_keys`): a misspelt option would silently leave the provider's default in place; then
    for a value it cannot use (`refused_options`). A provider that declares no keys is not
    checked for unknown keys; one that cannot be loaded is reported when a command selects the
    model."""
    if not spec.options:
        return
    try:
        provider = provider_class(spec.provider)
    except (UnknownProviderError, ImportError):
        return
    allowed = provider.option_keys
    unknown = [key for key in spec.options if allowed is not None and key not in allowed]
    if not unknown or allowed is None:
        _refuse(path, node, "options", provider.refused_options(spec))
        return
    reads = f"provider {spec.provider!r} reads " + (
        f"options {', '.join(sorted(allowed))}" if allowed else "no options"
    )
    problems = [
        f"{path}:{line_of(node, ('options', key))}: options.{key}: "
        f"{_unknown_option(key, spec.provider, allowed)}; {reads}"
        for key in unknown
    ]
    more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
    first = _unknown_option(unknown[0], spec.provider, allowed)
    raise RosterFileError(
        "invalid model file:\n  " + "\n  ".join(problems), f"options.{unknown[0]}: {first}{more}"
    )


def _unknown_option(key: str, provider: str, allowed: frozenset[str]) -> str:
    """`unknown key 'ordr' (did you mean 'order'?)`, or where such a key belongs instead."""
    message = f"unknown key {key!r}"
    if key in GenerationSettings.model_fields:
        return f"{message} (a sampling setting: it belongs under `settings:`)"
    if provider == "vllm" and key in VLLMOptions.model_fields:
        return f"{message} (an engine option: it belongs under `vllm:`)"
    return message + did_you_mean(key, sorted(allowed))


def _judge_template(path: Path, name: str, node: yaml.Node | None) -> str:
    from poemetric.data.text_files import TextFileError, read_utf8_file
    from poemetric.prompts import (
        JUDGE_PLACEHOLDERS,
        TEMPLATE_SUFFIXES,
        PromptError,
        template_path,
    )

    where = f"{path}:{line_of(node, ('template',))}"
    try:
        found = template_path(name, relative_to=path.parent)
        text = read_utf8_file(found)
    except PromptError as error:
        why = f"template: {error}"
        if Path(name).name == name:  # bundled ones alone read as though yours went in prompts/
            own = path.parent / (name if Path(name).suffix else f"{name}.md")
            beside = [p.stem for p in path.parent.iterdir() if p.suffix in TEMPLATE_SUFFIXES]
            why += f"; a template of your own goes beside the judge file: {own}"
            why += did_you_mean(Path(name).stem, beside)
        raise RosterFileError(f"{where}: {why}", why) from None
    except TextFileError as error:
        raise RosterFileError(f"{where}: template: {error}", f"template: {error}") from None
    missing = [p for p in JUDGE_PLACEHOLDERS if p not in text]
    if missing:
        placeholders = plural(len(missing), "placeholder")
        raise RosterFileError(
            f"{where}: template {found} lacks the {placeholders} {', '.join(missing)}",
            f"template {found.name} lacks the {placeholders} {', '.join(missing)}",
        )
    return str(found.resolve())
