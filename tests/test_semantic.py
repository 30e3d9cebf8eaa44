"""Search by meaning (issue 20): vectors built by imports, kept in step with the messages, the
semantic and hybrid modes of search_memory and the CLI, filters and seats on the semantic leg,
and a clear message without the extra. Tiny stores only: quality is measured by
benchmarks/eval_queries.py, not asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatmem.errors import ChatmemError
from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.store import embedder as emb
from chatmem.tools import semantic
from chatmem.tools.search import search_memory

pytest.importorskip("tokenizers", reason="the semantic extra is not installed")
np = pytest.importorskip("numpy")

CHATS = {
    ("signal", "Lena Vogel"): [
        ("Lena Vogel", "2024-02-02T17:42:00+01:00", "The vet says Miso has a mild cat flu, antibiotics for ten days"),
        ("me", "2024-02-02T17:45:00+01:00", "Glad it is nothing worse, tuna works wonders for pills"),
        ("Lena Vogel", "2024-02-09T12:33:00+01:00", "We get the keys to the new flat on the 3rd of March"),
        ("Lena Vogel", "2024-03-16T14:02:00+01:00", "Bought the cast iron teapot for Tom, hidden in the wardrobe"),
    ],
    ("whatsapp", "Climbing Crew"): [
        ("Marco Rossi", "2024-02-05T12:30:00+01:00", "My rope is getting fuzzy, I bought a new 70m rope on sale"),
        ("Ben Okafor", "2024-01-23T18:15:00+01:00", "My shoulder is sore, the physio says rest for two weeks"),
        ("me", "2024-05-11T18:40:00+02:00", "I twisted my ankle on the approach path, sitting out tomorrow"),
        ("Ben Okafor", "2024-06-03T18:00:00+02:00", "Shoulder sore again after the trip, physio tomorrow"),
    ],
    ("imessage", "Mom"): [
        ("Mom", "2024-04-08T17:15:00+02:00", "Biscuit ate a whole chocolate bar, we called the animal emergency line"),
        ("Mom", "2024-03-25T08:00:00+01:00", "The tomatoes I planted from your seeds are sprouting on the windowsill"),
    ],
}


def write_chats(folder: Path, chats=CHATS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for (platform, chat), rows in chats.items():
        lines = [json.dumps({"type": "message", "platform": platform, "chat": chat, "sender": s,
                             "timestamp": ts, "text": text, "guid": f"{chat}-{i}",
                             "group": chat == "Climbing Crew"})
                 for i, (s, ts, text) in enumerate(rows)]
        (folder / f"{platform}-{chat.replace(' ', '_')}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def sem_store(tmp_path, config) -> Store:
    store = Store.open(tmp_path / "home", config)
    store.import_sources(find_sources(write_chats(tmp_path / "chats")))
    yield store
    store.close()


def texts(result: dict) -> list[str]:
    return [r["content"].split(": ", 1)[1] for r in result["results"]]


def test_an_import_embeds_every_message(sem_store):
    assert sem_store.vectors.count() == sum(len(v) for v in CHATS.values())
    # 256 int8 dimensions per message, plus its id and filter keys: under 300 bytes each
    assert sem_store.vectors.nbytes() / sem_store.vectors.count() < 300


def test_our_vectors_are_the_mean_of_the_models_tokens():
    """The word cache gives what tokenizing the whole text gives: the mean of the shipped table's
    rows for the text's WordPiece tokens (unknown ones left out), unit length."""
    e = emb.load_embedder()
    sample = ["the vet says it is a cat flu", "Wir bekommen die Schlüssel am 3. März", "🙂 ok",
              # the cache cuts texts at spaces: runs of spaces, leading and trailing ones, other
              # white space, characters BERT deletes and punctuation must not change a vector
              "  two  spaces   and three ", "Hi ", " ", "tab\there\nnew line", "a\u00a0b\u3000c",
              "x\x0by\x1cz", "don't,stop!now", "Café  CAFÉ", "東京タワー",
              "the vet says it is a cat flu", "ok", "ok"]
    table = np.load(emb.MODEL_DIR / emb.TABLE).astype(np.float32)
    table *= np.load(emb.MODEL_DIR / emb.SCALES)[:, None]
    expected = []
    for ids in e.token_ids(sample):  # the tokenizer over each whole text
        v = table[ids].mean(axis=0) if ids else np.zeros(emb.DIM, np.float32)
        expected.append(v / (np.linalg.norm(v) or 1.0))
    assert np.allclose(e.embed(sample), np.array(expected), atol=1e-5)
    assert np.allclose(e.embed(sample[::-1]), np.array(expected[::-1]), atol=1e-5)  # words known by now
    assert e.embed([""]).tolist() == [[0.0] * emb.DIM]
    assert e.token_ids(["the vet"]) == [[e.tokenizer.token_to_id("the"), e.tokenizer.token_to_id("vet")]]


