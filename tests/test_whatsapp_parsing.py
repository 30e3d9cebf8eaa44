"""WhatsApp parsing rules, one behaviour at a time: headers, dates, bodies, events, files."""

from __future__ import annotations

import zipfile

import pytest
from build_whatsapp_fixtures import APPLEDOUBLE, IOS_EN, IOS_EN_MEDIA, zip_bytes
from whatsapp_helpers import (
    FIXTURES,
    by_line,
    chat_of,
    local,
    messages,
    problems,
    read,
    read_text,
    state_of,
)

from chatmem.errors import ArgumentError, FormatError
from chatmem.importers import detect as detect_any
from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.importers.whatsapp_events import classify_event
from chatmem.importers.whatsapp_header import for_matching, match_header
from chatmem.records import Message

# ----------------------------------------------------------------------------- headers


@pytest.mark.parametrize(
    "line, when, sender, text",
    [
        ("31/12/23, 23:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("[31.12.23, 23:59:07] Anna Berg: hi", "2023-12-31T23:59:07", "Anna Berg", "hi"),
        ("31/12/2023 23:59: Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/2023 23:59:07: Anna Berg: hi", "2023-12-31T23:59:07", "Anna Berg", "hi"),
        ("12/31/23, 11:59 PM - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("12/31/23, 11:59\u202fpm - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("12/31/23, 11:59 p.m. - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/23, 11:59 p. m. - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/23, 11:59 p.\u00a0m. - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/23, 12:05 a. m. - Anna Berg: hi", "2023-12-31T00:05:00", "Anna Berg", "hi"),
        ("31/12/23, 00:05 a. m. - Anna Berg: hi", "2023-12-31T00:05:00", "Anna Berg", "hi"),
        ("31/12/23, 12:05 PM - Anna Berg: hi", "2023-12-31T12:05:00", "Anna Berg", "hi"),
        ("12/31/23, 3:22_AM - Anna Berg: hi", "2023-12-31T03:22:00", "Anna Berg", "hi"),
        ("[12/31/23, 11:59:07\u202fPM] Anna Berg: hi", "2023-12-31T23:59:07", "Anna Berg", "hi"),
        ("31.12.23, 11:59 nachm. - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31.12.2023 11:59 ÖS - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/2023, 11:59 μ.μ. - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("2023/12/31 下午11:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/2023 à 23:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("2023-12-31 23:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("[2023/12/31, 23:59:07] Anna Berg: hi", "2023-12-31T23:59:07", "Anna Berg", "hi"),
        ("2023. 12. 31. 23:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31-12-2023 23:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/2023, 23:59. - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("\u200e[31.12.23, 23:59:07] Anna Berg: \u200eimage omitted", "2023-12-31T23:59:07", "Anna Berg", ""),
        ("\ufeff31/12/23, 23:59 - Anna Berg: hi", "2023-12-31T23:59:00", "Anna Berg", "hi"),
        ("31/12/23, 23:59 - \u202a+49 170 1234567\u202c: hi", "2023-12-31T23:59:00", "+49 170 1234567", "hi"),
        ("31/12/23, 23:59 - ~\u202fAnna: hi", "2023-12-31T23:59:00", "~ Anna", "hi"),
    ],
)
def test_header_layouts(tmp_path, line: str, when: str, sender: str, text: str) -> None:
    (m,) = messages(read_text(tmp_path, line + "\n", owner_names=[], name="chat.txt"))
    assert (local(m), m.sender, m.text) == (when, sender, text)
    assert m.raw == line


def test_phone_number_sender_gets_a_handle(tmp_path) -> None:
    (m,) = messages(read_text(tmp_path, "31/12/23, 23:59 - \u202a+49 170 1234567\u202c: hi\n"))
    assert m.sender_handle == "+491701234567"


def test_invisible_marks_are_kept_in_raw_only(tmp_path) -> None:
    line = "\u200e[3/2/24, 6:01:09\u202fPM] Ben: Hi\u00a0there \u200e"
    (m,) = messages(read_text(tmp_path, line + "\n", name="chat.txt"))
    assert m.raw == line
    assert m.text == "Hi\u00a0there ", "the body keeps its own spaces; marks around it go"


@pytest.mark.parametrize(
    "continuation",
    ["5/6", "1pm then dinner", "12:30", "31/12/23", "31/12/23 is the day", "2023", "- a list item",
     "[link] https://example.org", "Anna Berg: quoted", "", "   "],
)
def test_continuation_lines_that_look_like_dates_or_numbers(tmp_path, continuation: str) -> None:
    text = f"31/12/23, 23:59 - Anna Berg: first\n{continuation}\nlast\n31/12/23, 23:59 - Ben: next\n"
    recs = messages(read_text(tmp_path, text))
    assert [r.text for r in recs] == [f"first\n{continuation}\nlast", "next"]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r\r\n"])
def test_line_endings(tmp_path, ending: str) -> None:
    text = ending.join(["31/12/23, 23:58 - Anna: one", "two", "31/12/23, 23:59 - Ben: three", ""])
    recs = messages(read_text(tmp_path, text))
    assert [r.text for r in recs] == ["one\ntwo", "three"]


def test_mixed_line_endings(tmp_path) -> None:
    text = "31/12/23, 23:58 - Anna: one\r\ntwo\n\nthree\r\n31/12/23, 23:59 - Ben: four\n"
    recs = messages(read_text(tmp_path, text))
    assert [r.text for r in recs] == ["one\ntwo\n\nthree", "four"]


def test_trailing_blank_lines_are_not_text(tmp_path) -> None:
    text = "31/12/23, 23:58 - Anna: one\n\n\n31/12/23, 23:59 - Ben: two\n\n"
    recs = messages(read_text(tmp_path, text))
    assert [r.text for r in recs] == ["one", "two"]
    assert recs[0].raw == "31/12/23, 23:58 - Anna: one\n\n"
    assert recs[1].raw == "31/12/23, 23:59 - Ben: two\n"


def test_an_impossible_date_is_text_not_a_header(tmp_path) -> None:
    text = "31/12/23, 23:58 - Anna: one\n45/45/23, 10:00 - not a header\n31/12/23, 23:59 - Ben: two\n"
    recs = messages(read_text(tmp_path, text))
    assert [r.text for r in recs] == ["one\n45/45/23, 10:00 - not a header", "two"]


def test_colon_form_lines_inside_a_dash_export_are_text(tmp_path) -> None:
    text = "31/12/23, 23:58 - Anna: the plan\n01/01/2024 10:00: brunch\n31/12/23, 23:59 - Ben: ok\n"
    recs = messages(read_text(tmp_path, text))
    assert [r.text for r in recs] == ["the plan\n01/01/2024 10:00: brunch", "ok"]


# ----------------------------------------------------------------------------- date order


def test_order_from_a_day_above_12(tmp_path) -> None:
    text = "01/02/24, 10:00 - Anna: a\n13/02/24, 10:00 - Anna: b\n"
    assert [local(r) for r in messages(read_text(tmp_path, text))] == [
        "2024-02-01T10:00:00", "2024-02-13T10:00:00"]
    text = "01/02/24, 10:00 - Anna: a\n01/13/24, 10:00 - Anna: b\n"
    assert [local(r) for r in messages(read_text(tmp_path, text))] == [
        "2024-01-02T10:00:00", "2024-01-13T10:00:00"]


def test_ambiguous_order_defaults_to_day_first_and_says_so(tmp_path) -> None:
    records = read_text(tmp_path, "01/02/24, 10:00 - Anna: a\n")
    assert local(messages(records)[0]) == "2024-02-01T10:00:00"
    assert any("guessed as day-first (D/M/Y)" in n for n in state_of(records).notes)


def test_date_format_option_wins(tmp_path) -> None:
    for fmt in ("MDY", "%m/%d/%y", "mm/dd/yyyy", "M/D/Y"):
        records = read_text(tmp_path, "01/02/24, 10:00 - Anna: a\n", date_format=fmt)
        assert local(messages(records)[0]) == "2024-01-02T10:00:00"
        assert not any("guessed" in n for n in state_of(records).notes)


def test_bad_date_format_is_an_argument_error(tmp_path) -> None:
    with pytest.raises(ArgumentError, match="date-format"):
        read_text(tmp_path, "01/02/24, 10:00 - Anna: a\n", date_format="QQQ")


def test_mixed_orders_fall_back_per_layout(tmp_path) -> None:
    text = "6/30/23, 16:13 - Anna: a\n30/6/2023, 16:15 - Anna: b\n7/1/23, 09:00 - Anna: c\n"
    assert [local(r) for r in messages(read_text(tmp_path, text))] == [
        "2023-06-30T16:13:00", "2023-06-30T16:15:00", "2023-07-01T09:00:00"]


def test_mixed_orders_in_one_layout_fall_back_per_line(tmp_path) -> None:
    text = "13/01/24, 10:00 - Anna: a\n01/14/24, 10:00 - Anna: b\n"
    assert [local(r) for r in messages(read_text(tmp_path, text))] == [
        "2024-01-13T10:00:00", "2024-01-14T10:00:00"]


def test_dates_running_forward_decide_an_ambiguous_order(tmp_path) -> None:
    # As D/M/Y these would jump between months; as M/D/Y they run day by day.
    text = "".join(f"1/{d}/24, 10:00 - Anna: day {d}\n" for d in range(1, 10))
    records = read_text(tmp_path, text)
    assert local(messages(records)[-1]) == "2024-01-09T10:00:00"
    assert any("month-first" in n for n in state_of(records).notes)


# ----------------------------------------------------------------------------- bodies


def test_empty_body_placeholder_from_a_known_author(tmp_path) -> None:
    text = "01/02/24, 10:00 - John Doe: hi\n01/02/24, 10:01 - John Doe:.\n"
    recs = messages(read_text(tmp_path, text))
    assert (recs[1].kind, recs[1].sender, recs[1].text, recs[1].extra.get("placeholder")) == (
        "text", "John Doe", "", "empty")


def test_system_line_with_a_colon_inside_is_not_a_message(tmp_path) -> None:
    text = ('01/02/24, 10:00 - Anna: hi\n01/02/24, 10:00 - Ben: yo\n01/02/24, 10:00 - Cleo: hey\n'
            '01/02/24, 10:01 - Anna changed the subject from "Trip" to "Trip: Rome"\n')
    last = messages(read_text(tmp_path, text))[-1]
    assert (last.kind, last.sender, last.extra["event"], last.extra["new"]) == (
        "system", "Anna", "subject", "Trip: Rome")


def test_message_quoting_a_system_phrase_stays_a_message(tmp_path) -> None:
    text = "01/02/24, 10:00 - Anna: Ben added the milk\n01/02/24, 10:01 - Anna: Anna left the door open\n"
    recs = messages(read_text(tmp_path, text))
    assert [(r.kind, r.sender) for r in recs] == [("text", "Anna"), ("text", "Anna")]


def test_ios_group_line_without_a_known_phrase_is_system(tmp_path) -> None:
    text = ("[01.02.24, 10:00:00] Anna: hi\n"
            "[01.02.24, 10:00:01] Trip: \u200eAnna did something new to this group\n")
    last = messages(read_text(tmp_path, text, name="chat.txt"))[-1]
    assert (last.kind, last.extra["event"]) == ("system", "unknown")


def test_edited_media_caption(tmp_path) -> None:
    text = "01/02/24, 10:00 - Anna: IMG-20240201-WA0001.jpg (file attached)\nsunset <This message was edited>\n"
    (m,) = messages(read_text(tmp_path, text))
    assert (m.kind, m.text, m.edited) == ("media", "sunset", True)


def test_edit_keeps_the_id_of_the_edited_text(tmp_path) -> None:
    a = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: See you at 8 <This message was edited>\n"))
    b = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: See you at 8\u200e <This message was edited>\n"))
    assert a[0].id == b[0].id


def test_media_with_and_without_the_file_get_one_id(tmp_path) -> None:
    a = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: <Media omitted>\n"))
    b = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: IMG-20240201-WA0001.jpg (file attached)\n"))
    assert a[0].id == b[0].id


def test_deleted_in_any_language_gets_one_id(tmp_path) -> None:
    a = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: This message was deleted\n"))
    b = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: Diese Nachricht wurde gelöscht\n"))
    assert a[0].id == b[0].id and a[0].deleted and b[0].deleted


def test_attachment_next_to_a_loose_text_is_found(tmp_path) -> None:
    (tmp_path / "IMG-20240201-WA0001.jpg").write_bytes(b"\xff\xd8fake")
    (m,) = messages(read_text(tmp_path, "01/02/24, 10:00 - Anna: IMG-20240201-WA0001.jpg (file attached)\n"))
    (att,) = m.attachments
    assert (att.name, att.present, att.size, att.mime_type) == ("IMG-20240201-WA0001.jpg", True, 6, "image/jpeg")
    from chatmem.store.media import read_bytes

    assert read_bytes(att.path) == b"\xff\xd8fake"  # the file beside the text, by its locator


# ----------------------------------------------------------------------------- events in every language

EVENT_CASES = [
    # (text, event, actor, actor is the owner)
    ("Messages and calls are end-to-end encrypted. No one outside of this chat can read them.", "e2e", "", False),
    ("Messages to this group are now secured with end-to-end encryption.", "e2e", "", False),
    ('Anna created group "Trip"', "created", "Anna", False),
    ("You created group “Trip”", "created", "You", True),
    ("Anna added Ben", "added", "Anna", False),
    ("You were added", "added", "", False),
    ("Anna removed Ben", "removed", "Anna", False),
    ("Ben left", "left", "Ben", False),
    ("You left", "left", "You", True),
    ('Anna changed the subject to "Rome"', "subject", "Anna", False),
    ("Anna changed this group's icon", "icon", "Anna", False),
    ("Anna deleted this group's icon", "icon", "Anna", False),
    ("Anna changed the group description", "description", "Anna", False),
    ("Anna's security code changed. Tap to learn more.", "security_code", "", False),
    ("Anna updated the message timer. New messages will disappear from this chat 24 hours after they're sent.", "timer", "Anna", False),
    ("Anna changed to +49 170 1234567", "number_changed", "Anna", False),
    ("+1 555 0100 is a contact", "contact", "+1 555 0100", False),
    # German
    ("Du hast die Gruppe „Reise“ erstellt.", "created", "Du", True),
    ("Anna hat die Gruppe verlassen.", "left", "Anna", False),
    ("Du hast Ben entfernt.", "removed", "Du", True),
    ("Anna hat die Gruppenbeschreibung geändert.", "description", "Anna", False),
    ("Ben hat zu +49 170 1234567 gewechselt.", "number_changed", "Ben", False),
    # Spanish
    ('Anna creó el grupo "Viaje"', "created", "Anna", False),
    ('Creaste el grupo "Viaje"', "created", "", True),
    ("Anna añadió a Ben", "added", "Anna", False),
    ("Añadiste a Ben", "added", "", True),
    ("Anna eliminó a Ben", "removed", "Anna", False),
    ("Ben salió del grupo", "left", "Ben", False),
    ("Saliste del grupo", "left", "", True),
    ('Anna cambió el asunto de "Viaje" a "Roma"', "subject", "Anna", False),
    ("Anna cambió el ícono de este grupo", "icon", "Anna", False),
    ("Anna cambió la descripción del grupo", "description", "Anna", False),
    ("Anna activó los mensajes temporales. Los mensajes nuevos desaparecerán de este chat 7 días después de su envío.", "timer", "Anna", False),
    ("Anna cambió su número de teléfono a uno nuevo.", "number_changed", "Anna", False),
    ("Ben se unió usando el enlace de invitación de este grupo", "added", "Ben", False),
    # French
    ("Anna a ajouté Ben", "added", "Anna", False),
    ("Vous êtes parti", "left", "Vous", True),
    ("Anna a changé l'icône de ce groupe", "icon", "Anna", False),
    ("Anna a changé de numéro de téléphone.", "number_changed", "Anna", False),
    # Portuguese
    ('Anna criou o grupo "Viagem"', "created", "Anna", False),
    ('Você criou o grupo "Viagem"', "created", "Você", True),
    ("Anna adicionou Ben", "added", "Anna", False),
    ("Você adicionou Ben", "added", "Você", True),
    ("Anna removeu Ben", "removed", "Anna", False),
    ("Ben saiu", "left", "Ben", False),
    ('Anna mudou o assunto de "Viagem" para "Roma"', "subject", "Anna", False),
    ("Anna mudou a imagem deste grupo", "icon", "Anna", False),
    ("Anna mudou a descrição do grupo", "description", "Anna", False),
    ("Anna ativou as mensagens temporárias.", "timer", "Anna", False),
    ("Ben entrou usando o link de convite deste grupo", "added", "Ben", False),
    # Italian
    ("Hai creato il gruppo “Gita”", "created", "", True),
    ("Anna ha rimosso Ben", "removed", "Anna", False),
    ("Anna ha modificato la descrizione del gruppo", "description", "Anna", False),
    ("Il tuo codice di sicurezza con Ben è cambiato.", "security_code", "", False),
    ("Anna ha attivato i messaggi effimeri.", "timer", "Anna", False),
    # Dutch
    ('Anna heeft groep "Reis" aangemaakt', "created", "Anna", False),
    ('Je hebt groep "Reis" aangemaakt', "created", "Je", True),
    ("Anna heeft Ben toegevoegd", "added", "Anna", False),
    ("Je hebt Ben toegevoegd", "added", "Je", True),
    ("Anna heeft Ben verwijderd", "removed", "Anna", False),
    ("Ben heeft de groep verlaten", "left", "Ben", False),
    ('Anna heeft de groepsnaam gewijzigd van "Reis" naar "Rome"', "subject", "Anna", False),
    ("Anna heeft de groepsafbeelding gewijzigd", "icon", "Anna", False),
    ("Anna heeft de groepsbeschrijving gewijzigd", "description", "Anna", False),
    ("Anna heeft verdwijnende berichten ingeschakeld.", "timer", "Anna", False),
    ("Ben is overgestapt naar +31 6 12345678", "number_changed", "Ben", False),
    # Russian
    ("Вы создали группу «Дача»", "created", "Вы", True),
    ("Анна удалила Иван", "removed", "Анна", False),
    ("Вы вышли", "left", "Вы", True),
    ("Анна изменила изображение этой группы", "icon", "Анна", False),
    ("Анна изменила описание группы", "description", "Анна", False),
    ("Анна включила исчезающие сообщения.", "timer", "Анна", False),
    ("Анна сменила номер телефона.", "number_changed", "Анна", False),
    # Turkish
    ('"Maç" grubunu oluşturdunuz', "created", "", True),
    ("Ben Ortiz'i eklediniz", "added", "", True),
    ("Emre, Deniz kişisini çıkardı", "removed", "Emre", False),
    ("Ayrıldınız", "left", "", True),
    ("Emre bu grubun simgesini değiştirdi", "icon", "Emre", False),
    ("Emre grup açıklamasını değiştirdi", "description", "Emre", False),
    ("Emre süreli mesajları açtı.", "timer", "Emre", False),
    ("Emre telefon numarasını değiştirdi.", "number_changed", "Emre", False),
]


@pytest.mark.parametrize("text, event, actor, me", EVENT_CASES, ids=[c[0][:40] for c in EVENT_CASES])
def test_events_in_every_language(text: str, event: str, actor: str, me: bool) -> None:
    got = classify_event(for_matching(text))
    assert got is not None, text
    assert (got.event, got.actor, got.actor_is_you) == (event, actor, me)


@pytest.mark.parametrize("text", ["hello there", "Ben: hi", "We left at 8", "added to cart"])
def test_unknown_system_text_is_kept_as_system(tmp_path, text: str) -> None:
    (m,) = messages(read_text(tmp_path, f"01/02/24, 10:00 - {text.replace(': ', ' ')}\n"))
    assert (m.kind, m.text) == ("system", text.replace(": ", " "))


# ----------------------------------------------------------------------------- chats


def test_chat_option_merges_into_a_named_chat(tmp_path) -> None:
    records = read(FIXTURES / "WhatsApp Chat with Anna Berg.txt", chat="Anna B.")
    chat = chat_of(records)
    assert (chat.name, chat.key) == ("Anna Berg", "anna b.")
    records = read_text(tmp_path, "01/02/24, 10:00 - Sam Rivera: hi\n", name="_chat.txt", chat="Anna B.")
    assert (chat_of(records).name, chat_of(records).key) == ("Anna B.", "anna b.")
    assert all(r.chat_id == chat.id for r in messages(records))


def test_chat_option_takes_a_source_id() -> None:
    records = read(FIXTURES / "WhatsApp Chat with Anna Berg.txt", chat="s_0123456789abcdef")
    assert chat_of(records).id == "s_0123456789abcdef"
    assert {r.chat_id for r in messages(records)} == {"s_0123456789abcdef"}


def test_known_aliases_keep_a_renamed_group_in_its_chat(tmp_path) -> None:
    # An export made after a rename, showing neither the rename nor the creation.
    text = "01/02/24, 10:00 - Anna: hi\n01/02/24, 10:01 - Ben: hey\n01/02/24, 10:02 - Cleo: yo\n"
    path = tmp_path / "WhatsApp Chat with Book Club 2024.txt"
    path.write_text(text)
    assert chat_of(read(path)).key == "book club 2024"
    state = state_of(read(FIXTURES / "WhatsApp Chat with Book Club 2024.txt")).state
    assert chat_of(read(path, state=state)).key == "book club"


def test_ios_zip_and_android_text_name_the_same_chat(tmp_path) -> None:
    zip_path = tmp_path / "WhatsApp Chat - Anna Berg.zip"
    zip_path.write_bytes(zip_bytes("[01.02.24, 10:00:00] Anna Berg: hi\n", {}))
    txt_path = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    txt_path.write_text("01/02/24, 10:00 - Anna Berg: hi\n")
    assert chat_of(read(zip_path)).id == chat_of(read(txt_path)).id


def test_unzipped_ios_export_takes_its_name_from_the_folder(tmp_path) -> None:
    folder = tmp_path / "WhatsApp Chat - Anna Berg"
    folder.mkdir()
    (folder / "_chat.txt").write_text("[01.02.24, 10:00:00] Anna Berg: hi\n")
    assert chat_of(read(folder / "_chat.txt")).name == "Anna Berg"


# ----------------------------------------------------------------------------- overlapping exports


def _lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines(keepends=True)


def test_overlapping_exports_share_ids(tmp_path) -> None:
    lines = _lines("WhatsApp Chat with Book Club 2024.txt")
    older = tmp_path / "a" / "WhatsApp Chat with Book Club 2024.txt"
    newer = tmp_path / "b" / "WhatsApp Chat with Book Club 2024.txt"
    older.parent.mkdir()
    newer.parent.mkdir()
    older.write_text("".join(lines[:16]))  # the first months, with the creation
    newer.write_text("".join(lines[7:]))  # from the first rename on
    a = {r.id for r in messages(read(older))}
    b = {r.id for r in messages(read(newer))}
    whole = {r.id for r in messages(read(FIXTURES / "WhatsApp Chat with Book Club 2024.txt"))}
    assert a | b == whole, "together they add up to the whole chat, nothing twice"
    assert len(a & b) == 9


def test_later_export_of_an_edited_message_adds_nothing(tmp_path) -> None:
    text = "14/02/24, 09:21 - Anna: See you at 8 <This message was edited>\n"
    first = messages(read_text(tmp_path, text))
    second = messages(read_text(tmp_path, text + "14/02/24, 09:22 - Anna: new\n"))
    assert first[0].id == second[0].id


# ----------------------------------------------------------------------------- files and zips


def _zip(tmp_path, name: str, members: dict[str, bytes]) -> object:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for member, data in members.items():
            zf.writestr(member, data)
    return path


def test_zip_junk_is_ignored(tmp_path) -> None:
    path = _zip(tmp_path, "WhatsApp Chat - Ben Ortiz.zip", {
        "__MACOSX/._chat.txt": APPLEDOUBLE, "_chat.txt": IOS_EN.encode(), "._other.txt": b"junk"})
    assert len(messages(read(path))) == 17


def test_single_chat_file_in_a_zip_whatever_its_name(tmp_path) -> None:
    path = _zip(tmp_path, "export.zip", {
        "WhatsApp Chat with Anna Berg.txt": b"01/02/24, 10:00 - Anna Berg: hi\n",
        "notes.txt": b"not a chat"})
    records = read(path)
    assert chat_of(records).name == "Anna Berg"
    assert [m.text for m in messages(records)] == ["hi"]


def test_attached_txt_document_is_not_taken_for_the_chat(tmp_path) -> None:
    path = _zip(tmp_path, "WhatsApp Chat - Ben Ortiz.zip", {
        "_chat.txt": IOS_EN.encode(),
        "00000009-minutes.txt": b"01/02/24, 10:00 - Not: a chat, a document\n"})
    assert len(messages(read(path))) == 17


def test_zip_inside_a_zip(tmp_path) -> None:
    inner = zip_bytes(IOS_EN, IOS_EN_MEDIA)
    path = _zip(tmp_path, "backup.zip", {"WhatsApp Chat - Ben Ortiz.zip": inner})
    assert WhatsAppImporter().detect(path)
    records = read(path)
    assert chat_of(records).name == "Ben Ortiz"
    photo = by_line(records, 3).attachments[0]
    assert photo.path == (f"zip:{path.resolve()}!WhatsApp Chat - Ben Ortiz.zip!"
                          "00000003-PHOTO-2024-03-02-18-04-11.jpg")
    # the locator reaches the photo inside the zip inside the zip
    from chatmem.store.media import read_bytes

    assert photo.present and read_bytes(photo.path) == IOS_EN_MEDIA[photo.name]
    assert [r.id for r in messages(records)] == [
        r.id for r in messages(read(FIXTURES / "WhatsApp Chat - Ben Ortiz.zip"))]


@pytest.mark.parametrize("member", ["../evil.txt", "/etc/passwd", "media/../../x.jpg", "C:/x.txt", "..\\x.txt"])
def test_path_traversal_is_refused(tmp_path, member: str) -> None:
    path = _zip(tmp_path, "WhatsApp Chat - Ben Ortiz.zip", {"_chat.txt": IOS_EN.encode(), member: b"x"})
    with pytest.raises(FormatError, match="unsafe member name"):
        read(path)


def test_zip_bomb_is_refused(tmp_path, monkeypatch) -> None:
    from chatmem.importers import whatsapp_source

    monkeypatch.setattr(whatsapp_source, "RATIO_FLOOR", 1024)
    path = _zip(tmp_path, "WhatsApp Chat - Ben Ortiz.zip",
                {"_chat.txt": IOS_EN.encode() + b"\n" * 2_000_000})
    with pytest.raises(FormatError, match="ratio"):
        read(path)
    monkeypatch.setattr(whatsapp_source, "MAX_TEXT_BYTES", 1000)
    with pytest.raises(FormatError, match="limit"):
        read(_zip(tmp_path, "b.zip", {"_chat.txt": IOS_EN.encode()}))


def test_truncated_zip_is_a_format_error(tmp_path) -> None:
    data = (FIXTURES / "WhatsApp Chat - Ben Ortiz.zip").read_bytes()
    path = tmp_path / "WhatsApp Chat - Ben Ortiz.zip"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match="Ben Ortiz.zip"):
        read(path)


def test_zip_without_a_chat_is_a_format_error(tmp_path) -> None:
    path = _zip(tmp_path, "photos.zip", {"a.jpg": b"\xff\xd8", "notes.txt": b"hello"})
    assert not WhatsAppImporter().detect(path)
    with pytest.raises(FormatError, match="no WhatsApp chat"):
        read(path)


def test_file_without_any_header_is_a_format_error(tmp_path) -> None:
    with pytest.raises(FormatError, match="notes.txt.*no WhatsApp message header"):
        read_text(tmp_path, "just some notes\n5/6 done\n", name="notes.txt")


def test_lines_before_the_first_header_are_problems(tmp_path) -> None:
    records = read_text(tmp_path, "garbage line\n\nmore garbage\n01/02/24, 10:00 - Anna: hi\n")
    assert [(p.line, p.text) for p in problems(records)] == [(1, "garbage line"), (3, "more garbage")]
    assert all(p.where == "WhatsApp Chat with Anna Berg.txt" for p in problems(records))
    assert [m.text for m in messages(records)] == ["hi"]


@pytest.mark.parametrize("encoding, bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
                                           ("utf-16-le", b"")])
def test_utf16_exports(tmp_path, encoding: str, bom: bytes) -> None:
    data = bom + "01/02/24, 10:00 - Anna: héllo\n".encode(encoding)
    assert [m.text for m in messages(read_text(tmp_path, data))] == ["héllo"]


def test_windows_1252_export_is_read_with_a_note(tmp_path) -> None:
    records = read_text(tmp_path, "01/02/24, 10:00 - Anna: café €\n".encode("cp1252"))
    assert [m.text for m in messages(records)] == ["café €"]
    assert any("Windows-1252" in n for n in state_of(records).notes)


def test_a_few_bad_bytes_in_utf8_are_replaced(tmp_path) -> None:
    data = "01/02/24, 10:00 - Anna: naïve café ümlaut\n".encode() + b"01/02/24, 10:01 - Anna: x\xff\n"
    records = read_text(tmp_path, data)
    assert [m.text for m in messages(records)] == ["naïve café ümlaut", "x\ufffd"]


# ----------------------------------------------------------------------------- detection


def test_detect(tmp_path) -> None:
    imp = WhatsAppImporter()
    assert imp.detect(FIXTURES / "WhatsApp Chat with Anna Berg.txt")
    assert imp.detect(FIXTURES / "WhatsApp Chat - Ben Ortiz.zip")
    assert not imp.detect(FIXTURES)
    other = tmp_path / "notes.txt"
    other.write_text("Dear diary\n01/02/24 was a good day\n")
    assert not imp.detect(other)
    assert not imp.detect(tmp_path / "missing.txt")
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really")
    assert not imp.detect(tmp_path / "broken.zip")


def test_registry_picks_whatsapp_for_an_export() -> None:
    importer = detect_any(FIXTURES / "WhatsApp Chat with Anna Berg.txt")
    assert importer is not None and importer.platform == "whatsapp"


def test_header_parser_examples() -> None:
    h = match_header(for_matching("[8/15/23, 9:12:33\u202fPM] Dr. Feather: hi"))
    assert (h.layout, h.hour, h.rest) == ("bracket", 21, "Dr. Feather: hi")
    assert match_header("5/6 eggs") is None
    assert isinstance(messages(read(FIXTURES / "WhatsApp Chat with Yuki Tanaka.txt"))[0], Message)


@pytest.mark.parametrize("module", ["whatsapp", "whatsapp_events", "whatsapp_header", "whatsapp_source"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    mod = importlib.import_module(f"chatmem.importers.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("line", [
    "01/02/24, 10:00 - Anna Berg {big}",  # a system line (no author)
    "[01.02.24, 10:00:00] Trip: \u200eAnna {big}",  # an iOS system-style body
    '01/02/24, 10:00 - Anna said "hi" and {big}: {big}',  # an author that looks like a system text
    "01/02/24, 10:00 - Anna: {big}",
])
def test_a_huge_line_is_kept_whole_and_fast(tmp_path, line: str) -> None:
    big = "word " * 400_000  # 2 MB: a quadratic regex here would never finish
    (m,) = messages(read_text(tmp_path, line.format(big=big) + "\n"))
    assert big.strip() in m.raw and len(m.raw) > 2_000_000
