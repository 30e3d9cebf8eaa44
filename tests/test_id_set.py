"""The compact set of message ids an importer keeps (importers/id_set.py) answers exactly as a
Python set of the same ids would: many ids sharing buckets, and bytes of two neighbouring entries
that happen to spell another id."""

from __future__ import annotations

import random

from chatmem.importers.id_set import IdSet
from chatmem.records import message_id_from_guid


def test_many_ids_answer_as_a_python_set_does():
    ids = [message_id_from_guid("signal", f"person-{i % 97}/{1709400000000 + i}") for i in range(40_000)]
    kept = set(random.Random(7).sample(ids, 25_000))  # ~6 an id's bucket: entries at every offset
    compact = IdSet()
    for key in ids:
        if key in kept:
            compact.add(key)
    assert [key in compact for key in ids] == [key in kept for key in ids]


def test_the_tail_of_one_entry_and_the_head_of_the_next_are_no_id():
    compact = IdSet()
    compact.add("m_abc12233c5667788")  # bucket abc, entry c1 22 33 c5 66 77 88
    compact.add("m_abc9aabbccddeeff")  # the next entry c9 aa bb cc dd ee ff
    straddling = "m_abc5667788c9aabb"  # bucket abc, c5 66 77 88 | c9 aa bb: the two from their 4th byte
    assert straddling not in compact
    compact.add(straddling)
    assert straddling in compact and "m_abc12233c5667788" in compact
    assert "m_abc12233c5667789" not in compact and "m_bbc12233c5667788" not in compact
