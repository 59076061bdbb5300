"""Whether a device named for a local model (`--device`, a model file's `device:`) can be used,
said before the model is loaded: PyTorch itself fails late, with `AssertionError: Torch not
compiled with CUDA enabled` or a list of every device type it was built to know."""

from __future__ import annotations

from typing import Any

from poemetric.text.plural import counted

KNOWN = "auto, cpu, cuda, cuda:N or mps"


def device_problem(torch: Any, device: str) -> str | None:
    """Why `device` cannot run a model with this `torch` module, or None when it can."""
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError, TypeError):
        return f"device {device!r} is not a device name PyTorch knows; use {KNOWN}"
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            why = (
                f"this PyTorch ({torch.__version__}) was built without CUDA"
                if torch.version.cuda is None
                else "no CUDA GPU is visible to this process"
            )
            return (
                f"device {device!r}: {why}; use cpu (or auto, which picks a GPU when there is one)"
            )
        count = int(torch.cuda.device_count())
        if parsed.index is not None and parsed.index >= count:
            return f"device {device!r}: {counted(count, 'CUDA GPU')} visible, cuda:0 to cuda:{count - 1}"
    elif parsed.type == "mps" and not torch.backends.mps.is_available():
        return f"device {device!r}: Apple's MPS is not available here; use cpu or auto"
    elif parsed.type not in ("cpu", "cuda", "mps"):
        return f"device {device!r}: POEMetric runs local models on {KNOWN}"
    return None