def test_a_full_word_cache_starts_again_and_the_vectors_stay_the_same(monkeypatch):
    """The word cache holds a bounded number of words: a batch whose new words do not fit starts
    it again (also one with more words than it holds), and the vectors are those of an embedder
    that remembers every word."""
    texts = ["the vet says it is a cat flu", "we get the keys to the new flat on the 3rd of March",
             "my rope is getting fuzzy, I bought a new 70m rope on sale", "ok", "ok",
             "the tomatoes I planted from your seeds are sprouting on the windowsill",
             "Biscuit ate a whole chocolate bar, we called the animal emergency line", ""]
    expected = emb.Embedder().embed(texts)
    monkeypatch.setattr(emb, "PIECE_CACHE", 9)
    small = emb.Embedder()
    for size in (1, 2, 3, 8):
        got = np.concatenate([small.embed(texts[i:i + size]) for i in range(0, len(texts), size)])
        assert got.tobytes() == expected.tobytes()


def test_the_model_ships_with_its_licence_and_notice():
    """The table is derived from an Apache-2.0 encoder: its licence and what was changed go along."""
    files = {p.name for p in emb.MODEL_DIR.iterdir()}
    assert {"LICENSE", "NOTICE.md", emb.TABLE, emb.SCALES, emb.TOKENIZER, emb.INFO} <= files
    assert "Apache License" in (emb.MODEL_DIR / "LICENSE").read_text()
    notice = (emb.MODEL_DIR / "NOTICE.md").read_text()
    assert "all-MiniLM-L6-v2" in notice and "distill_model.py" in notice
    assert emb.model_name().startswith(json.loads((emb.MODEL_DIR / emb.INFO).read_text())["encoder"])


def test_semantic_mode_finds_other_words_keyword_does_not(sem_store, config):
    seat = config.seat(None)
    query = "our dog swallowed some candy"
    assert search_memory(sem_store, seat, query, mode="keyword")["total"] == 0
    r = search_memory(sem_store, seat, query, mode="semantic", limit=3)
    assert r["mode"] == "semantic" and "matching" not in r  # no keyword search ran
    assert "Biscuit ate a whole chocolate bar, we called the animal emergency line" in texts(r)
    assert all(hit["legs"] == ["semantic"] for hit in r["results"])
    assert r["legs"] == {"semantic": len(r["results"])}  # the nearest, none below the floor


