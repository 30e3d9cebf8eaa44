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
import re
import threading
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


# A text is cut into pieces at spaces, each piece keeping the spaces before it (the tokenizer has
# no pre-tokenizer: it turns spaces into "\u2581" and runs BPE over the whole text, and no merge
# crosses from a word into the next piece: vectors identical to whole-text tokenizing on 120k
# generated, labelled-set and fuzzed texts). Chats repeat a few thousand words, so a piece is
# tokenized and its token vectors summed once, then looked up: at 100k generated messages 10k
# pieces instead of 1.2M tokens (benchmarks/NOTES.md).
PIECE = re.compile(r" *[^ ]+| +")
PIECE_CACHE = 50_000  # pieces remembered per process: 1 KB each; then the cache starts again


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
        space = self.tokenizer.token_to_id("\u2581")
        if space is None:
            raise SemanticUnavailable(f"unexpected tokenizer in {tokenizer}: it has no space token")
        self._space: int = space
        self._lock = threading.Lock()
        self._forget()

    def _forget(self) -> None:
        import numpy as np

        self._pieces: dict[str, int] = {}  # piece -> its row in _sums and _counts
        self._sums = np.zeros((1024, DIM), dtype=np.float32)  # sum of the piece's token vectors
        self._counts = np.zeros(1024, dtype=np.int64)  # how many tokens it has

    def _learn(self, pieces: list[str]) -> None:
        """Tokenize pieces not seen yet and remember their token-vector sums."""
        import numpy as np

        first = len(self._pieces)
        need = first + len(pieces)
        if need > len(self._counts):
            size = max(need, min(2 * len(self._counts), PIECE_CACHE))
            self._sums = np.resize(self._sums, (size, DIM))
            self._counts = np.resize(self._counts, size)
        encoded = self.tokenizer.encode_batch(pieces, add_special_tokens=False)
        # "" is a text's one trailing space: the tokenizer adds nothing to an empty text
        lengths, sums = self._sum_tokens([e.ids if p else [self._space] for p, e in zip(pieces, encoded)])
        self._sums[first:need] = sums
        self._counts[first:need] = lengths
        for i, p in enumerate(pieces, first):
            self._pieces[p] = i

    def _sum_tokens(self, token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        import numpy as np

        lengths = np.fromiter((len(t) for t in token_ids), dtype=np.int64, count=len(token_ids))
        ids = np.fromiter((i for t in token_ids for i in t), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self.table) - 1, out=ids)
        return lengths, _segment_sums(self.table, ids, lengths)

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), 256) float32, each row unit length (all zeros for a text with no tokens)."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        cut = [t[:MAX_CHARS] for t in texts]
        unique = list(dict.fromkeys(cut))  # a text said twice ("ok", "haha") is embedded once
        with self._lock:
            if len(self._pieces) > PIECE_CACHE:
                self._forget()
            known = self._pieces
            split = [_pieces(t) for t in unique]
            new = {k: None for keys in split for k in keys if k not in known}
            if new:
                self._learn(list(new))
            rows = np.array([known[k] for keys in split for k in keys], dtype=np.int64)
            n_pieces = np.array([len(keys) for keys in split], dtype=np.int64)
            sums = _segment_sums(self._sums, rows, n_pieces)
            tokens = np.bincount(np.repeat(np.arange(len(unique)), n_pieces), weights=self._counts[rows],
                                 minlength=len(unique))
        nonempty = tokens > 0
        sums[nonempty] /= tokens[nonempty, None]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        np.divide(sums, norms, out=sums, where=norms > 0)
        if len(unique) == len(cut):
            return sums
        where = {t: i for i, t in enumerate(unique)}
        return sums[np.fromiter((where[t] for t in cut), dtype=np.int64, count=len(cut))]


def _pieces(text: str) -> list[str]:
    """The keys of a text's pieces in the piece cache: each piece with the spaces before it,
    less the one the tokenizer puts back (a text holding the tokenizer's own space character
    "\u2581" is one piece: BPE would merge it with the spaces around it)."""
    if "\u2581" in text:
        return [text]
    pieces = PIECE.findall(text)
    return [p[1:] if j else p for j, p in enumerate(pieces)]


def _segment_sums(table: np.ndarray, rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Row i of the result is the sum of table[rows[start_i : start_i + lengths[i]]]. Segments of
    one length are summed together as a (count, length, dim) block: numpy's reduceat over ragged
    segments is ~4x slower."""
    import numpy as np

    out = np.zeros((len(lengths), table.shape[1]), dtype=np.float32)
    starts = np.cumsum(lengths) - lengths
    for length in np.unique(lengths):
        if length == 0:
            continue
        which = np.nonzero(lengths == length)[0]
        out[which] = table[rows[starts[which][:, None] + np.arange(length)]].sum(axis=1)
    return out


@lru_cache(maxsize=1)
def load_embedder() -> Embedder:
    """The one shared embedder (loaded once per process); SemanticUnavailable without the extra."""
    if not available():
        raise SemanticUnavailable(f"search by meaning is not installed: {EXTRA_HINT}")
    return Embedder(_package_dir())
