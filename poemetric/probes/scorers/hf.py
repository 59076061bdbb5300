"""`hf:<model>`: log-probabilities from a transformers model on the CPU or a GPU.

Causal models give the log-probability of every token after an explicit prefix token
(`LocalCausalLM.score_texts`). Masked models give a pseudo-log-likelihood (Salazar et al. 2020,
the formulation BPoMP adapts from Lau et al. 2020): each token is masked in its own copy of the
text and predicted from both sides. `word_l2r` is the within-word left-to-right variant (Kauf and
Ivanova 2023): when a word is split into several tokens, the tokens of the same word to the
right of the predicted one are masked too, so a word's later pieces cannot give its earlier
ones away. The masked copies are run in chunks of `chunk_size`.

`<model>` is a model name from `generators/` with `provider: transformers` (``smollm2-135m``) or
anything `model_source.resolve_source` accepts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from poemetric.probes.pairs import Pair
from poemetric.probes.scorers.base import ScoreRecord, score_through_cache
from poemetric.probes.scorers.cache import ScoreCache, weights_fingerprint
from poemetric.providers.base import ModelSpec
from poemetric.providers.gguf_cache import quiet_progress
from poemetric.providers.model_config import masked_from_files
from poemetric.providers.model_source import LocalModelError, ModelSource, resolve_source
from poemetric.providers.transformers_engine import (
    BatchScored,
    LocalCausalLM,
    SequenceScore,
    cpu_for_certain,
    import_torch,
    import_transformers,
    pick_device,
    pick_dtype,
    require_installed,
)

PllVariant = Literal["original", "word_l2r"]


def spec_for(reference: str) -> ModelSpec:
    """The model file named `reference`, or an ad-hoc spec for a path / GGUF / hub id."""
    from poemetric.roster import load_catalog

    catalog = load_catalog("generators")
    catalog.refuse_unusable([reference])  # not taken for a hub id: the file's error
    if reference in catalog.entries:
        spec = catalog.entries[reference].spec
        if spec.provider != "transformers":
            raise LocalModelError(
                f"model {reference!r} uses provider {spec.provider!r}; hf: needs a "
                "transformers model (use vllm: or chat: for it)"
            )
        return spec
    return ModelSpec(name=reference, provider="transformers", model=reference)


def local_model_files() -> list[str]:
    """The model files of generators/ that `hf:` can load (provider transformers)."""
    from poemetric.roster import load_catalog

    entries = load_catalog("generators").entries
    return sorted(name for name, entry in entries.items() if entry.spec.provider == "transformers")


def not_loadable(source: ModelSource, error: Exception) -> LocalModelError:
    """The error for a model that cannot be loaded; for a hub id without downloads, what the
    reference may be (transformers' own text speaks of a failed connection), with the model
    files that are close to it (`hf:smollm2` -> smollm2-135m), or else those there are."""
    if source.local_only and not Path(source.location).is_dir():
        from poemetric.suggest import close_names

        local = local_model_files()
        close = close_names(source.location, local)
        hint = (
            f"; did you mean {', '.join(f'hf:{name}' for name in close)}?"
            if close
            else f"; local model files: {', '.join(f'hf:{name}' for name in local)}"
            if local
            else ""
        )
        return LocalModelError(
            f"could not load {source.describe()!r}: not a model file in generators/, a .gguf file "
            "or a saved-model folder, and not in the local Hugging Face cache (downloads are off)"
            f"{hint}"
        )
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return LocalModelError(f"could not load {source.describe()!r}: {type(error).__name__}: {first}")


def is_masked_lm(source: ModelSource) -> bool:
    """Whether `source` is a masked LM, by transformers' reading of its configuration (imports
    PyTorch; for a GGUF file, parses all its metadata). `HFScorer` first reads the files
    (`masked_from_files`)."""
    transformers = import_transformers()
    kwargs: dict[str, Any] = {"local_files_only": source.local_only}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    try:
        config = transformers.AutoConfig.from_pretrained(source.location, **kwargs)
    except (OSError, ValueError) as error:  # it was a traceback out of `probe run`
        raise not_loadable(source, error) from error
    architectures = getattr(config, "architectures", None) or []
    if any(name.endswith("ForMaskedLM") for name in architectures):
        return True
    if any(name.endswith("ForCausalLM") or name.endswith("LMHeadModel") for name in architectures):
        return False
    causal = transformers.models.auto.modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    return config.model_type not in causal


class MaskedLM:
    """A masked language model for pseudo-log-likelihoods (float32 on the CPU)."""

    def __init__(self, tokenizer: Any, model: Any, device: str = "cpu") -> None:
        self.tokenizer = tokenizer
        self.model = model.to(device).eval()
        self.device = device
        if tokenizer.mask_token_id is None:
            raise LocalModelError("the tokenizer has no mask token")

    @classmethod
    def load(cls, source: ModelSource, device: str = "auto", dtype: str = "float32") -> MaskedLM:
        transformers = import_transformers()
        device = pick_device(device)
        kwargs: dict[str, Any] = {"local_files_only": source.local_only}
        if source.gguf_file:
            kwargs["gguf_file"] = source.gguf_file
        with quiet_progress():
            tokenizer = transformers.AutoTokenizer.from_pretrained(source.location, **kwargs)
            model = transformers.AutoModelForMaskedLM.from_pretrained(
                source.location, dtype=pick_dtype(dtype, device), **kwargs
            )
        return cls(tokenizer, model, device)

    def pll(
        self, texts: Sequence[str], *, variant: PllVariant = "original", chunk_size: int = 64
    ) -> list[SequenceScore]:
        torch = import_torch()
        results = []
        for text in texts:
            encoding = self.tokenizer(text, return_special_tokens_mask=True)
            ids = list(encoding["input_ids"])
            words = encoding.word_ids()
            special = encoding["special_tokens_mask"]
            positions = [i for i, is_special in enumerate(special) if not is_special]
            copies = []
            for position in positions:
                masked = list(ids)
                masked[position] = self.tokenizer.mask_token_id
                if variant == "word_l2r" and words[position] is not None:
                    for later in range(position + 1, len(ids)):
                        if words[later] == words[position]:
                            masked[later] = self.tokenizer.mask_token_id
                copies.append(masked)
            values: list[float] = []
            with torch.inference_mode():
                for start in range(0, len(copies), max(1, chunk_size)):
                    batch = torch.tensor(copies[start : start + chunk_size], device=self.device)
                    logits = self.model(input_ids=batch).logits.float()
                    logprobs = torch.log_softmax(logits, dim=-1)
                    for row, position in enumerate(positions[start : start + chunk_size]):
                        values.append(float(logprobs[row, position, ids[position]]))
            results.append(SequenceScore(math.fsum(values), len(values), tuple(values)))
        return results


def _gguf_version(source: ModelSource) -> str | None:
    """The `gguf` package's version, for a GGUF model (it de-quantises the weights)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gguf") if source.gguf_file else None
    except PackageNotFoundError:
        return None


