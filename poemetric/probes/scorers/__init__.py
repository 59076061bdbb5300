"""Scorers of minimal pairs, chosen by a short name (`probe run --scorer NAME`).

``ngram`` / ``ngram:N``  leave-one-poem-out Kneser-Ney, order N (default 3), offline
``hf:MODEL``             transformers causal LM (log-prob sums) or masked LM (pseudo-likelihood)
``vllm:MODEL``           vLLM offline engine, prompt_logprobs
``chat:MODEL``           forced choice through a chat API (model file from generators/ or judges/)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from poemetric.probes.scorers.base import Scorer, ScoreRecord, read_scores
from poemetric.probes.scorers.cache import ScoreCache
from poemetric.runner.runner import RunnerOptions
from poemetric.store.probe_pairs import PairRequest

__all__ = ["ScoreRecord", "Scorer", "ScorerOptions", "make_scorer", "read_scores"]


@dataclass(frozen=True)
class ScorerOptions:
    batch_size: int = 8
    prefix_token: str | None = None
    pll: str = "original"
    chunk_size: int = 64
    device: str | None = None
    run_dir: Path = Path("runs/probes")
    seed: int = 0
    runner: RunnerOptions = field(default_factory=RunnerOptions)
    #: hf:, vllm: and ngram: read back the texts it holds and keep each one they score (`probe run`).
    cache: ScoreCache | None = None
    #: chat: the pairs file, options and output of `probe run`, recorded in its store with the
    #: pairs it is asked for (`merge` names a scorer that lacks some of them).
    request: PairRequest | None = None


def make_scorer(name: str, options: ScorerOptions | None = None) -> Scorer:
    """The scorer a `--scorer` value names; ValueError for an unknown one."""
    options = options or ScorerOptions()
    kind, _, argument = name.partition(":")
    if kind == "ngram":
        from poemetric.probes.scorers.ngram import NgramScorer

        if argument and not argument.isdigit():
            raise ValueError(f"ngram order must be a number, got {argument!r}")
        if argument and int(argument) < 1:  # ngram:0 ended in an IndexError traceback
            raise ValueError(f"ngram order must be at least 1, got {argument!r}")
        return NgramScorer(int(argument or 3), cache=options.cache)
    if kind not in ("hf", "vllm", "chat"):
        raise ValueError(f"unknown scorer {name!r}: use ngram, hf:MODEL, vllm:MODEL or chat:MODEL")
    if not argument:
        raise ValueError(f"--scorer {name!r} needs a model: {kind}:MODEL")
    if kind == "hf":
        from poemetric.probes.scorers.hf import HFScorer

        if options.pll not in ("original", "word_l2r"):
            raise ValueError(f"--pll must be original or word_l2r, got {options.pll!r}")
        return HFScorer(
            argument,
            batch_size=options.batch_size,
            prefix_token=options.prefix_token,
            pll=options.pll,  # type: ignore[arg-type]
            chunk_size=options.chunk_size,
            device=options.device,
            progress=options.runner.progress,
            cache=options.cache,
        )
    if kind == "vllm":
        from poemetric.probes.scorers.vllm_scorer import VLLMScorer

        return VLLMScorer(
            argument,
            prefix_token=options.prefix_token,
            progress=options.runner.progress,
            cache=options.cache,
        )
    if kind == "chat":
        from poemetric.probes.scorers.chat import ChatScorer
        from poemetric.roster import UnknownModelError, get_model
        from poemetric.suggest import did_you_mean

        # The generator file wins over a judge's. A file or provider that cannot be used: a
        # RosterError naming the file, not a traceback.
        try:
            spec = get_model(argument, "generators")
        except UnknownModelError as generator:
            try:
                spec = get_model(argument, "judges")
            except UnknownModelError as judge:
                known = dict.fromkeys([*generator.known, *judge.known])
                close = did_you_mean(argument, known)
                raise ValueError(
                    f"unknown model {argument!r} for chat:{close}; see `poemetric models`"
                ) from None
        return ChatScorer(
            spec,
            options.run_dir,
            seed=options.seed,
            options=options.runner,
            request=options.request,
        )
    raise ValueError(f"unknown scorer {name!r}: use ngram, hf:MODEL, vllm:MODEL or chat:MODEL")
