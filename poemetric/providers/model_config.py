"""Whether a local model is a masked or a causal language model, read without transformers.

`transformers.AutoConfig` answers for any model, but importing transformers' auto classes
imports PyTorch (seconds), and for a GGUF file it parses every metadata field, the whole
vocabulary included (about 6 s for the packaged SmolLM2 on 2 cores). The `hf:` scorer needs the
answer before it can look up a cache of scores, so a rerun whose texts are all cached would
spend most of its time here. `masked_from_files` reads only what decides: a GGUF file's
`general.architecture`, or `config.json`'s `architectures` with the json module. None when they
do not settle it: ask transformers (`poemetric.probes.scorers.hf.is_masked_lm`).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any, BinaryIO

from poemetric.providers.model_source import ModelSource

#: GGUF architectures (`general.architecture`) that transformers loads as causal LMs, each in
#: its MODEL_FOR_CAUSAL_LM_MAPPING_NAMES (no GGUF architecture it loads is a masked LM). Others
#: are left to transformers, which also refuses the ones it cannot load.
CAUSAL_GGUF = frozenset(
    {"llama", "mistral", "qwen2", "qwen3", "phi3", "gemma2", "gpt2", "falcon", "bloom"}
    | {"stablelm", "starcoder2"}
)
_GGUF_MAGIC = b"GGUF"
#: Byte sizes of GGUF's fixed-size value types (8 is a string, 9 an array).
_GGUF_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


def gguf_string_field(path: Path, wanted: str) -> str | None:
    """The string value of metadata key `wanted` in GGUF file `path` (version 2 or 3, little
    endian), reading the header up to it; None when the file has no such string."""
    try:
        with path.open("rb") as file:
            if file.read(4) != _GGUF_MAGIC or _unpack(file, "<I") not in (2, 3):
                return None
            _unpack(file, "<Q")  # tensors
            for _ in range(_unpack(file, "<Q")):
                key = _read_string(file)
                kind = _unpack(file, "<I")
                if key == wanted:
                    return _read_string(file) if kind == _STRING else None
                _skip_value(file, kind)
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return None
    return None


def _unpack(file: BinaryIO, layout: str) -> int:
    data = file.read(struct.calcsize(layout))
    value: int = struct.unpack(layout, data)[0]  # struct.error when the file ends
    return value


def _read_string(file: BinaryIO) -> str:
    size = _unpack(file, "<Q")
    data = file.read(size)
    if len(data) != size:
        raise ValueError("truncated GGUF string")
    return data.decode("utf-8")


def _skip_value(file: BinaryIO, kind: int) -> None:
    if kind == _STRING:
        file.seek(_unpack(file, "<Q"), 1)
    elif kind == _ARRAY:
        item, count = _unpack(file, "<I"), _unpack(file, "<Q")
        if item in _GGUF_SIZES:
            file.seek(_GGUF_SIZES[item] * count, 1)
        else:
            for _ in range(count):
                _skip_value(file, item)
    elif kind in _GGUF_SIZES:
        file.seek(_GGUF_SIZES[kind], 1)
    else:
        raise ValueError(f"unknown GGUF value type {kind}")


def config_json(source: ModelSource) -> dict[str, Any] | None:
    """The `config.json` transformers would read for `source` (a saved-model folder, or a hub
    id in the local cache when downloads are off), or None."""
    folder = Path(source.location).expanduser()
    if folder.is_dir():
        path: Path | None = folder / "config.json"
    elif source.local_only:
        path = _hub_file(source.location, "config.json")
    else:  # transformers may fetch a newer one
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8")) if path else None
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _hub_file(repo_id: str, filename: str) -> Path | None:
    """`filename` of hub model `repo_id` in the local cache (the revision transformers reads)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, filename)
    except (ImportError, ValueError):  # not a repo id (huggingface_hub validates it)
        return None
    return Path(found) if isinstance(found, str) else None


def masked_from_files(source: ModelSource) -> bool | None:
    """True for a masked LM, False for a causal one, as `hf.is_masked_lm` decides, from the
    files alone; None when they do not settle it."""
    folder = Path(source.location).expanduser()
    if source.gguf_file:
        if not folder.is_dir():
            return None
        architecture = gguf_string_field(folder / source.gguf_file, "general.architecture")
        return False if architecture in CAUSAL_GGUF else None
    config = config_json(source)
    if config is None or "auto_map" in config:  # custom code: as transformers takes it
        return None
    architectures = config.get("architectures") or []
    if not isinstance(architectures, list) or not all(isinstance(a, str) for a in architectures):
        return None
    if any(name.endswith("ForMaskedLM") for name in architectures):
        return True
    if any(name.endswith(("ForCausalLM", "LMHeadModel")) for name in architectures):
        return False
    return None
