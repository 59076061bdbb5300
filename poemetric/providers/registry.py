"""Provider registry: built-in adapters by name, third-party ones through entry points.

A package adds a provider by declaring, in its own `pyproject.toml`::

    [project.entry-points."poemetric.providers"]
    myprovider = "mypkg.module:MyProvider"

and a model file then says `provider: myprovider`; the class's `name` must be the entry point's
name. The built-in names are POEMetric's own: an entry point of another package that reuses one
is an error, never a silent replacement.
"""

from __future__ import annotations

import importlib
import inspect
import reprlib
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from poemetric.providers.base import ModelSpec, Provider

ENTRY_POINT_GROUP = "poemetric.providers"

# Built-ins are imported lazily so that, e.g., importing POEMetric never imports vLLM.
_BUILTIN: dict[str, str] = {
    "human": "poemetric.providers.offline:HumanProvider",
    "markov": "poemetric.providers.offline:MarkovProvider",
    "openai": "poemetric.providers.openai_provider:OpenAIProvider",
    "openai-compatible": "poemetric.providers.openai_provider:OpenAICompatibleProvider",
    "anthropic": "poemetric.providers.anthropic_provider:AnthropicProvider",
    "google": "poemetric.providers.google_provider:GoogleProvider",
    "vllm": "poemetric.providers.vllm_provider:VLLMProvider",
    "transformers": "poemetric.providers.transformers_provider:TransformersProvider",
}
_REGISTERED: dict[str, type[Provider]] = {}
#: Built-in names that no model file may name, and why. `human` is the dataset's own author: every
#: run holds its poems, and a model of it would copy them under another author's name (and, as a
#: judge, answer with the poem). The name stays taken: no package may register it.
NOT_NAMEABLE: dict[str, str] = {
    "human": "is the dataset's own author (the human poems every run holds), not a provider a "
    "model file can name: a model of it would copy the human poems under another name",
}


class UnknownProviderError(LookupError):
    pass


class ProviderLoadError(UnknownProviderError):
    """A registered provider that cannot be used: its entry point does not import, names no
    `Provider` subclass, or reuses a name that is taken."""


def register_provider(name: str, cls: type[Provider]) -> None:
    """Register a provider class in-process (tests, notebooks)."""
    _REGISTERED[name] = cls


#: How much of an object that is not a provider class a load error shows (a module's table
#: or a large instance printed whole buried the reason under thousands of characters).
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60


def _named(obj: object) -> str:
    """A class by its qualified name, anything else as a short repr with its type."""
    if isinstance(obj, type):
        return f"class {obj.__module__}.{obj.__qualname__}"
    return f"{_SHORT.repr(obj)} (a {type(obj).__name__})"


def _checked(cls: object, what: str) -> type[Provider]:
    if not (isinstance(cls, type) and issubclass(cls, Provider)):
        raise ProviderLoadError(
            f"{what} names {_named(cls)}, which is not a subclass of poemetric.providers.Provider"
        )
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise ProviderLoadError(f"{what}: {cls.__name__} does not implement {missing}")
    if not inspect.iscoroutinefunction(cls.generate):
        raise ProviderLoadError(
            f"{what}: {cls.__name__}.generate must be a coroutine (`async def generate`)"
        )
    return cls


def _load(target: str) -> type[Provider]:
    module_name, _, attr = target.partition(":")
    return _checked(getattr(importlib.import_module(module_name), attr), target)


#: Frames of the import machinery, left out when saying where an entry point's import raised.
_IMPORT_MACHINERY = (str(Path(importlib.__file__).parent), __file__)


