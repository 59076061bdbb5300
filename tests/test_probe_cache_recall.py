"""A `probe run` rerun whose texts are all in `SCORES.jsonl.cache.sqlite` loads no model: the
cache keeps, beside the scores, the identity (dtype, prefix token...) that the same request
resolved when a run loaded the model. Any other request loads it and keys every row by what that
load resolves. `vllm:` keeps its texts through the same path (against a double of vLLM: it
cannot be installed here)."""

from __future__ import annotations

import subprocess
import sys
import time
import types
from contextlib import closing
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from test_probe_resume import rows, run
from test_probe_scorers import DoubleLLM, pair, tiny_bert  # noqa: F401 (a fixture)

from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import Pair, write_jsonl
from poemetric.probes.scorers.cache import ScoreCache, cache_path
from poemetric.probes.scorers.hf import HFScorer

#: `poemetric ARGS` with every transformers model built and every tokenizer loaded counted,
#: printed as `LOADS <models> <tokenizers>` when the process ends.
COUNTING_LOADS = """
import atexit, sys
import transformers
counts = [0, 0]
model_init = transformers.PreTrainedModel.__init__
def counted_model(self, *args, **kwargs):
    counts[0] += 1
    model_init(self, *args, **kwargs)
transformers.PreTrainedModel.__init__ = counted_model
tokenizer_load = transformers.AutoTokenizer.from_pretrained.__func__
def counted_tokenizer(cls, *args, **kwargs):
    counts[1] += 1
    return tokenizer_load(cls, *args, **kwargs)
transformers.AutoTokenizer.from_pretrained = classmethod(counted_tokenizer)
atexit.register(lambda: print("LOADS", *counts, file=sys.stderr))
from poemetric.cli import main
sys.argv = ["poemetric", *sys.argv[1:]]
main()
"""

#: `poemetric ARGS`, printing `HEAVY [...]`, those of PyTorch, transformers, pandas, matplotlib
#: and SciPy's statistics imported, at exit.
HEAVY_IMPORTS = """
import atexit, sys
names = ("torch", "transformers", "pandas", "matplotlib", "scipy.stats")
heavy = lambda: sorted(name for name in names if name in sys.modules)
atexit.register(lambda: print("HEAVY", heavy(), file=sys.stderr))
from poemetric.cli import main
sys.argv = ["poemetric", *sys.argv[1:]]
main()
"""


def poemetric_process(script: str, args: list[str], cwd: Path) -> str:
    """stdout and stderr of `script` run with `args` in a new Python process (exit status 0)."""
    process = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    return output


def texts_of(pairs: list[Pair]) -> int:
    return len({text for p in pairs for text in (p.original, p.corrupted)})


