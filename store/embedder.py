"""Text to vectors for search by meaning, offline: the model ships inside a registry package.

The model is WordLlama's `l2_supercat` (MIT; 256-d token vectors trained from LLaMA 2 and
phi-3 token embedding codebooks, 16 MB in the `wordllama` wheel). A text's vector is the mean
of its tokens' vectors, unit length. We read the wheel's files ourselves, with the `tokenizers`
and `safetensors` packages it depends on: its own loader looks for the tokenizer in a folder
the 0.4.0 wheel does not have and then tries the network.

    >>> e = load_embedder()                      # doctest: +SKIP
    >>> e.embed(["the vet says it is a cat flu"]).shape   # doctest: +SKIP
    (1, 256)
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from chatmem.errors import ChatmemError

if TYPE_CHECKING:
    import numpy as np

MODEL = "wordllama/l2_supercat_256"
DIM = 256
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
EXTRA_HINT = "pip install 'chatmem[semantic]'"
MAX_CHARS = 2000  # a message's first 2,000 characters carry its meaning; long pastes cost time


class SemanticUnavailable(ChatmemError, RuntimeError):
    """Search by meaning needs the optional `semantic` extra, which is not installed."""


def available() -> bool:
    """True when the semantic extra (the model package and numpy) is installed."""
    return all(importlib.util.find_spec(m) is not None
               for m in ("numpy", "tokenizers", "safetensors", "wordllama"))


def _package_dir() -> Path:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise SemanticUnavailable(f"search by meaning needs the model package: {EXTRA_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


class Embedder:
    """Unit-length float32 vectors for texts (mean of the model's token vectors)."""

    name = MODEL
    dim = DIM

    def __init__(self, package_dir: Path):
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        weights = package_dir / WEIGHTS
        tokenizer = package_dir / TOKENIZER
        for f in (weights, tokenizer):
            if not f.is_file():
                raise SemanticUnavailable(f"the model file {f} is missing; reinstall with {EXTRA_HINT}")
        tensors = load_file(str(weights))
        table = next(iter(tensors.values()))
        if table.ndim != 2 or table.shape[1] < DIM:
            raise SemanticUnavailable(f"unexpected model weights in {weights}: shape {table.shape}")
        self.table = np.ascontiguousarray(table[:, :DIM], dtype=np.float32)
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), 256) float32, each row unit length (all zeros for a text with no tokens)."""
        import numpy as np

        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        encoded = self.tokenizer.encode_batch([t[:MAX_CHARS] for t in texts], add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(encoded))
        ids = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self.table) - 1, out=ids)
        nonempty = lengths > 0
        if ids.size:
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
            sums = np.add.reduceat(self.table[ids], starts, axis=0)
            out[nonempty] = sums / lengths[nonempty, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


@lru_cache(maxsize=1)
def load_embedder() -> Embedder:
    """The one shared embedder (loaded once per process); SemanticUnavailable without the extra."""
    if not available():
        raise SemanticUnavailable(f"search by meaning is not installed: {EXTRA_HINT}")
    return Embedder(_package_dir())
