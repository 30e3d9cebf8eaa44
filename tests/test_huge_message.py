"""A huge message (issue 18, point 4): stored whole, searchable by its beginning, and its cost
bounded. Before, a 100 MB message took 137 s and 1.37 GB (Whoosh held every position of every
word while indexing it); now the index takes a message's first INDEX_TEXT_CHARS characters and
the report says so. The cost is measured by benchmarks/huge_message.py, not here."""

from __future__ import annotations

import json

from chatmem.store.index import INDEX_TEXT_CHARS

SIZE = 6 * 1024 * 1024  # large but quick: a few seconds
FILLER = "lorem ipsum dolor sit amet "


def huge_body() -> str:
    body = "openingword " + (FILLER * (SIZE // len(FILLER) + 1))
    tail = INDEX_TEXT_CHARS + 1000  # a word past the indexed part
    return body[:tail] + " farawayword " + body[tail:SIZE]


def test_a_huge_whatsapp_message_is_stored_whole(cli, tmp_path):
    body = huge_body()
    path = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    path.write_text("12/03/2024, 09:15 - Anna Berg: hi\n12/03/2024, 09:16 - Anna Berg: " + body
                    + "\n12/03/2024, 09:17 - Sam Rivera: ok\n", encoding="utf-8")
    report = json.loads(cli("import", "--json", str(path)).stdout)[0]
    assert report["messages"]["new"] == 3 and report["unparsed"] == 0
    assert any("1 message(s) longer than" in n and "stored whole" in n for n in report["notes"])
    hits = cli.json("search", "openingword")["results"]
    assert len(hits) == 1
    raw = cli.json("raw", hits[0]["id"])
    assert raw["content"].endswith(body[-200:]) and body[:200] in raw["content"]
    assert raw["size_bytes"] >= len(body.encode())
    assert cli.json("search", "farawayword")["total"] == 0  # past the indexed beginning


def test_a_huge_json_lines_message_is_stored_whole(cli, tmp_path):
    body = huge_body()
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps({"platform": "whatsapp", "chat": "Anna Berg", "sender": "Anna Berg",
                                "timestamp": "2024-03-12T09:16:00+00:00", "text": body}) + "\n",
                    encoding="utf-8")
    report = json.loads(cli("import", "--json", str(path)).stdout)[0]
    assert report["messages"]["new"] == 1
    hit = cli.json("search", "openingword")["results"][0]
    exported = tmp_path / "out.jsonl"
    cli("export", "--out", str(exported))
    texts = [json.loads(line).get("text") for line in exported.read_text(encoding="utf-8").splitlines()]
    assert body in texts and hit["id"]
