"""Local language models through Hugging Face `transformers`: loading, chat generation, scoring.

Shared by the `transformers` provider (generation through the batch runner) and the probes'
`hf:` scorer (log-probabilities of whole texts). PyTorch and transformers are imported lazily;
`pip install 'poemetric[local]'` installs them.

Where a model comes from (`ModelSource`, `resolve_source`) is `model_source`.

Scoring rules (each one a bug seen in other scorers' trackers): every text is tokenized once, as a
whole, without special tokens, and an explicit prefix token is put in front so that the first
word is predicted too; sequences are right-padded so padding never changes a real token's
log-probability; on the CPU everything runs in float32.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from poemetric.hints import TORCH_CPU_INDEX, run_by_make
from poemetric.providers.gguf_cache import load_pretrained
from poemetric.providers.model_source import LocalModelError, ModelSource
from poemetric.providers.torch_device import device_problem


def install_hint() -> str:
    """How to install what the local models need, the way this command was started: `make
    install` under make (a checkout), else pip, the CPU build of PyTorch from its own index."""
    if run_by_make():
        return "`make install` installs them (LOCAL=1), with PyTorch's CPU build"
    return (
        "pip install 'poemetric[local]' (PyTorch, transformers, gguf, accelerate); for PyTorch's "
        f"CPU build (PyPI's on Linux is the CUDA one, several GB), first: pip install "
        f"torch==2.13.0 --index-url {TORCH_CPU_INDEX}"
    )


#: The document separator of the GPT-2 family, tried first when the model file names no prefix.
PREFIX_CANDIDATES = ("<|endoftext|>",)
#: Tried last, for a tokenizer that declares neither a BOS nor an EOS token.
UNDECLARED_STARTS = ("<s>", "<|begin_of_text|>", "</s>")


def import_torch() -> Any:
    try:
        import torch
    except ImportError as error:
        raise LocalModelError(f"PyTorch is not installed: {install_hint()}") from error
    return torch


def import_transformers() -> Any:
    import_torch()
    try:
        import transformers
    except ImportError as error:
        raise LocalModelError(f"transformers is not installed: {install_hint()}") from error
    transformers.utils.logging.disable_progress_bar()
    transformers.utils.logging.set_verbosity_error()
    return transformers


def require_installed() -> None:
    """The `LocalModelError` that `import_transformers` raises when PyTorch or transformers is
    missing, without importing them (seconds)."""
    if not _installed("torch"):
        raise LocalModelError(f"PyTorch is not installed: {install_hint()}")
    if not _installed("transformers"):
        raise LocalModelError(f"transformers is not installed: {install_hint()}")


def _installed(name: str) -> bool:
    if name in sys.modules:  # imported (None: blocked, as a missing one)
        return sys.modules[name] is not None
    return importlib.util.find_spec(name) is not None


def cpu_for_certain(device: str) -> bool:
    """Whether `pick_device(device)` is "cpu" without asking PyTorch (importing it takes
    seconds): "cpu" asked, or "auto" with PyTorch's CPU build (version `...+cpu`), which has no
    CUDA. False: ask `pick_device` (as well when PyTorch is imported already: it costs nothing)."""
    from importlib.metadata import PackageNotFoundError, version

    if "torch" in sys.modules:
        return False
    try:
        return device == "cpu" or (device == "auto" and version("torch").endswith("+cpu"))
    except PackageNotFoundError:
        return False


def pick_device(device: str = "auto") -> str:
    """`device` once checked (else `LocalModelError`); "auto": CUDA when available, else CPU."""
    torch = import_torch()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if problem := device_problem(torch, device):
        raise LocalModelError(problem)
    return device


def pick_dtype(dtype: str, device: str) -> Any:
    """float32 on the CPU whatever is asked (half precision there is slow and inexact)."""
    torch = import_torch()
    if device == "cpu" or dtype in ("float32", "fp32"):
        return torch.float32
    if dtype == "auto":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return getattr(torch, dtype)


def prefix_token_id(tokenizer: Any, token: str | None = None) -> int:
    """The explicit prefix token of a tokenizer: `token` when given, else the document
    separator `<|endoftext|>`, else BOS, else EOS (else `UNDECLARED_STARTS`). Scoring after it
    makes the first word count (a Llama-2 or Mistral text is scored after its BOS `<s>`, as
    lm-evaluation-harness scores it, not after its EOS `</s>`)."""
    vocab = tokenizer.get_vocab()
    if token is not None:
        if token not in vocab:
            raise LocalModelError(f"prefix token {token!r} is not in the vocabulary")
        return int(vocab[token])
    for candidate in PREFIX_CANDIDATES:
        if candidate in vocab:
            return int(vocab[candidate])
    for special in (tokenizer.bos_token_id, tokenizer.eos_token_id):
        if special is not None:
            return int(special)
    for candidate in UNDECLARED_STARTS:
        if candidate in vocab:
            return int(vocab[candidate])
    raise LocalModelError("the tokenizer has no BOS/EOS token to use as a prefix")


def load_failure(source: ModelSource, error: Exception) -> str:
    """What to say when `source` does not load. A hub id read from the local cache only (no
    `allow_download`) that is not there in full gets transformers' error about a connection it
    never tried to make ("We couldn't connect to 'https://huggingface.co'... Check your internet
    connection"); it is said as it is, with the two ways out."""
    said = f"{type(error).__name__}: {error}"
    hub_id = not Path(source.location).expanduser().exists()
    if isinstance(error, OSError) and source.local_only and hub_id:
        first = str(error).strip().splitlines()[0] if str(error).strip() else said
        return (
            f"could not load {source.describe()!r}: not a file or folder on this machine, and "
            "a Hugging Face hub id is read from the local Hugging Face cache only (downloads "
            f"are off), where it is not in full: download it first (`hf download "
            f"{source.location}`; `huggingface-cli download` before huggingface_hub 0.34) or "
            f"set `options.allow_download: true` in the model file (transformers said: {first})"
        )
    return f"could not load {source.describe()!r}: {said}"


@dataclass(frozen=True)
class SequenceScore:
    """Log-probability of one text under a model (natural log)."""

    logprob_sum: float
    n_tokens: int
    token_logprobs: tuple[float, ...] = ()

    @property
    def mean(self) -> float:
        return self.logprob_sum / self.n_tokens if self.n_tokens else math.nan


#: `scored(indices, scores)`: a batch's texts (their indices in the list scored), scored.
BatchScored = Callable[[Sequence[int], Sequence[SequenceScore]], None]


@dataclass(frozen=True)
class GenerationOutput:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


class LocalCausalLM:
    """A causal language model and its tokenizer, in eval mode, on one device."""

    def __init__(
        self,
        source: ModelSource,
        *,
        device: str = "auto",
        dtype: str = "float32",
        trust_remote_code: bool = False,
    ) -> None:
        transformers = import_transformers()
        torch = import_torch()
        self.source = source
        self.device = pick_device(device)
        self.dtype = pick_dtype(dtype, self.device)
        kwargs: dict[str, Any] = {
            "local_files_only": source.local_only,
            "trust_remote_code": trust_remote_code,
        }
        if source.gguf_file:
            kwargs["gguf_file"] = source.gguf_file
        try:
            self.tokenizer, self.model = load_pretrained(transformers, source, self.dtype, kwargs)
        except (OSError, ValueError, ImportError, RuntimeError) as error:
            raise LocalModelError(load_failure(source, error)) from error
        self.model.to(self.device)
        self.model.eval()
        self.lock = threading.Lock()
        self._torch = torch

    # -- tokens ------------------------------------------------------------------------------
    def prefix_token_id(self, token: str | None = None) -> int:
        """The token put before every scored text (`token` names one explicitly)."""
        return prefix_token_id(self.tokenizer, token)

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text tokenized once, as a whole, without special tokens."""
        return [
            list(ids) for ids in self.tokenizer(list(texts), add_special_tokens=False).input_ids
        ]

    # -- scoring -----------------------------------------------------------------------------
    def score_ids(
        self,
        sequences: Sequence[Sequence[int]],
        *,
        batch_size: int = 8,
        advance: Callable[[int], None] | None = None,
        scored: BatchScored | None = None,
    ) -> list[SequenceScore]:
        """Log-probabilities of tokens 1.. of each id sequence given the tokens before them.

        Token 0 is the prefix (never scored). Sequences are sorted by length into batches and
        right-padded, so a batch's padding sits after every real token and cannot change it.
        After each batch, `scored(indices, scores)` gets its sequences' scores (to keep them)
        and `advance(n)` its size (a progress bar).
        """
        torch = self._torch
        order = sorted(range(len(sequences)), key=lambda i: -len(sequences[i]))
        results: list[SequenceScore | None] = [None] * len(sequences)
        pad = self.tokenizer.pad_token_id
        pad = int(pad if pad is not None else 0)
        with self.lock, torch.inference_mode():
            for start in range(0, len(order), max(1, batch_size)):
                chunk = order[start : start + max(1, batch_size)]
                width = max(len(sequences[i]) for i in chunk)
                ids = torch.full((len(chunk), width), pad, dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for row, index in enumerate(chunk):
                    tokens = sequences[index]
                    ids[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
                    mask[row, : len(tokens)] = 1
                logits = self.model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
                ).logits.float()
                logprobs = torch.log_softmax(logits[:, :-1], dim=-1)
                targets = ids[:, 1:].to(self.device).unsqueeze(-1)
                picked = logprobs.gather(-1, targets).squeeze(-1).cpu()
                batch = []
                for row, index in enumerate(chunk):
                    values = tuple(float(v) for v in picked[row, : len(sequences[index]) - 1])
                    batch.append(SequenceScore(math.fsum(values), len(values), values))
                    results[index] = batch[-1]
                if scored is not None:
                    scored(chunk, batch)
                if advance is not None:
                    advance(len(chunk))
        return [r for r in results if r is not None]

    def score_texts(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 8,
        prefix_token: str | None = None,
        advance: Callable[[int], None] | None = None,
        scored: BatchScored | None = None,
    ) -> list[SequenceScore]:
        prefix = self.prefix_token_id(prefix_token)
        sequences = [[prefix, *ids] for ids in self.encode(texts)]
        return self.score_ids(sequences, batch_size=batch_size, advance=advance, scored=scored)

    # -- generation ----------------------------------------------------------------------------
    def chat_ids(
        self, conversation: Sequence[dict[str, str]], template_kwargs: dict[str, Any] | None
    ) -> list[int]:
        if not getattr(self.tokenizer, "chat_template", None):
            raise LocalModelError(f"{self.source.describe()} has no chat template")
        encoded = self.tokenizer.apply_chat_template(
            list(conversation),
            add_generation_prompt=True,
            tokenize=True,
            **(template_kwargs or {}),
        )
        ids = encoded["input_ids"] if hasattr(encoded, "keys") else encoded
        return [int(i) for i in ids]

    def generate(
        self, prompts: Sequence[Sequence[int]], sampling: dict[str, Any], seed: int | None = None
    ) -> list[GenerationOutput]:
        """Continue each prompt (left-padded into one batch) with the same sampling settings."""
        torch = self._torch
        pad = self.tokenizer.pad_token_id
        pad = int(pad if pad is not None else self.tokenizer.eos_token_id or 0)
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), pad, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, prompt in enumerate(prompts):
            ids[row, width - len(prompt) :] = torch.tensor(list(prompt), dtype=torch.long)
            mask[row, width - len(prompt) :] = 1
        with self.lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            output = self.model.generate(
                input_ids=ids.to(self.device),
                attention_mask=mask.to(self.device),
                pad_token_id=pad,
                **sampling,
            )
        eos = self._eos_ids()
        results = []
        for row, prompt in enumerate(prompts):
            new = [int(t) for t in output[row, width:].tolist()]
            finish = "length"
            for position, token in enumerate(new):
                if token in eos:
                    new, finish = new[:position], "stop"
                    break
            text = self.tokenizer.decode(new, skip_special_tokens=True)
            results.append(GenerationOutput(text, len(prompt), len(new), finish))
        return results

    def continuations(
        self, prompt: Sequence[int], *, seed: int | None = None, **generate_kwargs: Any
    ) -> list[list[int]]:
        """New token ids of every sequence `generate` returns for one prompt (beam search,
        sampling...); used for raw-text continuation, without a chat template."""
        torch = self._torch
        ids = torch.tensor([list(prompt)], dtype=torch.long, device=self.device)
        pad = self.tokenizer.pad_token_id
        with self.lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            output = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                pad_token_id=int(pad if pad is not None else 0),
                **generate_kwargs,
            )
        return [[int(t) for t in row[len(prompt) :].tolist()] for row in output]

    def _eos_ids(self) -> set[int]:
        configured = self.model.generation_config.eos_token_id
        ids = [*configured] if isinstance(configured, list) else [configured]  # a copy
        ids.append(self.tokenizer.eos_token_id)
        return {int(i) for i in ids if i is not None}


# -- one loaded model per process --------------------------------------------------------------
_LOADED: dict[tuple[Any, ...], LocalCausalLM] = {}
_LOAD_LOCK = threading.Lock()


def load_causal_lm(
    source: ModelSource,
    *,
    device: str = "auto",
    dtype: str = "float32",
    trust_remote_code: bool = False,
    loader: Callable[..., LocalCausalLM] = LocalCausalLM,
) -> LocalCausalLM:
    """The model for `source`, loaded once per process; loading another frees the previous one
    (a provider and a scorer of the same model share it; two models never sit in memory)."""
    device = pick_device(device)  # a device that cannot be used keeps the model loaded now
    key = (source, device, dtype, trust_remote_code)
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        release_models()
        model = loader(source, device=device, dtype=dtype, trust_remote_code=trust_remote_code)
        _LOADED[key] = model
        return model


def release_models() -> None:
    """Forget loaded models and free the GPU memory they held."""
    had_cuda = any(m.device.startswith("cuda") for m in _LOADED.values())
    _LOADED.clear()
    if had_cuda:
        import_torch().cuda.empty_cache()