class HFScorer:
    """`hf:<model>` (see the module docstring)."""

    def __init__(
        self,
        reference: str,
        *,
        batch_size: int = 8,
        prefix_token: str | None = None,
        pll: PllVariant = "original",
        chunk_size: int = 64,
        device: str | None = None,
        progress: bool = False,
        cache: ScoreCache | None = None,
    ) -> None:
        self.spec = spec_for(reference)
        self.cache = cache  # texts scored before are read back, each new batch kept
        if device is not None:
            self.spec = self.spec.model_copy(
                update={"options": {**self.spec.options, "device": device}}
            )
        self.batch_size, self.prefix_token = batch_size, prefix_token
        self.pll_variant, self.chunk_size = pll, chunk_size
        self.progress = progress  # `score` shows a progress bar (`text_progress`)
        # The `local` extra first, as `generate` asks for it: without PyTorch, `hf:smollm2-135m`
        # asked for the model's package alone, and installing it led to this error next.
        require_installed()  # as is_masked_lm says it
        self.source = resolve_source(
            self.spec.model,
            gguf_file=self.spec.options.get("gguf_file"),
            allow_download=bool(self.spec.options.get("allow_download", False)),
        )
        # Read from config.json or the GGUF header when they tell (a cached rerun then imports
        # neither PyTorch nor transformers), else by transformers.
        found = masked_from_files(self.source)
        self.masked = is_masked_lm(self.source) if found is None else found
        # A config.json read by the json module is read by transformers too before a load, so
        # that one it cannot read is refused as before; a GGUF file's load reads its header.
        self._config_checked = found is None or self.source.gguf_file is not None
        suffix = f"/pll-{pll}" if self.masked else ""
        self.name = f"hf:{reference}{suffix}"
        self._causal: LocalCausalLM | None = None
        self._masked: MaskedLM | None = None
        self._pairs: Sequence[Pair] = ()

    def _load(self) -> None:
        if not self._config_checked:
            is_masked_lm(self.source)  # its error, if any (the answer is the files')
            self._config_checked = True
        if self.masked and self._masked is None:
            self._masked = MaskedLM.load(self.source, str(self.spec.options.get("device", "auto")))
        elif not self.masked and self._causal is None:
            from poemetric.providers.transformers_provider import local_model_for

            self._causal = local_model_for(self.spec)

    def score_texts(
        self,
        texts: Sequence[str],
        advance: Callable[[int], None] | None = None,
        scored: BatchScored | None = None,
    ) -> list[SequenceScore]:
        """Scores of `texts`; after each batch (or masked text), `scored(indices, scores)` and
        `advance(n)` (`LocalCausalLM.score_ids`)."""
        self._load()
        self._refuse_too_long(texts)
        step = advance or (lambda n: None)
        if self._masked is not None:
            scores: list[SequenceScore] = []
            for index, text in enumerate(texts):
                scores += self._masked.pll(
                    [text], variant=self.pll_variant, chunk_size=self.chunk_size
                )
                if scored is not None:
                    scored([index], scores[-1:])
                step(1)
            return scores
        assert self._causal is not None
        return self._causal.score_texts(
            texts,
            batch_size=self.batch_size,
            prefix_token=self.prefix_token,
            advance=step,
            scored=scored,
        )

    def _refuse_too_long(self, texts: Sequence[str]) -> None:
        """`LocalModelError` before any pass when a text does not fit the model's context
        (`context.refuse_too_long`): GPT-2 stopped with an IndexError traceback."""
        from poemetric.probes.scorers.context import model_context, refuse_too_long

        loaded = self._masked or self._causal
        assert loaded is not None
        limit = model_context(loaded.model.config, loaded.tokenizer)
        if limit is None or not texts:
            return
        if self._causal is not None:  # the prefix token, then the text's tokens
            lengths = [1 + len(ids) for ids in self._causal.encode(texts)]
        else:  # with the tokenizer's special tokens ([CLS] ... [SEP])
            lengths = [len(ids) for ids in loaded.tokenizer(list(texts)).input_ids]
        refuse_too_long(texts, lengths, limit, self._pairs)

    def cache_request(self) -> dict[str, Any] | None:
        """The part of the cache identity known without loading the model (`ScoreCache.recall`):
        the model, its weights' fingerprint, the settings asked for, the device it would run on,
        the library versions. None when the weights are not found on disk (a hub id not in the
        local cache): nothing then tells one download from another."""
        from importlib.metadata import version

        weights = weights_fingerprint(self.source)
        if weights.get("files") is None:
            return None
        asked = str(self.spec.options.get("device", "auto"))
        device = "cpu" if cpu_for_certain(asked) else pick_device(asked)
        if device.startswith("cuda"):  # another card may round differently
            torch = import_torch()
            device += f" ({torch.cuda.get_device_name(torch.device(device))})"
        request: dict[str, Any] = {
            "scorer": "hf",
            "model": self.source.describe(),
            "weights": weights,
            "trust_remote_code": bool(self.spec.options.get("trust_remote_code", False)),
            "device": device,
            "versions": [version("torch"), version("transformers"), _gguf_version(self.source)],
        }
        if self.masked:
            request["pll"] = self.pll_variant
        else:
            request["dtype_asked"] = str(self.spec.options.get("dtype", "float32"))
            request["prefix_token_asked"] = self.prefix_token
        return request

    def cache_identity(self) -> dict[str, Any]:
        """All that decides a text's score but the text and the batch size (`ScoreCache`): the
        request and what loading the model resolved (its dtype, the prefix token)."""
        torch = import_torch()
        transformers = import_transformers()
        self._load()
        loaded = self._masked or self._causal
        assert loaded is not None
        device = str(loaded.device)
        if device.startswith("cuda"):  # another card may round differently
            device += f" ({torch.cuda.get_device_name(torch.device(device))})"
        identity: dict[str, Any] = {
            "scorer": "hf",
            "model": self.source.describe(),
            "weights": weights_fingerprint(self.source),
            "trust_remote_code": bool(self.spec.options.get("trust_remote_code", False)),
            "dtype": str(loaded.model.dtype),
            "device": device,
            "versions": [torch.__version__, transformers.__version__, _gguf_version(self.source)],
            "request": self.cache_request(),
        }
        if self._causal is not None:
            prefix = self._causal.prefix_token_id(self.prefix_token)
            identity["prefix_token_id"] = prefix
            identity["prefix_token"] = self._causal.tokenizer.convert_ids_to_tokens(prefix)
        else:
            identity["pll"] = self.pll_variant
        return identity

    def score(self, pairs: Sequence[Pair]) -> list[ScoreRecord]:
        """Scores of `pairs`. Through a cache that holds every text under this request's
        identity, nothing is loaded (`score_through_cache`)."""

        def resolve() -> dict[str, Any]:
            self._load()
            return self.cache_identity() if self.cache is not None else {}

        self._pairs = pairs  # named when a text is too long for the model
        request = self.cache_request() if self.cache is not None else None
        records, identity = score_through_cache(
            pairs, self.name, self.cache, request, resolve, self.score_texts, progress=self.progress
        )
        details: dict[str, Any] = {"model": self.source.describe()}
        if not self.masked:
            if self._causal is not None:  # loaded: the identity may be that of a recall
                prefix = self._causal.prefix_token_id(self.prefix_token)
                details["prefix_token"] = self._causal.tokenizer.convert_ids_to_tokens(prefix)
            else:
                details["prefix_token"] = identity["prefix_token"]
            details["batch_size"] = self.batch_size
        return [r.model_copy(update={"details": details}) for r in records]
