"""Recover the map from a sentence encoder's output space to its distilled static table's (issue 20).

For asymmetric search by meaning: messages by the static table (cheap, at import), the query also
by the encoder itself, put into the table's space by this map (benchmarks/NOTES.md, "the query
read by the contextual encoder"). Run outside the project's venv, in the one `distill_model.py`
needs (torch, transformers), with the encoder's folder and a table `distill_model.py` made:

    python benchmarks/query_projection.py --encoder DIR --model store/model --out OUT

It runs the encoder over every token of the table exactly as `model2vec.distill` did (the token
between the tokenizer's own start and end tokens, mean of the last hidden states; ~25 s CPU for
all-MiniLM-L6-v2, ~170 s for all-mpnet-base-v2), recomputes model2vec's PCA of those outputs
(centred, eigenvectors of the covariance, each component's sign fixed by its largest score),
applies our rotation (the seed in model.json) and the SIF weights, and checks the result against
the table row by row (it stops if any row's cosine is under 0.99). It writes OUT/query-projection.npy
(float32, (1 + encoder dims) x table dims: row 0 is minus the tokens' mean projected, then the
map): a query's vector = mean-pooled encoder output @ rows[1:] + row 0, then unit length.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill_model import rotation  # noqa: E402


def token_outputs(encoder: Path, model: Path):  # -> np.ndarray
    """The encoder's mean-pooled output for each token of the shipped table, in its row order."""
    import numpy as np
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    torch.set_num_threads(1)
    original = Tokenizer.from_file(str(encoder / "tokenizer.json"))
    vocab = json.loads((model / "tokenizer.json").read_text())["model"]["vocab"]
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    original.no_padding()
    original.no_truncation()
    cls, *_, sep = original.encode("a").ids  # the tokenizer's own start and end: [CLS] [SEP], <s> </s>
    ids = []
    for t in tokens:  # as model2vec's turn_tokens_into_ids: known tokens alone, others tokenized
        i = original.token_to_id(t)
        ids.append([cls, i, sep] if i is not None else original.encode(t).ids)
    net = AutoModel.from_pretrained(str(encoder)).eval()
    out = np.zeros((len(ids), net.config.hidden_size), dtype=np.float32)
    order = np.argsort([len(x) for x in ids], kind="stable")
    with torch.inference_mode():
        for b in range(0, len(order), 256):
            rows = order[b:b + 256]
            width = max(len(ids[i]) for i in rows)
            inp = torch.zeros((len(rows), width), dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, i in enumerate(rows):
                inp[r, :len(ids[i])] = torch.tensor(ids[i])
                mask[r, :len(ids[i])] = 1
            hidden = net(input_ids=inp, attention_mask=mask).last_hidden_state
            weights = mask.float() / mask.sum(1, keepdim=True)
            out[rows] = torch.bmm(weights[:, None, :], hidden).squeeze(1).numpy()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--encoder", required=True, type=Path, help="sentence-transformers model folder")
    ap.add_argument("--model", required=True, type=Path, help="the distilled table's folder (store/model)")
    ap.add_argument("--out", required=True, type=Path, help="folder to write query-projection.npy into")
    a = ap.parse_args()
    import numpy as np

    t0, c0 = time.perf_counter(), time.process_time()
    info = json.loads((a.model / "model.json").read_text())
    outputs = token_outputs(a.encoder, a.model).astype(np.float64)
    n = len(outputs)
    inv_rank = 1 / np.arange(2, n + 2)  # model2vec's SIF weights from Zipf rank
    sif = info["sif"] / (info["sif"] + inv_rank / inv_rank.sum())
    mean = outputs.mean(axis=0)
    centred = outputs - mean
    _, vecs = np.linalg.eigh(centred.T @ centred / (n - 1))
    vecs = vecs[:, ::-1][:, :info["dims"]]
    scores = centred @ vecs
    signs = np.sign(scores[np.argmax(np.abs(scores), axis=0), range(scores.shape[1])])
    matrix = (vecs * signs) @ rotation(info["dims"], info["rotation_seed"])
    table = np.load(a.model / "vectors.npy").astype(np.float64) * np.load(a.model / "scales.npy")[:, None]
    rebuilt = (centred @ matrix) * sif[:, None]
    cos = (rebuilt * table).sum(1) / np.linalg.norm(rebuilt, axis=1) / np.linalg.norm(table, axis=1)
    print(f"{n} tokens; cosine of the rebuilt rows with the shipped table: min {cos.min():.4f}, "
          f"median {np.median(cos):.4f}; {time.process_time() - c0:.0f} s CPU, "
          f"{time.perf_counter() - t0:.0f} s wall", file=sys.stderr)
    if cos.min() < 0.99:
        print("the map does not reproduce the shipped table: not written", file=sys.stderr)
        return 1
    a.out.mkdir(parents=True, exist_ok=True)
    np.save(a.out / "query-projection.npy", np.vstack([-mean @ matrix, matrix]).astype(np.float32))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
