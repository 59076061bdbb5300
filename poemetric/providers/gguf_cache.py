"""A local GGUF model kept once per machine as a plain transformers folder, so that it is parsed
once, not at every load.

transformers reads a GGUF file three times per load (the config, the tokenizer and the weights
each parse the whole file, the 49,152-token vocabulary of SmolLM2 included): most of the 17 CPU
seconds of loading the packaged SmolLM2. After the first load from the GGUF, the model as
loaded (its config, generation config and de-quantised weights, in the dtype it was loaded in)
and its tokenizer are written to ``models/<file stem>-<key>`` in the user cache dir
(`$POEMETRIC_CACHE_DIR`, else platformdirs' ``user_cache_dir("poemetric")``, as the form
checker's tables), and later loads read that folder (safetensors: 2.6 CPU seconds in a new process).

The key hashes the GGUF file's bytes, the dtype, and the versions of transformers, PyTorch,
gguf and this format: a changed file or library is a new folder. A folder is written under a
temporary name beside it and renamed into place, so a reader never sees half of one and two
processes converting at once leave one folder (the second's rename fails and its copy is
removed). An unwritable cache dir, or a full disk, costs the GGUF parse, nothing else; a folder
that does not load (a file cut short: a crash before the disk had it) is loaded from the GGUF
and written again. Versions beyond the newest `KEEP` of one file are deleted when a folder is
written. Files over `MAX_GGUF_BYTES` are not cached (their float32 copy would fill a disk), and
none is with `POEMETRIC_GGUF_CACHE=0`.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import logging
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from poemetric.env_settings import flag_from_env
from poemetric.paths import user_cache_path
from poemetric.providers.model_source import ModelSource

#: Bumped when what is written changes.
FORMAT = 1
#: Folders kept per GGUF file name (e.g. two transformers versions in two environments).
KEEP = 2
#: GGUF files larger than this are loaded from the file every time (1 GiB: about a 2B-parameter
#: model at 4 bits, 8 GiB once de-quantised to float32).
MAX_GGUF_BYTES = 1 << 30
#: A temporary folder older than this, or whose writer's pid is not running here, was left by a
#: killed process and is deleted (one still being written elsewhere, a cache dir shared over
#: NFS, only loses its rename: that load keeps its model and writes nothing).
STALE_TEMP_S = 3600.0

logger = logging.getLogger(__name__)


@contextmanager
def quiet_progress() -> Iterator[None]:
    """No progress bar while loading: transformers' GGUF reader draws its own tqdm bar, outside
    its logging switch, so its module's `tqdm` is swapped for a pass-through meanwhile."""
    try:
        module: Any = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    except ImportError:
        yield
        return
    original = getattr(module, "tqdm", None)
    module.tqdm = lambda iterable, *args, **kwargs: iterable
    try:
        yield
    finally:
        module.tqdm = original


#: Set to 0 (or off, false, no) to load a GGUF from the file every time, writing nothing; a
#: value that is no yes/no word is a `SettingError`.
CACHE_SWITCH = "POEMETRIC_GGUF_CACHE"


def local_gguf(source: ModelSource) -> Path | None:
    """The GGUF file of `source` when it is a file on this machine small enough to cache, and
    caching is not switched off (`$POEMETRIC_GGUF_CACHE=0`: a disk too small for the float32
    copy, or a read-only home)."""
    if not source.gguf_file:
        return None
    if not flag_from_env(CACHE_SWITCH, default=True):
        return None
    path = Path(source.location).expanduser() / source.gguf_file
    try:
        return path if path.is_file() and path.stat().st_size <= MAX_GGUF_BYTES else None
    except OSError:
        return None


def _package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "none"


def cache_folder(gguf: Path, dtype: Any) -> Path:
    """Where the model of `gguf` loaded in `dtype` is kept (it may not be there yet)."""
    digest = hashlib.sha256()
    with gguf.open("rb") as handle:
        digest.update(hashlib.file_digest(handle, "sha256").digest())
    versions = [f"{name} {_package_version(name)}" for name in ("transformers", "torch", "gguf")]
    digest.update(f"{dtype}; {'; '.join(versions)}; format {FORMAT}".encode())
    return user_cache_path("models", f"{gguf.stem}-{digest.hexdigest()[:16]}")


def plain(model: Any, dtype: Any) -> bool:
    """Whether every weight of `model` is a plain tensor of `dtype`, as a saved-model folder holds
    them: not so for the GGUF architectures whose weights transformers keeps packed (its own
    `Gguf*` layers, raw quantised blocks), which are never cached."""
    if any("gguf" in type(module).__module__.lower() for module in model.modules()):
        return False
    return all(tensor.dtype == dtype for tensor in model.state_dict().values())