def test_a_fully_cached_masked_rerun_loads_no_model_and_other_settings_do(
    tiny_bert: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every text kept (a run stopped as it wrote the scores file): the rerun reads them back
    without loading the model and writes the uninterrupted run's scores. Another setting
    (`--pll`) is another request: it loads the model and reuses nothing."""
    import transformers

    texts = ["a lamp in the harbour", "the gulls are asleep", "under a slate roof"]
    pairs = [pair(n, text, text.replace(" ", " old ", 1)) for n, text in enumerate(texts)]
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    args = ["pairs.jsonl", "--scorer", f"hf:{tiny_bert}", "--device", "cpu"]
    run(*args, "-o", "whole.jsonl")
    kept = cache_path(tmp_path / "s.jsonl")
    with closing(ScoreCache(kept)) as cache:
        HFScorer(str(tiny_bert), device="cpu", cache=cache).score(pairs)
    assert rows(kept) == texts_of(pairs)
    left = kept.read_bytes()
    loads: list[str] = []
    load = transformers.AutoModelForMaskedLM.from_pretrained.__func__

    def counted(cls: Any, *args: Any, **kwargs: Any) -> Any:
        loads.append(str(args[0]))
        return load(cls, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForMaskedLM, "from_pretrained", classmethod(counted))
    resumed = run(*args, "-o", "s.jsonl")
    assert f"reused {texts_of(pairs)} scored texts from s.jsonl.cache.sqlite" in resumed.output
    assert loads == [] and not kept.exists()
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    kept.write_bytes(left)
    other = " ".join(run(*args, "--pll", "word_l2r", "-o", "s.jsonl").output.split())
    assert loads == [str(tiny_bert)] and "scored texts from" not in other
    assert f"{texts_of(pairs)} texts scored by another scorer, model or setting" in other


def test_a_fully_cached_rerun_imports_neither_torch_transformers_nor_pandas(
    tiny_bert: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `probe run` process over a cache that holds every text reads the model's kind from
    config.json and the device asked for: it imports neither PyTorch nor transformers (seconds
    on 2 cores) and writes the uninterrupted run's file. Before, both were imported: to read
    the configuration with AutoConfig and to pick the device. Nor does it import pandas,
    matplotlib or `scipy.stats` (half the rerun's CPU time: 1.4-1.6 s before, 0.55-0.75 s
    after): the accuracy tables print from plain rows, and `poemetric.analysis` no longer
    imports the figures with any submodule."""
    pairs = [pair(0, "there was an old man", "there was an man")]
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    args = ["pairs.jsonl", "--scorer", f"hf:{tiny_bert}", "--device", "cpu"]
    run(*args, "-o", "whole.jsonl")
    with closing(ScoreCache(cache_path(tmp_path / "s.jsonl"))) as cache:
        HFScorer(str(tiny_bert), device="cpu", cache=cache).score(pairs)
    rerun = ["probe", "run", *args, "-o", "s.jsonl", "--no-progress"]
    output = poemetric_process(HEAVY_IMPORTS, rerun, tmp_path)
    assert "HEAVY []" in output, output
    assert f"reused {texts_of(pairs)} scored texts" in output
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()


def test_a_recalled_identity_is_used_only_when_every_text_is_kept(
    tiny_bert: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    """A cache that holds some texts of a request loads the model for the others, and binds the
    identity that load resolves (the same one: its rows are read back)."""
    pairs = [pair(0, "there was an old man", "there was an man")]
    cache = ScoreCache(tmp_path / "c.sqlite")
    with closing(cache):
        HFScorer(str(tiny_bert), device="cpu", cache=cache).score(pairs)
    more = [*pairs, pair(1, "who said it is just", "who said it just")]
    again = ScoreCache(tmp_path / "c.sqlite")
    with closing(again):
        scorer = HFScorer(str(tiny_bert), device="cpu", cache=again)
        records = scorer.score(more)
    assert scorer._masked is not None and again.reused == 2 and again.stored == 2
    assert records == HFScorer(str(tiny_bert), device="cpu").score(more)


@pytest.mark.slow
def test_a_fully_cached_smollm2_rerun_loads_no_weights_and_writes_the_same_scores(
    smollm2: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The packaged SmolLM2 (GGUF: reading its tokenizer alone takes seconds): a real `poemetric
    probe run` process over a cache that holds every text builds no model and loads no
    tokenizer, says it reused them all and writes the uninterrupted run's file to the byte.
    Before, it built two models and loaded the tokenizer once (`LOADS 2 1`). Nor does it import
    PyTorch or transformers, where the device is known without them."""
    lear = load_dataset("lear-limericks").poems[:2]
    sources = [SourcePoem(p.poem_id, p.content, p.rhyme_pattern) for p in lear]
    pairs = build_pairs(sources, ["delete_1_nonrhyming", "rhyme_line_swap"], seed=0)
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    args = ["pairs.jsonl", "--scorer", "hf:smollm2-135m", "--batch-size", "2"]
    run(*args, "-o", "whole.jsonl")  # the model is loaded once in this process (`smollm2`)
    with closing(ScoreCache(cache_path(tmp_path / "s.jsonl"))) as cache:
        HFScorer("smollm2-135m", batch_size=2, cache=cache).score(pairs)
    kept = cache_path(tmp_path / "s.jsonl").read_bytes()
    started = time.monotonic()
    output = poemetric_process(COUNTING_LOADS, ["probe", "run", *args, "-o", "s.jsonl"], tmp_path)
    took = time.monotonic() - started
    assert "LOADS 0 0" in output, output
    assert f"reused {texts_of(pairs)} scored texts from s.jsonl.cache.sqlite" in output
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    # Nor are PyTorch and transformers imported (the GGUF header says `llama`), where the
    # device is known without PyTorch (auto with its CPU build); a CUDA build names the GPU.
    cache_path(tmp_path / "s.jsonl").write_bytes(kept)
    (tmp_path / "s.jsonl").unlink()
    output = poemetric_process(HEAVY_IMPORTS, ["probe", "run", *args, "-o", "s.jsonl"], tmp_path)
    if version("torch").endswith("+cpu"):  # `cpu_for_certain("auto")` in a new process
        assert "HEAVY []" in output, output
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    print(f"fully cached rerun: {took:.1f} s")


def test_a_stopped_vllm_run_keeps_its_chunks_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`vllm:` kept nothing: a stop lost every text scored. Each engine call's chunk is kept
    now, and the rerun sends only the others. Against a double of vLLM's documented interface
    (`test_probe_scorers.DoubleLLM`): vLLM itself cannot be installed here."""
    from poemetric.probes.scorers import vllm_scorer

    class StoppedAtTheSecondChunk(DoubleLLM):
        def generate(self, prompts: list[Any], params: Any, use_tqdm: bool = True) -> list[Any]:
            if len(self.calls) == 1 and stop:
                raise KeyboardInterrupt
            return super().generate(prompts, params, use_tqdm)

    module = types.ModuleType("vllm")
    module.LLM = StoppedAtTheSecondChunk  # type: ignore[attr-defined]
    module.SamplingParams = lambda **kw: types.SimpleNamespace(**kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    words = ["an", "old", "man", "with", "a", "beard", "who", "said"]
    pairs = [
        pair(n, " ".join(words[: 1 + n % 8] * (1 + n // 8)), f"{'x' * (n + 3)} man")
        for n in range(150)
    ]
    total = texts_of(pairs)
    assert total > vllm_scorer.CHUNK
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    scorer = ["pairs.jsonl", "--scorer", "vllm:/models/tiny"]
    from typer.testing import CliRunner

    from poemetric.cli import app

    stop = True
    stopped = CliRunner().invoke(app, ["probe", "run", *scorer, "-o", "s.jsonl", "--no-progress"])
    assert stopped.exit_code == 130, stopped.output
    kept = cache_path(tmp_path / "s.jsonl")
    assert rows(kept) == vllm_scorer.CHUNK
    assert f"{vllm_scorer.CHUNK} scored texts are kept" in " ".join(stopped.output.split())
    stop = False
    resumed = run(*scorer, "-o", "s.jsonl")
    assert f"reused {vllm_scorer.CHUNK} scored texts" in resumed.output and not kept.exists()
    engine = StoppedAtTheSecondChunk.instances[-1]
    assert [len(prompts) for prompts, _ in engine.calls] == [total - vllm_scorer.CHUNK]
    run(*scorer, "-o", "whole.jsonl")
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