def _raised_at(error: BaseException) -> str:
    """` (raised at FILE, line N)`: the last frame outside the import machinery, which is the
    plugin's own line (or that of a library it imports) that raised while its module was being
    imported; empty when there is none (a missing attribute, a syntax error, whose message says
    where)."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith(("<frozen ", *_IMPORT_MACHINERY))
    ]
    return f" (raised at {frames[-1].filename}, line {frames[-1].lineno})" if frames else ""


def _described(entry: EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    package = f" of package {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point '{entry.name} = {entry.value}'{package}"


def _load_entry_point(entry: EntryPoint) -> type[Provider]:
    what = f"provider {entry.name!r} ({_described(entry)})"
    try:
        loaded = entry.load()
    except Exception as error:  # an import error, a syntax error, a missing attribute...
        raise ProviderLoadError(
            f"{what} cannot be loaded: {type(error).__name__}: {error}{_raised_at(error)}"
        ) from error
    except SystemExit as error:  # `sys.exit()` on import would end every command, silently
        raise ProviderLoadError(
            f"{what} cannot be loaded: its import called sys.exit({error.code!r})"
        ) from error
    cls = _checked(loaded, what)
    declared = getattr(cls, "name", None)
    if declared != entry.name:  # model files say the entry point's name, messages say `name`
        said = "sets no `name`" if declared is None else f"says name = {declared!r}"
        raise ProviderLoadError(
            f"{what}: {cls.__name__} {said}, but its entry point names it {entry.name!r}: "
            f"model files name a provider by its entry point (`provider: {entry.name}`) and "
            f"its messages by `name`, so they must be the same; set `name: ClassVar[str] = "
            f"{entry.name!r}` in {cls.__name__}, or rename the entry point (and the model "
            "files' `provider:`)"
        )
    return cls


#: The group's entry points while `entry_points_read_once` is active, else None.
_READ_ONCE: ContextVar[tuple[EntryPoint, ...] | None] = ContextVar(
    "poemetric_provider_entry_points", default=None
)


@contextmanager
def entry_points_read_once() -> Iterator[None]:
    """Within it (also as a decorator), the installed packages' entry points are read once.
    Reading them opens the metadata of every installed package (about 5 ms with a hundred
    installed), and a roster load asked for them at each check of each model file: some 75
    reads, most of the CPU of `poemetric models` or `generate --dry-run`. Outside it, each
    question reads them again, so a package installed since is seen by the next command."""
    if _READ_ONCE.get() is not None:
        yield
        return
    token = _READ_ONCE.set(tuple(entry_points(group=ENTRY_POINT_GROUP)))
    try:
        yield
    finally:
        _READ_ONCE.reset(token)


def _group_entry_points() -> tuple[EntryPoint, ...]:
    held = _READ_ONCE.get()
    return held if held is not None else tuple(entry_points(group=ENTRY_POINT_GROUP))


def _third_party(name: str) -> list[EntryPoint]:
    """Entry points named `name`, without POEMetric's own registration of its built-ins and
    without the same target registered twice (one package found on two paths)."""
    found: dict[str, EntryPoint] = {}
    for entry in _group_entry_points():
        if entry.name == name and entry.value != _BUILTIN.get(name):
            found.setdefault(entry.value, entry)
    return list(found.values())


def available_providers() -> list[str]:
    """The providers a model file may name: every registered one but `human` (NOT_NAMEABLE)."""
    names = set(_BUILTIN) | set(_REGISTERED)
    names |= {ep.name for ep in _group_entry_points()}
    return sorted(names - set(NOT_NAMEABLE))


def listed_providers(names: Sequence[str] | None = None) -> tuple[str, str]:
    """`names` (by default `available_providers()`) for an error's "available: ..." list, and
    what follows it: one that cannot be loaded (`load_problem`) is listed as "NAME (failed to
    load)", and the second text gives each one's reason ("; provider 'NAME' (entry point ...)
    cannot be loaded: ..."; empty where all load), so the list offers none as usable that is
    not. Loads only the third-party ones."""
    names = available_providers() if names is None else names
    problems = {name: load_problem(name) for name in names}
    listed = [name if problems[name] is None else f"{name} (failed to load)" for name in names]
    return ", ".join(listed), "".join(f"; {problem}" for problem in problems.values() if problem)


def provider_class(name: str) -> type[Provider]:
    """The provider class registered as `name`; `ProviderLoadError` (with the entry point and
    its package) when it cannot be used, `UnknownProviderError` when nothing has the name."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    entries = _third_party(name)
    if name in _BUILTIN:
        if entries:
            raise ProviderLoadError(
                f"provider {name!r} is built into POEMetric, but {_described(entries[0])} "
                "registers the same name: give that provider a name of its own (rename the "
                "entry point and the model files' `provider:`), or uninstall the package"
            )
        return _load(_BUILTIN[name])
    if len(entries) > 1:
        raise ProviderLoadError(
            f"provider {name!r} is registered more than once: "
            f"{'; '.join(_described(entry) for entry in entries)}; uninstall or rename all but one"
        )
    if entries:
        return _load_entry_point(entries[0])
    listed, why = listed_providers()
    raise UnknownProviderError(
        f"no provider named {name!r}; available: {listed}{why}. "
        f"Third-party providers register through the {ENTRY_POINT_GROUP!r} entry-point group."
    )


def load_problem(name: str) -> str | None:
    """Why the provider `name` cannot be used (`ProviderLoadError`'s message: a broken entry
    point, a name registered twice or taken from a built-in), or None. Built-in adapters are not
    imported (`poemetric models` stays quick); a name nothing registers is None too (the model
    file check says "not installed")."""
    if name in _REGISTERED or (name in _BUILTIN and not _third_party(name)):
        return None
    try:
        provider_class(name)
    except ProviderLoadError as error:
        return str(error)
    except UnknownProviderError:
        return None
    return None


def describe_provider(name: str) -> str:
    """`provider 'toy' (entry point 'toy = pkg.mod:Cls' of package pkg 1.0)`, or the class
    that serves a built-in or in-process name, for messages about an adapter's own bug."""
    entries = _third_party(name)
    if len(entries) == 1:
        return f"provider {name!r} ({_described(entries[0])})"
    if name in _REGISTERED:
        cls = _REGISTERED[name]
        return f"provider {name!r} ({cls.__module__}:{cls.__qualname__})"
    if name in _BUILTIN:
        return f"provider {name!r} (built in: {_BUILTIN[name]})"
    return f"provider {name!r}"


def create_provider(spec: ModelSpec) -> Provider:
    return provider_class(spec.provider)(spec)