def store(folder: Path, model: Any, tokenizer: Any) -> bool:
    """Write `model` (as loaded from a GGUF) and `tokenizer` to `folder`; False when it could not
    be written (an unwritable dir, a full disk), another process wrote it first, or the model's
    weights are not plain (`plain`)."""
    from safetensors.torch import save_model

    if not plain(model, model.dtype):
        return False
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        prefix = f".{folder.name}.{os.getpid()}."  # the writer's pid: see `_prune`
        temp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=prefix, suffix=".tmp"))
    except OSError as error:
        logger.debug("not caching %s: %s", folder, error)
        return False
    try:
        config = copy.deepcopy(model.config)
        if hasattr(config, "quantization_config"):  # GGUF: the weights below are plain tensors
            del config.quantization_config
        config.save_pretrained(temp)
        model.generation_config.save_pretrained(temp)
        save_model(model, str(temp / "model.safetensors"), metadata={"format": "pt"})
        tokenizer.save_pretrained(temp)
        temp.chmod(0o755)  # mkdtemp creates 0700
        os.rename(temp, folder)  # atomic; fails when another process renamed its copy first
    except Exception as error:  # safetensors says a full disk as SafetensorError
        logger.debug("not caching %s: %s", folder, error)
        return False
    finally:
        shutil.rmtree(temp, ignore_errors=True)  # gone already when renamed
    _prune(folder)
    return True


def _abandoned(temp: Path, now: float) -> bool:
    """Whether a temporary folder `store` made was left by a killed process."""
    fields = temp.name.removesuffix(".tmp").split(".")  # `.NAME.PID.RANDOM.tmp`
    pid = fields[-2] if len(fields) >= 2 else ""
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass  # another user's process: running
    return now - temp.stat().st_mtime > STALE_TEMP_S


def _prune(kept: Path) -> None:
    """Delete the versions of `kept`'s GGUF file beyond the newest `KEEP`, and temporary
    folders that a killed process left."""
    stem = kept.name.rsplit("-", 1)[0]
    now = time.time()
    with contextlib.suppress(OSError):
        entries = [p for p in kept.parent.iterdir() if p.is_dir()]
        for temp in (p for p in entries if p.name.startswith(".") and p.name.endswith(".tmp")):
            if _abandoned(temp, now):
                shutil.rmtree(temp, ignore_errors=True)
        versions = [p for p in entries if p.name.rsplit("-", 1)[0] == stem and p != kept]
        versions.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in versions[KEEP - 1 :]:
            shutil.rmtree(old, ignore_errors=True)


def _load_cached(
    transformers: Any, folder: Path, dtype: Any, trust_remote_code: bool
) -> tuple[Any, Any] | None:
    """The tokenizer and model kept in `folder`, or None when they do not load whole: any error
    (a truncated safetensors file is a SafetensorError, a damaged tokenizer.json a plain
    Exception from tokenizers) or a weight missing, unexpected or of another shape."""
    cached = {"local_files_only": True, "trust_remote_code": trust_remote_code}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, **cached)
        model, info = transformers.AutoModelForCausalLM.from_pretrained(
            folder, dtype=dtype, output_loading_info=True, **cached
        )
    except Exception as error:  # any: the GGUF itself is loaded instead
        logger.debug("cached %s does not load: %s", folder, error)
        return None
    if any(info.get(key) for key in ("missing_keys", "unexpected_keys", "mismatched_keys")):
        return None
    return tokenizer, model


def _discard(folder: Path) -> None:
    """Delete a kept folder that does not load, so that `store` can write it again (its rename
    fails onto a folder there already). Renamed aside first: no reader sees it half deleted."""
    aside = folder.with_name(f".{folder.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        os.rename(folder, aside)
    except OSError:
        return  # removed meanwhile (pruned, or discarded by another process)
    shutil.rmtree(aside, ignore_errors=True)


def load_pretrained(
    transformers: Any, source: ModelSource, dtype: Any, kwargs: dict[str, Any]
) -> tuple[Any, Any]:
    """The tokenizer and model of `source` (on the CPU, in `dtype`). A GGUF file on this machine
    is parsed once: its first load is written to the user cache dir, and later loads read that
    folder instead (`gguf_cache`); a cached folder that does not load is loaded from the GGUF."""
    gguf = local_gguf(source)
    folder = cache_folder(gguf, dtype) if gguf is not None else None
    if folder is not None and folder.is_dir():
        loaded = _load_cached(transformers, folder, dtype, kwargs["trust_remote_code"])
        if loaded is not None:
            return loaded
        _discard(folder)  # damaged: written again below from the GGUF, not parsed at each load
    with quiet_progress():
        tokenizer = transformers.AutoTokenizer.from_pretrained(source.location, **kwargs)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            source.location, dtype=dtype, **kwargs
        )
    if folder is not None:
        store(folder, model, tokenizer)
    return tokenizer, model