def test_hybrid_is_the_default_and_says_which_leg_found_what(sem_store, config, monkeypatch):
    monkeypatch.delenv("CHATMEM_SEARCH_MODE")
    r = search_memory(sem_store, config.seat(None), "rope", limit=5)
    assert r["mode"] == "hybrid" and r["matching"] == "all words"  # the keyword leg's matching
    top = r["results"][0]
    assert "rope" in top["content"] and top["legs"] == ["keyword", "semantic"]
    assert r["legs"]["keyword"] == 1
    assert r["legs"]["semantic"] == sum("semantic" in h["legs"] for h in r["results"]) >= 1
    assert r["total"] >= 1


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_total_is_exactly_what_paging_reaches(sem_store, config, mode, monkeypatch):
    """Regression: hybrid said total 10 and has_more true, and the next page had more."""
    monkeypatch.setattr(semantic, "SIMILARITY_FLOOR", -1.0)  # every message, for pages to turn
    seat = config.seat(None)
    seen: list[str] = []
    offset, total = 0, None
    while True:
        r = search_memory(sem_store, seat, "rope", mode=mode, limit=3, offset=offset)
        total = r["total"] if total is None else total
        assert r["total"] == total
        seen += [x["id"] for x in r["results"]]
        if not r["has_more"]:
            break
        assert r["results"], "has_more promised a page that is empty"
        offset += 3
    assert len(seen) == len(set(seen)) == total > 3


def test_operators_in_the_query_are_obeyed_in_hybrid_mode(sem_store, config, monkeypatch):
    """Regression: hybrid (the default with the extra) embedded `rope in:Mom` as words and
    returned the nearest messages of every chat; `in:nonesuch` returned results too."""
    monkeypatch.delenv("CHATMEM_SEARCH_MODE", raising=False)
    owner = config.seat(None)
    r = search_memory(sem_store, owner, "sore in:Climbing from:Ben")
    assert r["mode"] == "keyword"  # operators are keyword search's language, and it answered
    assert texts(r) and {h["sender"] for h in r["results"]} == {"Ben Okafor"}
    assert {h["chat"] for h in r["results"]} == {"Climbing Crew"}
    assert r["total"] == len(r["results"]) == 2
    r = search_memory(sem_store, owner, "chocolate platform:imessage", mode="hybrid")
    assert {h["chat"] for h in r["results"]} == {"Mom"} and r["total"] == 1
    with pytest.raises(ChatmemError, match="nonesuch"):
        search_memory(sem_store, owner, "rope in:nonesuch")
    with pytest.raises(ChatmemError, match="operators .* not semantic"):
        search_memory(sem_store, owner, "rope in:Climbing", mode="semantic")
    # without operators, hybrid stays hybrid
    assert search_memory(sem_store, owner, "rope")["mode"] == "hybrid"


def test_filters_and_seats_apply_to_the_semantic_leg(sem_store, config, monkeypatch):
    monkeypatch.setattr(semantic, "SIMILARITY_FLOOR", -1.0)  # only the filters decide here
    owner = config.seat(None)
    r = search_memory(sem_store, owner, "injury", mode="semantic", sender="Ben Okafor", limit=10)
    assert [h["sender"] for h in r["results"]] == ["Ben Okafor", "Ben Okafor"]
    r = search_memory(sem_store, owner, "injury", mode="semantic", sender="Ben Okafor",
                      since="2024-05-01", limit=10)
    assert texts(r) == ["Shoulder sore again after the trip, physio tomorrow"]
    r = search_memory(sem_store, owner, "pets", mode="semantic", until="2024-02-02", limit=10)
    assert {h["date"][:10] for h in r["results"]} == {"2024-01-23", "2024-02-02"}
    r = search_memory(sem_store, owner, "pets", mode="hybrid", platform="imessage", limit=10)
    assert {h["chat"] for h in r["results"]} == {"Mom"}
    assistant = config.seat("assistant")  # whatsapp, signal and telegram only
    r = search_memory(sem_store, assistant, "the dog ate chocolate", mode="semantic", limit=50)
    assert r["results"] and "imessage" not in {h["platform"] for h in r["results"]}


