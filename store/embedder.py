"""Text to vectors for search by meaning, offline: the model ships inside chatmem itself.

The model is a static (per-token) table distilled from the sentence encoder all-MiniLM-L6-v2
(Apache-2.0) by Model2Vec's method: every token of the encoder's WordPiece vocabulary passed
through the encoder alone, mean-pooled, reduced to 256 dimensions by PCA and weighted by a SIF
weight from the token's frequency rank, then turned by a fixed random rotation (cosines unchanged;
the sign bits the vector scan filters on carry equal shares). `benchmarks/distill_model.py` makes it; the files are
package data in `store/model/` (int8 table with one scale per row, 7.6 MB; the encoder's
tokenizer; its licence and notice). A text's vector is the mean of its tokens' vectors (unknown
tokens left out), unit length. The semantic extra adds only `tokenizers` and numpy to read them.

    >>> e = load_embedder()                      # doctest: +SKIP
    >>> e.embed(["the vet says it is a cat flu"]).shape   # doctest: +SKIP
    (1, 256)
"""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from chatmem.errors import ChatmemError

if TYPE_CHECKING:
    import numpy as np

MODEL_DIR = Path(__file__).resolve().parent / "model"
DIM = 256
TABLE, SCALES, TOKENIZER, INFO = "vectors.npy", "scales.npy", "tokenizer.json", "model.json"
EXTRA_HINT = "pip install 'chatmem[semantic]'"
MAX_CHARS = 2000  # a message's first 2,000 characters carry its meaning; long pastes cost time


class SemanticUnavailable(ChatmemError, RuntimeError):
    """Search by meaning needs the optional `semantic` extra, which is not installed."""


def available() -> bool:
    """True when the semantic extra (the tokenizer library and numpy) is installed."""
    return all(importlib.util.find_spec(m) is not None for m in ("numpy", "tokenizers"))


# A text is cut into words at the characters the tokenizer's normaliser turns into a space (BERT
# splits words there and never joins across them; control characters such as \x0b or \x1c it
# deletes, so they do not cut). Chats repeat a few thousand words, so a word is tokenized and its
# token vectors summed once, then looked up (benchmarks/NOTES.md).
PIECE = re.compile("[^ \t\n\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
PIECE_CACHE = 50_000  # pieces remembered per process: 1 KB each; then the cache starts again


@lru_cache(maxsize=4)
def model_name(folder: Path = MODEL_DIR) -> str:
    """The shipped model's name, as the vectors' state records it (a new model: a rebuild)."""
    try:
        info = json.loads((folder / INFO).read_text())
        return (f"{info['encoder']}-static-{info['dims']}x{info['tokens']}-sif{info['sif']}"
                f"-rot{info['rotation_seed']}")
    except (OSError, ValueError, KeyError) as e:
        raise SemanticUnavailable(f"the model description {folder / INFO} is unreadable ({e}); "
                                  "reinstall chatmem") from e


class Embedder:
    """Unit-length float32 vectors for texts (mean of the model's token vectors)."""

    dim = DIM

    def __init__(self, folder: Path = MODEL_DIR):
        import numpy as np
        from tokenizers import Tokenizer

        files = [folder / f for f in (TABLE, SCALES, TOKENIZER, INFO)]
        for f in files:
            if not f.is_file():
                raise SemanticUnavailable(f"the model file {f} is missing; reinstall chatmem")
        table = np.load(files[0])
        scales = np.load(files[1])
        if table.ndim != 2 or table.shape[1] != DIM or scales.shape != (len(table),):
            raise SemanticUnavailable(f"unexpected model table in {folder}: shape {table.shape}")
        # kept as int8 with a float32 scale a row (7.8 MB); the float32 rows of the tokens a new
        # piece has are made as they are needed (the same products): the whole float32 table was
        # 31 MB more (and its 30 MB of fresh pages cost every catch-up ~0.05 s CPU)
        self.table = table.astype(np.int8, copy=False)
        self.scales = scales.astype(np.float32)
        self.name: str = model_name(folder)
        self.tokenizer = Tokenizer.from_file(str(files[2]))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self._unk = self.tokenizer.token_to_id("[UNK]")
        self._lock = threading.Lock()
        self._forget()

    def _forget(self) -> None:
        import numpy as np

        self._pieces: dict[str, int] = {}  # piece -> its row in _sums and _counts
        # made at their full size once (np.empty: a row takes memory only when it is written);
        # growing them by copies held the old rows and the new beside each other
        self._sums = np.empty((PIECE_CACHE, DIM), dtype=np.float32)  # sum of the piece's token vectors
        self._counts = np.empty(PIECE_CACHE, dtype=np.int64)  # how many tokens it has

    def _learn(self, pieces: list[str]) -> None:
        """Tokenize pieces not seen yet and remember their token-vector sums."""
        import numpy as np

        first = len(self._pieces)
        need = first + len(pieces)
        if need > len(self._counts):  # one batch of more new pieces than the cache holds
            self._sums = np.concatenate([self._sums[:first], np.empty((need - first, DIM), np.float32)])
            self._counts = np.concatenate([self._counts[:first], np.empty(need - first, np.int64)])
        lengths, sums = self._sum_tokens(self.token_ids(pieces))
        self._sums[first:need] = sums
        self._counts[first:need] = lengths
        for i, p in enumerate(pieces, first):
            self._pieces[p] = i

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """The model's token ids of each text, unknown tokens left out."""
        encoded = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        return [[i for i in e.ids if i != self._unk] for e in encoded]

    def _sum_tokens(self, token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        import numpy as np

        lengths = np.fromiter((len(t) for t in token_ids), dtype=np.int64, count=len(token_ids))
        ids = np.fromiter((i for t in token_ids for i in t), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self.table) - 1, out=ids)
        used, rows = np.unique(ids, return_inverse=True)
        vectors = self.table[used].astype(np.float32) * self.scales[used, None]
        return lengths, _segment_sums(vectors, rows.reshape(-1), lengths)

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), 256) float32, each row unit length (all zeros for a text with no tokens)."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        cut = [t[:MAX_CHARS] for t in texts]
        unique = list(dict.fromkeys(cut))  # a text said twice ("ok", "haha") is embedded once
        with self._lock:
            split = [PIECE.findall(t) for t in unique]
            new = {k: None for keys in split for k in keys if k not in self._pieces}
            if len(self._pieces) + len(new) > PIECE_CACHE:  # full: the cache starts again
                self._forget()
                new = {k: None for keys in split for k in keys}
            known = self._pieces
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
    return Embedder()