def test_edited_and_removed_messages_leave_no_old_vector(sem_store, config, tmp_path):
    seat = config.seat(None)
    chats = {k: list(v) for k, v in CHATS.items()}
    mom = chats[("imessage", "Mom")]
    mom[1] = (mom[1][0], mom[1][1], "The roses by the fence finally bloomed, bright red")
    sem_store.import_sources(find_sources(write_chats(tmp_path / "chats", chats)))
    assert sem_store.vectors.count() == sum(len(v) for v in CHATS.values())
    r = search_memory(sem_store, seat, "flowers in the garden", mode="semantic", limit=1)
    assert texts(r) == ["The roses by the fence finally bloomed, bright red"]
    gone = r["results"][0]["id"]
    assert sem_store.vectors.remove([gone]) == 1
    r = search_memory(sem_store, seat, "flowers in the garden", mode="semantic", limit=50)
    assert gone not in [h["id"] for h in r["results"]]


def test_reindex_rebuilds_the_vectors(sem_store, config):
    n = sem_store.vectors.count()
    sem_store.vectors.clear()
    assert search_memory(sem_store, config.seat(None), "rope", mode="semantic")["results"] == []
    sem_store.reindex()
    assert sem_store.vectors.count() == n
    assert search_memory(sem_store, config.seat(None), "rope", mode="semantic")["results"]


def test_vectors_of_an_older_model_are_made_again(sem_store, config):
    """A store whose vectors an older chatmem made (WordLlama's, format 1) is not searched with
    them: the first search by meaning, or the next import, embeds every message again."""
    from chatmem.store import vectors

    state_file = sem_store.vectors.folder / vectors.STATE
    state = json.loads(state_file.read_text())
    state.update(model="wordllama/l2_supercat_256", format=1)
    state_file.write_text(json.dumps(state))
    assert not sem_store.vectors.made_by(emb.model_name())
    r = search_memory(sem_store, config.seat(None), "our dog swallowed some candy", mode="semantic")
    assert "Biscuit ate a whole chocolate bar, we called the animal emergency line" in texts(r)
    state = json.loads(state_file.read_text())
    assert state["model"] == emb.model_name() and state["format"] == vectors.FORMAT
    assert sem_store.vectors.count() == sum(len(v) for v in CHATS.values())


def test_cli_search_mode(cli, tmp_path, monkeypatch):
    cli("import", str(write_chats(tmp_path / "chats")))
    out = cli.json("search", "--mode", "hybrid", "rope")
    assert out["mode"] == "hybrid" and out["results"][0]["legs"] == ["keyword", "semantic"]
    assert "hybrid" in cli("search", "--help").stdout


def test_without_the_extra_keyword_only_and_a_clear_message(sem_store, config, monkeypatch, cli, tmp_path):
    monkeypatch.setattr(emb, "available", lambda: False)
    monkeypatch.delenv("CHATMEM_SEARCH_MODE")
    r = search_memory(sem_store, config.seat(None), "rope")
    assert r["mode"] == "keyword" and r["total"] == 1
    with pytest.raises(ChatmemError, match=r"pip install 'chatmem\[semantic\]'"):
        search_memory(sem_store, config.seat(None), "rope", mode="semantic")
    res = cli("search", "--mode", "semantic", "rope", expect=None)
    assert res.exit_code != 0 and "pip install 'chatmem[semantic]'" in res.output
    assert "Traceback" not in res.output


def test_forgetting_a_chat_removes_its_vectors(sem_store, config):
    seat = config.seat(None)
    mom = next(c["source"] for c in sem_store_chats(sem_store) if c["chat"] == "Mom")
    before = sem_store.vectors.count()
    sem_store.forget(chat_id=mom)
    assert sem_store.vectors.count() == before - len(CHATS[("imessage", "Mom")])
    r = search_memory(sem_store, seat, "the dog ate chocolate", mode="semantic", limit=50)
    assert "Mom" not in {h["chat"] for h in r["results"]}


def sem_store_chats(store):
    from chatmem.tools.chats import list_chats

    return list_chats(store, store.config.seat(None))["chats"]


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_a_word_nothing_is_about_returns_nothing(sem_store, config, mode):
    # no message is about dentists: no unrelated nearest neighbours, and the total says so
    seat = config.seat(None)
    r = search_memory(sem_store, seat, "dentist", mode=mode, limit=10)
    assert r["results"] == [] and r["total"] == 0 and r["has_more"] is False
    assert r["legs"].get("semantic") == 0
    # the floor keeps what is near in meaning: the vet message for an "animal doctor"
    r = search_memory(sem_store, seat, "animal doctor", mode=mode, limit=10)
    assert "The vet says Miso has a mild cat flu, antibiotics for ten days" in texts(r)
    assert r["total"] < sum(len(v) for v in CHATS.values())  # not every message in the store


@pytest.mark.parametrize("filters", [{}, {"chats": ["s_a"]}, {"chats": ["s_a", "s_b", "s_c"]},
                                     {"people": ["p_1"], "since_day": 100}, {"chats": ["s_none"]}])
def test_the_vector_scan_finds_the_exact_nearest_the_filters_allow(tmp_path, filters):
    """The scan's shortlist (Hamming distance on sign bits, cut at the m-th distance) re-scored
    by cosine gives the true nearest rows when the shortlist covers the rows the filters keep,
    whether the filters keep many rows (masked scan) or few (only theirs scanned)."""
    from datetime import datetime, timedelta, timezone

    from chatmem.store.vectors import VectorRow, VectorStore

    rng = np.random.default_rng(7)
    n = 600
    vecs = rng.normal(size=(n, emb.DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    chat = [("s_a" if i >= 580 else "s_b" if i < 40 else "s_c" if i < 300 else "s_d") for i in range(n)]
    person = [f"p_{i % 4}" for i in range(n)]
    vs = VectorStore(tmp_path / "vectors")
    vs.add((VectorRow(f"m_{i:04d}", "", chat[i], person[i], i * 86400) for i in range(n)), 1,
           lambda batch: vecs[:len(batch)], "test")
    since = filters.get("since_day")
    keep = [i for i in range(n) if ("chats" not in filters or chat[i] in filters["chats"])
            and ("people" not in filters or person[i] in filters["people"]) and (since is None or i >= since)]
    query = vecs[583] + 0.5 * vecs[400]
    query /= np.linalg.norm(query)
    q8 = np.clip(np.rint(vecs * 127), -127, 127)  # stored as int8: the cosine the scan reports
    cos = (q8 @ query) / np.linalg.norm(q8, axis=1)
    expected = sorted(keep, key=lambda i: -cos[i])[:10]
    kwargs = {k: v for k, v in filters.items() if k != "since_day"}
    if since is not None:
        kwargs["since"] = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(days=since)
    got = vs.search(query, 10, shortlist=n, **kwargs)
    assert [i for i, _ in got] == [f"m_{i:04d}" for i in expected]
    assert np.allclose([s for _, s in got], cos[expected], atol=1e-5)


def test_the_finer_step_orders_by_the_ternary_codes(tmp_path):
    """The step between sign bits and int8 scores each row by the dot product of its ternary code
    (sign x (1 + STRONG) where |x| > MAGNITUDE, sign x 1 elsewhere) with the query's: the
    popcounts give the same number as the codes multiplied out."""
    from chatmem.store import vectors as vmod

    rng = np.random.default_rng(11)
    vecs = rng.normal(size=(300, emb.DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    query = rng.normal(size=emb.DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    q8, r8 = vmod.quantize(query[None, :]), vmod.quantize(vecs)

    def code(x):
        return np.where(x >= 0, 1.0, -1.0) * np.where(np.abs(x.astype(int)) > vmod.MAGNITUDE, 1 + vmod.STRONG, 1.0)

    expected = code(r8) @ code(q8)[0]
    data = type("Loaded", (), {"bits": vmod.sign_bits(r8), "mags": vmod.magnitude_bits(r8)})()
    qbits = vmod.sign_bits(q8)[:, 0]
    rows = np.arange(300)
    got = vmod._finer(data, rows, vmod._hamming(data.bits, qbits), qbits, vmod.magnitude_bits(q8)[:, 0], 300)
    assert list(got) == sorted(rows, key=lambda i: (-expected[i], i))


def test_a_short_shortlist_keeps_more_of_the_nearest_with_the_finer_step(tmp_path, monkeypatch):
    """With a shortlist of 100 among 3,000 rows graded in nearness to the query (eight such
    stores), ordering the sign-bit candidates by their ternary codes before the int8 step returns
    more of the exact 10 nearest (by the stored vectors' cosine) than cutting by sign bits alone."""
    from chatmem.store import vectors as vmod

    n, middle = 3000, vmod.MIDDLE
    found = {"finer": 0, "signs only": 0}
    for seed in range(8):
        rng = np.random.default_rng(seed)
        query = rng.normal(size=emb.DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        noise = rng.normal(size=(n, emb.DIM)).astype(np.float32)
        noise -= np.outer(noise @ query, query)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        a = (0.6 * rng.uniform(0.0, 1.0, size=n) ** 2).astype(np.float32)
        vecs = a[:, None] * query + np.sqrt(1 - a * a)[:, None] * noise
        stored = vmod.quantize(vecs).astype(np.float32)
        cos = stored @ query / np.linalg.norm(stored, axis=1)
        best = {f"m_{i:04d}" for i in np.argsort(-cos)[:10]}
        vs = vmod.VectorStore(tmp_path / f"vectors-{seed}")
        vs.add((vmod.VectorRow(f"m_{i:04d}", str(i), "s_a", None, i) for i in range(n)), 1,
               lambda batch, vecs=vecs: vecs[[int(t) for t in batch]], "test")
        for name, size in (("finer", middle), ("signs only", 0)):
            monkeypatch.setattr(vmod, "MIDDLE", size)
            found[name] += len(best & {i for i, _ in vs.search(query, 10, shortlist=100)})
    assert found["finer"] >= 60  # of 80
    assert found["finer"] >= found["signs only"] + 10


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_search_reads_its_query_once(sem_store, config, mode, monkeypatch):
    """The query is parsed once per search, the hybrid search's keyword leg included (it was
    read three times); the results are those of the same search before."""
    from chatmem.tools import search as search_tool

    before = search_memory(sem_store, config.seat(None), "rope OR knot", mode=mode, limit=5)
    reads: list[str] = []
    real = search_tool.parse_query

    def counted(text: str):
        reads.append(text)
        return real(text)

    monkeypatch.setattr(search_tool, "parse_query", counted)
    after = search_memory(sem_store, config.seat(None), "rope OR knot", mode=mode, limit=5)
    assert reads == ["rope OR knot"]
    assert [(r["id"], r["score"]) for r in after["results"]] == [(r["id"], r["score"]) for r in before["results"]]


def test_a_large_catch_up_is_written_a_segment_at_a_time_and_searched_the_same(tmp_path, monkeypatch):
    """Embedding a whole archive holds one segment's columns at a time (it held every vector
    until the end: ~600 MB at a million); edits in later catch-ups replace their old rows, small
    segments are packed into full ones, and a search finds the same nearest rows throughout."""
    from chatmem.store import vectors
    from chatmem.store.vectors import VectorRow, VectorStore

    monkeypatch.setattr(vectors, "EMBED_BATCH", 4)
    monkeypatch.setattr(vectors, "SEGMENT_ROWS", 10)
    monkeypatch.setattr(vectors, "MAX_SEGMENTS", 2)
    rng = np.random.default_rng(11)
    table = rng.normal(size=(200, emb.DIM)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    current = {f"m_{i:03d}": i for i in range(60)}  # message id -> row of `table` it says

    def embed(texts: list[str]) -> np.ndarray:
        return table[[int(t) for t in texts]]

    def catch_up(ids: list[str], seq: int) -> None:
        vs.add((VectorRow(i, str(current[i]), "s_a", None, 86400) for i in ids), seq, embed, "test")

    def nearest_ok() -> None:
        for probe in (3, 42, 77, 150):
            query = table[probe]
            live = sorted(current.items())
            q8 = np.clip(np.rint(table[[r for _, r in live]] * 127), -127, 127)
            cos = (q8 @ query) / np.linalg.norm(q8, axis=1)
            expected = [live[k][0] for k in np.argsort(-cos, kind="stable")[:5]]
            assert [i for i, _ in vs.search(query, 5, shortlist=1000)] == expected

    vs = VectorStore(tmp_path / "vectors")
    catch_up(sorted(current), 1)
    rows = [vs._rows(s) for s in vs.state()["segments"]]
    assert sum(rows) == 60 and len(rows) >= 5 and max(rows) <= 12
    nearest_ok()
    for seq, edited in enumerate([["m_003", "m_010"], ["m_042"], ["m_003", "m_059"]], start=2):
        for i in edited:
            current[i] = 60 + seq * 10 + int(i[2:]) % 10  # the message now says something else
        catch_up(edited, seq)
        assert vs.count() == 60
        nearest_ok()
    small = [s for s in vs.state()["segments"] if vs._rows(s) < 10]
    assert len(small) <= 2  # packed: the edits' small segments did not pile up


@pytest.mark.parametrize("bits", [3, 22])
def test_a_later_catch_up_replaces_exactly_the_rows_of_its_ids(tmp_path, monkeypatch, bits):
    """An edited message's old row is found in every older segment whatever the ids' lengths (a
    segment's ids are as wide as its longest: 'm_1' is stored wider beside a long id than in a
    catch-up of short ones), and no other row is (with a probe table of 8 flags nearly every row
    is a candidate: only the exact comparison tells them apart)."""
    from chatmem.store import vectors
    from chatmem.store.vectors import VectorRow, VectorStore

    monkeypatch.setattr(vectors, "PROBE_BITS", bits)
    monkeypatch.setattr(vectors, "SEGMENT_ROWS", 16)
    monkeypatch.setattr(vectors, "EMBED_BATCH", 4)
    monkeypatch.setattr(vectors, "MAX_SEGMENTS", 100)  # no packing: each catch-up's rows stay apart
    ids = [f"m_{i}" for i in range(40)] + [f"c_{'x' * n}" for n in range(1, 30)]
    rng = np.random.default_rng(5)
    table = rng.normal(size=(len(ids) + 10, emb.DIM)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    says = {i: k for k, i in enumerate(ids)}  # message id -> row of `table` it says

    def catch_up(batch: list[str], seq: int) -> None:
        vs.add((VectorRow(i, str(says[i]), "s_a", None, 86400) for i in batch), seq,
               lambda texts: table[[int(t) for t in texts]], "test")

    def nearest(k: int) -> str:
        return vs.search(table[k], 1, shortlist=1000)[0][0]

    vs = VectorStore(tmp_path / "vectors")
    catch_up(ids, 1)
    assert len(vs.state()["segments"]) >= 4 and vs.count() == len(ids)
    edited = ["m_1", "m_12", "c_x", "c_xxxxxxxxxxxxxxxxxxxxxxxxxxxx"]  # m_1 a prefix of m_12...
    for n, i in enumerate(edited):
        says[i] = len(ids) + n
    catch_up(["m_1", "m_12"], 2)  # only short ids: a narrower segment than the first ones
    catch_up(["c_x", "c_xxxxxxxxxxxxxxxxxxxxxxxxxxxx"], 3)
    assert vs.count() == len(ids)  # each edit replaced one row, no more, no fewer
    assert [nearest(says[i]) for i in edited] == edited
    assert nearest(ids.index("m_10")) == "m_10"  # untouched rows live on
    assert vs.remove(["m_1", "m_2", "c_xx", "m_999"]) == 3
    assert vs.count() == len(ids) - 3
