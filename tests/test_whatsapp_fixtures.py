"""Golden tests over fixtures/whatsapp/: one export per layout, language and line-ending variant.

Each case names records by the line they start on and compares a projection of each record
whole: kind, local time as written, sender, text, flags, and the extra fields that matter.
"""

from __future__ import annotations

from datetime import timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from build_whatsapp_fixtures import build
from whatsapp_helpers import (
    FIXTURES,
    by_line,
    chat_of,
    local,
    messages,
    problems,
    read,
    state_of,
)

from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.records import Call, Message, chat_id

ALL_FIXTURES = sorted(p.name for p in FIXTURES.iterdir())


def project(r) -> dict:
    """The fields a golden case compares."""
    if isinstance(r, Call):
        return {"call": r.direction, "media": r.media, "at": local(r), "peer": r.peer}
    out = {"kind": r.kind, "at": local(r), "sender": r.sender, "text": r.text}
    if r.deleted:
        out["deleted"] = True
    if r.edited:
        out["edited"] = True
    for key in ("event", "poll", "location", "placeholder", "media_type", "old", "new", "obj"):
        if key in r.extra:
            out[key] = r.extra[key]
    if r.attachments:
        # where the file is, without this machine's folders: "<zip>!<member>"
        out["files"] = [(a.name, a.path.replace(f"zip:{FIXTURES.resolve()}/", "") if a.path else None)
                        for a in r.attachments]
    return out


GOLDEN: dict[str, dict] = {
    "WhatsApp Chat with Anna Berg.txt": {
        "chat": ("Anna Berg", False, "anna berg"),
        "records": {
            1: {"kind": "system", "at": "2024-02-14T09:12:00", "sender": "", "event": "e2e",
                "text": "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more."},
            3: {"kind": "text", "at": "2024-02-14T09:15:00", "sender": "me",
                "text": "Yes! 10:00 works for me.\nCan you bring the spare harness?"},
            5: {"kind": "text", "at": "2024-02-14T09:16:00", "sender": "Anna Berg",
                "text": "Sure. Shopping list for after:\n5/6 eggs\n12:30 lunch at the usual place\n14/02/2024 is the receipt date\n2 x oat milk"},
            10: {"kind": "media", "at": "2024-02-14T09:16:00", "sender": "Anna Berg", "text": "",
                 "media_type": "unknown", "files": [(None, None)]},
            11: {"kind": "text", "at": "2024-02-14T09:17:00", "sender": "me", "text": "haha"},
            12: {"kind": "text", "at": "2024-02-14T09:17:00", "sender": "me", "text": "haha"},
            13: {"kind": "text", "at": "2024-02-14T09:20:00", "sender": "Anna Berg", "text": "", "deleted": True},
            14: {"kind": "text", "at": "2024-02-14T09:21:00", "sender": "me",
                 "text": "See you at the gym tomorrow", "edited": True},
            15: {"kind": "media", "at": "2024-02-15T18:40:00", "sender": "Anna Berg", "text": "",
                 "placeholder": "null"},
            16: {"kind": "text", "at": "2024-02-15T18:41:00", "sender": "Anna Berg",
                 "text": "location: https://maps.google.com/?q=52.370216,4.895168",
                 "location": {"url": "https://maps.google.com/?q=52.370216,4.895168",
                              "lat": 52.370216, "lon": 4.895168}},
            17: {"kind": "media", "at": "2024-02-15T18:45:00", "sender": "Anna Berg", "text": "",
                 "media_type": "contact", "files": [("Cleo Park.vcf", None)]},
            18: {"kind": "media", "at": "2024-02-15T18:46:00", "sender": "Anna Berg",
                 "text": "the wall we did last time", "media_type": "image",
                 "files": [("IMG-20240215-WA0007.jpg", None)]},
            20: {"kind": "text", "at": "2024-02-16T20:02:00", "sender": "me", "text": "", "deleted": True},
        },
    },
    "WhatsApp Chat - Ben Ortiz.zip": {
        "chat": ("Ben Ortiz", False, "ben ortiz"),
        "records": {
            1: {"kind": "system", "at": "2024-03-02T18:01:09", "sender": "", "event": "e2e",
                "text": "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them."},
            3: {"kind": "media", "at": "2024-03-02T18:04:11", "sender": "Ben Ortiz", "text": "",
                "media_type": "image",
                "files": [("00000003-PHOTO-2024-03-02-18-04-11.jpg",
                           "WhatsApp Chat - Ben Ortiz.zip!00000003-PHOTO-2024-03-02-18-04-11.jpg")]},
            5: {"kind": "media", "at": "2024-03-02T18:05:02", "sender": "Ben Ortiz", "text": "",
                "media_type": "image", "files": [(None, None)]},
            7: {"kind": "media", "at": "2024-03-02T18:07:15", "sender": "Ben Ortiz", "text": "",
                "media_type": "contact",
                "files": [("00000007-Cleo Park.vcf", "WhatsApp Chat - Ben Ortiz.zip!00000007-Cleo Park.vcf")]},
            9: {"call": "missed", "media": "voice", "at": "2024-03-02T21:15:00", "peer": "Ben Ortiz"},
            10: {"call": "outgoing", "media": "video", "at": "2024-03-02T21:16:12", "peer": None},
            12: {"kind": "text", "at": "2024-03-03T08:01:20", "sender": "me",
                 "text": "POLL:\nLunch after the boat?\nOPTION: Pizza (2 votes)\nOPTION: Soup (0 votes)\nOPTION: Skip it (1 vote)",
                 "poll": {"question": "Lunch after the boat?",
                          "options": [{"text": "Pizza", "votes": 2}, {"text": "Soup", "votes": 0},
                                      {"text": "Skip it", "votes": 1}]}},
            17: {"kind": "text", "at": "2024-03-03T08:03:00", "sender": "Ben Ortiz", "text": "", "deleted": True},
            18: {"kind": "text", "at": "2024-03-03T08:04:00", "sender": "me", "text": "", "deleted": True},
            19: {"kind": "text", "at": "2024-03-03T12:00:05", "sender": "Ben Ortiz",
                 "text": "Boat is booked for noon", "edited": True},
            20: {"kind": "text", "at": "2024-03-14T00:01:00", "sender": "Ben Ortiz",
                 "text": "Still awake? The 3/14 pie party is on"},
            21: {"kind": "system", "at": "2024-03-14T00:02:00", "sender": "", "event": "security_code",
                 "obj": "Ben Ortiz", "text": "Your security code with Ben Ortiz changed. Tap to learn more."},
        },
    },
    "WhatsApp Chat with Book Club 2024.txt": {
        "chat": ("Book Club 2024", True, "book club"),
        "records": {
            2: {"kind": "system", "at": "2023-09-01T19:00:00", "sender": "Anna Berg", "event": "created",
                "new": "Book Club", "text": 'Anna Berg created group "Book Club"'},
            3: {"kind": "system", "at": "2023-09-01T19:00:00", "sender": "Anna Berg", "event": "added",
                "obj": "you", "text": "Anna Berg added you"},
            6: {"kind": "system", "at": "2023-09-01T19:05:00", "sender": "me", "event": "added",
                "obj": "Cleo Park", "text": "You added Cleo Park"},
            7: {"kind": "system", "at": "2023-09-01T19:06:00", "sender": "Dev Malhotra", "event": "added",
                "text": "Dev Malhotra joined using this group's invite link"},
            8: {"kind": "system", "at": "2023-09-02T08:00:00", "sender": "Anna Berg", "event": "subject",
                "old": "Book Club", "new": "Book Club: Autumn",
                "text": 'Anna Berg changed the subject from "Book Club" to "Book Club: Autumn"'},
            9: {"kind": "system", "at": "2023-09-02T08:01:00", "sender": "Anna Berg", "event": "icon",
                "text": "Anna Berg changed this group's icon"},
            10: {"kind": "system", "at": "2023-09-02T08:02:00", "sender": "Anna Berg", "event": "description",
                 "text": "Anna Berg changed the group description"},
            12: {"kind": "system", "at": "2023-09-05T21:00:00", "sender": "", "event": "security_code",
                 "obj": "Ben Ortiz", "text": "Your security code with Ben Ortiz changed. Tap to learn more."},
            13: {"kind": "system", "at": "2023-09-10T09:00:00", "sender": "Anna Berg", "event": "timer",
                 "text": "Anna Berg turned on disappearing messages. New messages will disappear from this chat 7 days after they're sent, except when kept. Tap to change."},
            15: {"kind": "system", "at": "2023-09-12T12:00:00", "sender": "Dev Malhotra", "event": "left",
                 "text": "Dev Malhotra left"},
            16: {"kind": "system", "at": "2023-09-12T12:01:00", "sender": "Anna Berg", "event": "removed",
                 "obj": "Cleo Park", "text": "Anna Berg removed Cleo Park"},
            17: {"kind": "system", "at": "2023-09-15T18:00:00", "sender": "Ben Ortiz", "event": "number_changed",
                 "text": "Ben Ortiz changed their phone number to a new number. Tap to message or add the new number."},
            18: {"kind": "system", "at": "2024-01-02T10:00:00", "sender": "me", "event": "subject",
                 "old": "Book Club: Autumn", "new": "Book Club 2024",
                 "text": 'You changed the subject from "Book Club: Autumn" to "Book Club 2024"'},
            20: {"kind": "text", "at": "2024-01-02T10:02:00", "sender": "Anna Berg",
                 "text": "POLL:\nNext book?\nOPTION: Piranesi (3 votes)\nOPTION: Kindred (1 vote)",
                 "poll": {"question": "Next book?", "options": [{"text": "Piranesi", "votes": 3},
                                                                {"text": "Kindred", "votes": 1}]}},
            25: {"kind": "system", "at": "2024-01-02T10:06:00", "sender": "", "event": "unknown",
                 "text": "Anna Berg pinned a message"},
        },
    },
    "WhatsApp Chat mit Wandergruppe Harz.txt": {
        "chat": ("Wandergruppe Harz", True, "wandergruppe"),
        "records": {
            2: {"kind": "system", "at": "2023-05-02T19:00:00", "sender": "Lena Vogt", "event": "created",
                "new": "Wandergruppe", "text": "Lena Vogt hat die Gruppe „Wandergruppe“ erstellt."},
            3: {"kind": "system", "at": "2023-05-02T19:01:00", "sender": "Lena Vogt", "event": "added",
                "obj": "dich", "text": "Lena Vogt hat dich hinzugefügt."},
            7: {"kind": "media", "at": "2023-05-02T19:06:00", "sender": "Jonas Keller", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            8: {"kind": "media", "at": "2023-05-02T19:06:00", "sender": "Jonas Keller", "text": "Routenplan",
                "media_type": "image", "files": [("IMG-20230502-WA0004.jpg", None)]},
            10: {"kind": "system", "at": "2023-05-03T08:12:00", "sender": "Lena Vogt", "event": "subject",
                 "old": "Wandergruppe", "new": "Wandergruppe Harz",
                 "text": "Lena Vogt hat den Betreff von „Wandergruppe“ zu „Wandergruppe Harz“ geändert."},
            11: {"kind": "system", "at": "2023-05-03T08:13:00", "sender": "Lena Vogt", "event": "icon",
                 "text": "Lena Vogt hat das Gruppenbild geändert."},
            12: {"kind": "text", "at": "2023-05-03T08:20:00", "sender": "Jonas Keller", "text": "", "deleted": True},
            13: {"kind": "system", "at": "2023-05-03T08:21:00", "sender": "me", "event": "added",
                 "obj": "Mia Brandt", "text": "Du hast Mia Brandt hinzugefügt."},
            16: {"kind": "text", "at": "2023-05-03T08:25:00", "sender": "Lena Vogt", "text": "14 km laut Karte",
                 "edited": True},
            17: {"kind": "system", "at": "2023-05-04T21:10:00", "sender": "", "event": "security_code",
                 "obj": "Jonas Keller",
                 "text": "Deine Sicherheitsnummer für Jonas Keller hat sich geändert. Tippe, um mehr zu erfahren."},
            19: {"kind": "system", "at": "2023-05-06T18:30:00", "sender": "Mia Brandt", "event": "left",
                 "text": "Mia Brandt hat die Gruppe verlassen."},
            20: {"kind": "system", "at": "2023-05-06T18:31:00", "sender": "Lena Vogt", "event": "removed",
                 "obj": "Jonas Keller", "text": "Lena Vogt hat Jonas Keller entfernt."},
            21: {"kind": "system", "at": "2023-05-06T18:32:00", "sender": "Lena Vogt", "event": "timer",
                 "text": "Lena Vogt hat selbstlöschende Nachrichten aktiviert. Neue Nachrichten werden 7 Tage nach dem Senden aus diesem Chat verschwinden."},
        },
    },
    "Chat de WhatsApp con Carla Núñez.txt": {
        "chat": ("Carla Núñez", False, "carla núñez"),
        "records": {
            1: {"kind": "system", "at": "2024-03-05T09:41:00", "sender": "", "event": "e2e",
                "text": "Los mensajes y las llamadas están cifrados de extremo a extremo. Nadie fuera de este chat, ni siquiera WhatsApp, puede leerlos ni escucharlos. Toca para obtener más información."},
            4: {"kind": "media", "at": "2024-03-05T12:05:00", "sender": "Carla Núñez", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            5: {"kind": "text", "at": "2024-03-05T12:06:00", "sender": "Carla Núñez", "text": "", "deleted": True},
            6: {"kind": "text", "at": "2024-03-06T00:30:00", "sender": "Carla Núñez", "text": "¿Sigues despierto?"},
            7: {"kind": "text", "at": "2024-03-18T19:15:00", "sender": "me", "text": "", "deleted": True},
            8: {"kind": "text", "at": "2024-03-18T19:16:00", "sender": "Carla Núñez", "text": "Nos vemos a las 8",
                "edited": True},
            9: {"kind": "system", "at": "2024-03-18T19:20:00", "sender": "", "event": "security_code",
                "obj": "Carla Núñez",
                "text": "Tu código de seguridad con Carla Núñez cambió. Toca para obtener más información."},
            11: {"kind": "text", "at": "2024-03-19T00:10:00", "sender": "me",
                 "text": "ENCUESTA:\n¿Qué postre?\nOPCIÓN: Flan (2 votos)\nOPCIÓN: Tarta (1 voto)",
                 "poll": {"question": "¿Qué postre?", "options": [{"text": "Flan", "votes": 2},
                                                                  {"text": "Tarta", "votes": 1}]}},
            15: {"kind": "media", "at": "2024-03-19T00:12:00", "sender": "Carla Núñez", "text": "",
                 "media_type": "image", "files": [("IMG-20240319-WA0002.jpg", None)]},
        },
    },
    "Discussion WhatsApp avec Club de lecture 2024.txt": {
        "chat": ("Club de lecture 2024", True, "club de lecture"),
        "records": {
            2: {"kind": "system", "at": "2024-01-12T20:00:00", "sender": "Claire Dubois", "event": "created",
                "new": "Club de lecture", "text": "Claire Dubois a créé le groupe « Club de lecture »"},
            5: {"kind": "system", "at": "2024-01-12T20:02:00", "sender": "me", "event": "added",
                "obj": "Inès Laurent", "text": "Vous avez ajouté Inès Laurent"},
            6: {"kind": "text", "at": "2024-01-12T20:05:00", "sender": "Claire Dubois",
                "text": "Premier livre : « L'Étranger » ?"},
            8: {"kind": "media", "at": "2024-01-12T20:08:00", "sender": "Hugo Martin", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            9: {"kind": "text", "at": "2024-01-13T09:30:00", "sender": "Hugo Martin", "text": "", "deleted": True},
            10: {"kind": "system", "at": "2024-01-13T09:31:00", "sender": "Claire Dubois", "event": "subject",
                 "old": "Club de lecture", "new": "Club de lecture 2024",
                 "text": "Claire Dubois a modifié le sujet de « Club de lecture » en « Club de lecture 2024 »"},
            11: {"kind": "system", "at": "2024-01-13T09:32:00", "sender": "Claire Dubois",
                 "event": "description", "text": "Claire Dubois a modifié la description du groupe"},
            12: {"kind": "text", "at": "2024-01-13T09:40:00", "sender": "Hugo Martin",
                 "text": "Rendez-vous jeudi à 19 h", "edited": True},
            13: {"kind": "system", "at": "2024-01-14T10:00:00", "sender": "", "event": "security_code",
                 "obj": "Hugo Martin",
                 "text": "Votre code de sécurité avec Hugo Martin a changé. Appuyez pour en savoir plus."},
            14: {"kind": "system", "at": "2024-01-20T18:00:00", "sender": "Hugo Martin", "event": "left",
                 "text": "Hugo Martin est parti"},
            15: {"kind": "system", "at": "2024-01-20T18:05:00", "sender": "Claire Dubois", "event": "removed",
                 "obj": "Inès Laurent", "text": "Claire Dubois a retiré Inès Laurent"},
            16: {"kind": "system", "at": "2024-01-20T18:06:00", "sender": "Claire Dubois", "event": "timer",
                 "text": "Claire Dubois a activé les messages éphémères. Les nouveaux messages disparaîtront de cette discussion 7 jours après leur envoi."},
        },
    },
    "Conversa do WhatsApp com Rafael Costa.txt": {
        "chat": ("Rafael Costa", False, "rafael costa"),
        "records": {
            4: {"kind": "media", "at": "2024-04-03T10:21:00", "sender": "Rafael Costa", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            5: {"kind": "text", "at": "2024-04-03T10:22:00", "sender": "Rafael Costa", "text": "", "deleted": True},
            6: {"kind": "text", "at": "2024-04-03T10:23:00", "sender": "me", "text": "", "deleted": True},
            7: {"kind": "text", "at": "2024-04-04T18:00:00", "sender": "Rafael Costa", "text": "Chego às 13h",
                "edited": True},
            9: {"kind": "system", "at": "2024-04-15T09:00:00", "sender": "Rafael Costa", "event": "number_changed",
                "text": "Rafael Costa mudou seu número de telefone para um novo número. Toque para enviar uma mensagem ou adicionar o novo número."},
            10: {"kind": "system", "at": "2024-04-15T09:01:00", "sender": "", "event": "security_code",
                 "obj": "Rafael Costa", "text": "O seu código de segurança com Rafael Costa mudou. Toque para saber mais."},
        },
    },
    "WhatsApp Chat - Gita al lago.zip": {
        "chat": ("Gita al lago", True, "gita al lago"),
        "records": {
            1: {"kind": "system", "at": "2024-06-21T18:00:00", "sender": "", "event": "e2e",
                "text": "I messaggi e le chiamate sono crittografati end-to-end. Nessuno al di fuori di questa chat, nemmeno WhatsApp, può leggerli o ascoltarli."},
            2: {"kind": "system", "at": "2024-06-21T18:00:00", "sender": "Giulia Romano", "event": "created",
                "new": "Gita al lago", "text": "Giulia Romano ha creato il gruppo “Gita al lago”"},
            3: {"kind": "system", "at": "2024-06-21T18:00:01", "sender": "Giulia Romano", "event": "added",
                "text": "Giulia Romano ti ha aggiunto"},
            7: {"kind": "media", "at": "2024-06-21T18:03:05", "sender": "Marco Bianchi", "text": "",
                "media_type": "image", "files": [(None, None)]},
            8: {"kind": "media", "at": "2024-06-21T18:03:40", "sender": "Marco Bianchi", "text": "",
                "media_type": "image",
                "files": [("00000004-PHOTO-2024-06-21-18-03-40.jpg",
                           "WhatsApp Chat - Gita al lago.zip!00000004-PHOTO-2024-06-21-18-03-40.jpg")]},
            9: {"kind": "text", "at": "2024-06-21T18:05:00", "sender": "Giulia Romano", "text": "", "deleted": True},
            10: {"kind": "text", "at": "2024-06-21T18:06:00", "sender": "Marco Bianchi", "text": "Porto io il pranzo",
                 "edited": True},
            11: {"kind": "system", "at": "2024-06-22T07:00:00", "sender": "Giulia Romano", "event": "icon",
                 "text": "Giulia Romano ha cambiato l'immagine di questo gruppo"},
            12: {"kind": "system", "at": "2024-06-22T07:01:00", "sender": "me", "event": "subject",
                 "old": "Gita al lago", "new": "Gita al lago 🚣",
                 "text": "Hai cambiato l'oggetto da “Gita al lago” a “Gita al lago 🚣”"},
            13: {"kind": "system", "at": "2024-06-22T07:05:00", "sender": "Marco Bianchi", "event": "left",
                 "text": "Marco Bianchi è uscito"},
            14: {"call": "missed", "media": "voice", "at": "2024-06-22T07:06:00", "peer": "Giulia Romano"},
        },
    },
    "WhatsApp-chat met Daan Visser.txt": {
        "chat": ("Daan Visser", False, "daan visser"),
        "records": {
            1: {"kind": "system", "at": "2023-08-07T14:00:00", "sender": "", "event": "e2e",
                "text": "Berichten en oproepen worden end-to-end versleuteld. Niemand buiten deze chat, zelfs WhatsApp niet, kan ze lezen of beluisteren. Tik voor meer informatie."},
            4: {"kind": "media", "at": "2023-08-07T14:04:00", "sender": "Daan Visser", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            5: {"kind": "text", "at": "2023-08-07T14:05:00", "sender": "Daan Visser", "text": "", "deleted": True},
            6: {"kind": "text", "at": "2023-08-07T14:06:00", "sender": "me", "text": "", "deleted": True},
            7: {"kind": "text", "at": "2023-08-08T08:15:00", "sender": "Daan Visser", "text": "Ik ben er om 9:45",
                "edited": True},
            9: {"kind": "system", "at": "2023-08-20T19:00:00", "sender": "", "event": "security_code",
                "obj": "Daan Visser",
                "text": "Je beveiligingscode met Daan Visser is gewijzigd. Tik voor meer informatie."},
        },
    },
    "Чат WhatsApp с Дача 2023.txt": {
        "chat": ("Дача 2023", True, "дача"),
        "records": {
            2: {"kind": "system", "at": "2023-09-10T12:01:00", "sender": "Ольга Смирнова", "event": "created",
                "new": "Дача", "text": "Ольга Смирнова создала группу «Дача»"},
            4: {"kind": "system", "at": "2023-09-10T12:02:00", "sender": "Ольга Смирнова", "event": "added",
                "obj": "Иван Петров", "text": "Ольга Смирнова добавила Иван Петров"},
            7: {"kind": "media", "at": "2023-09-10T12:07:00", "sender": "Иван Петров", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            8: {"kind": "text", "at": "2023-09-10T12:08:00", "sender": "Иван Петров", "text": "", "deleted": True},
            9: {"kind": "system", "at": "2023-09-10T12:10:00", "sender": "Ольга Смирнова", "event": "subject",
                "old": "Дача", "new": "Дача 2023", "text": "Ольга Смирнова изменила тему с «Дача» на «Дача 2023»"},
            10: {"kind": "text", "at": "2023-09-11T09:00:00", "sender": "Ольга Смирнова", "text": "Выезжаем в 8:00",
                 "edited": True},
            11: {"kind": "system", "at": "2023-09-11T09:05:00", "sender": "Иван Петров", "event": "left",
                 "text": "Иван Петров вышел(-а)"},
            12: {"kind": "system", "at": "2023-09-13T20:00:00", "sender": "", "event": "security_code",
                 "obj": "Ольга Смирнова",
                 "text": "Ваш код безопасности для Ольга Смирнова изменился. Нажмите, чтобы узнать подробнее."},
        },
    },
    "Halı Saha Cumartesi ile WhatsApp Sohbeti.txt": {
        "chat": ("Halı Saha Cumartesi", True, "halı saha"),
        "records": {
            1: {"kind": "system", "at": "2023-10-01T21:00:00", "sender": "", "event": "e2e",
                "text": "Mesajlar ve aramalar uçtan uca şifrelidir. WhatsApp dahil olmak üzere bu sohbetin dışında bulunan hiç kimse mesajlarınızı okuyamaz ve aramalarınızı dinleyemez. Daha fazla bilgi edinmek için dokunun."},
            2: {"kind": "system", "at": "2023-10-01T21:00:00", "sender": "Emre Yılmaz", "event": "created",
                "new": "Halı Saha", "text": 'Emre Yılmaz, "Halı Saha" grubunu oluşturdu'},
            4: {"kind": "system", "at": "2023-10-01T21:01:00", "sender": "Emre Yılmaz", "event": "added",
                "obj": "Deniz Kaya", "text": "Emre Yılmaz, Deniz Kaya kişisini ekledi"},
            7: {"kind": "media", "at": "2023-10-01T21:04:00", "sender": "Deniz Kaya", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
            8: {"kind": "text", "at": "2023-10-01T21:05:00", "sender": "Deniz Kaya", "text": "", "deleted": True},
            9: {"kind": "text", "at": "2023-10-01T21:06:00", "sender": "me", "text": "", "deleted": True},
            10: {"kind": "text", "at": "2023-10-02T08:00:00", "sender": "Emre Yılmaz", "text": "Stada 17:30'da gelirim",
                 "edited": True},
            12: {"kind": "system", "at": "2023-10-03T10:00:00", "sender": "Emre Yılmaz", "event": "subject",
                 "old": "Halı Saha", "new": "Halı Saha Cumartesi",
                 "text": 'Emre Yılmaz, grup konusunu "Halı Saha" iken "Halı Saha Cumartesi" olarak değiştirdi'},
            13: {"kind": "system", "at": "2023-10-15T10:00:00", "sender": "", "event": "security_code",
                 "obj": "Deniz Kaya",
                 "text": "Deniz Kaya ile güvenlik kodunuz değişti. Daha fazla bilgi edinmek için dokunun."},
            14: {"kind": "system", "at": "2023-10-16T11:00:00", "sender": "Deniz Kaya", "event": "left",
                 "text": "Deniz Kaya ayrıldı"},
        },
    },
    "WhatsApp Chat with Nora Quinn.txt": {
        "chat": ("Nora Quinn", False, "nora quinn"),
        "records": {
            1: {"kind": "text", "at": "2013-12-24T18:30:12", "sender": "me", "text": "Merry Christmas!"},
            3: {"kind": "text", "at": "2013-12-24T18:32:05", "sender": "Nora Quinn",
                "text": "Dinner at 8:\nthe usual place"},
            5: {"kind": "media", "at": "2013-12-24T18:33:00", "sender": "me", "text": "",
                "media_type": "image", "files": [(None, None)]},
            6: {"kind": "text", "at": "2013-12-26T09:00:00", "sender": "Nora Quinn", "text": "Leftovers at mine?"},
        },
    },
    "WhatsApp Chat with Yuki Tanaka.txt": {
        "chat": ("Yuki Tanaka", False, "yuki tanaka"),
        "records": {
            1: {"kind": "text", "at": "2024-05-06T14:07:00", "sender": "Yuki Tanaka",
                "text": "Are the cherry blossoms still out?"},
            4: {"kind": "media", "at": "2024-05-13T19:45:00", "sender": "Yuki Tanaka", "text": "",
                "media_type": "unknown", "files": [(None, None)]},
        },
    },
    "WhatsApp Chat with Priya Shah.txt": {
        "chat": ("Priya Shah", False, "priya shah"),
        "records": {
            1: {"kind": "text", "at": "2024-03-14T09:05:00", "sender": "Priya Shah",
                "text": "Pi day! Bringing a pie to the office"},
            2: {"kind": "text", "at": "2024-03-14T09:07:00", "sender": "me", "text": "Apple please\n\nor cherry"},
            5: {"kind": "text", "at": "2024-03-14T12:30:00", "sender": "Priya Shah", "text": "It's here 🥧"},
            6: {"kind": "text", "at": "2024-03-15T08:00:00", "sender": "Priya Shah",
                "text": "Thanks for coming yesterday"},
        },
    },
    "WhatsApp Chat with Tom Becker.txt": {
        "chat": ("Tom Becker", False, "tom becker"),
        "records": {
            1: {"kind": "text", "at": "2024-03-14T09:05:33", "sender": "Tom Becker", "text": "Guten Morgen!"},
            2: {"kind": "text", "at": "2024-03-14T09:06:01", "sender": "me",
                "text": "Morning Tom\nMeeting moved to 11:00"},
            4: {"kind": "text", "at": "2024-03-14T09:06:59", "sender": "Tom Becker", "text": "👍"},
        },
    },
    "WhatsApp Chat with Lia Moreau.txt": {
        "chat": ("Lia Moreau", False, "lia moreau"),
        "records": {
            1: {"kind": "text", "at": "2024-01-02T10:00:00", "sender": "Lia Moreau", "text": "Happy new year again!"},
            5: {"kind": "text", "at": "2024-02-01T12:00:00", "sender": "me", "text": "February already"},
        },
    },
}


def test_every_fixture_has_a_golden_case() -> None:
    assert sorted(GOLDEN) == ALL_FIXTURES


def test_fixtures_match_their_builder() -> None:
    built = build()
    assert sorted(built) == ALL_FIXTURES
    for name, data in built.items():
        assert (FIXTURES / name).read_bytes() == data, f"{name}: run tests/build_whatsapp_fixtures.py"


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden(name: str) -> None:
    case = GOLDEN[name]
    path = FIXTURES / name
    assert WhatsAppImporter().detect(path)
    records = read(path)
    chat = chat_of(records)
    assert (chat.name, chat.group, chat.key) == case["chat"]
    assert chat.id == chat_id("whatsapp", chat.key)
    assert "me" not in chat.participants and "Sam Rivera" not in chat.participants
    for line, expected in case["records"].items():
        assert project(by_line(records, line)) == expected, f"{name} line {line}"
    assert problems(records) == []
    recs = messages(records)
    assert all(r.chat_id == chat.id for r in recs)
    assert len({r.id for r in recs}) == len(recs), "ids are unique within an export"


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_reimport_gives_the_same_records(name: str) -> None:
    first, again = read(FIXTURES / name), read(FIXTURES / name)
    assert [(r.id, r.text if isinstance(r, Message) else r.direction) for r in messages(first)] == [
        (r.id, r.text if isinstance(r, Message) else r.direction) for r in messages(again)
    ]


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_raw_keeps_the_exported_lines(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    if name.endswith(".zip"):
        import io
        import zipfile

        data = zipfile.ZipFile(io.BytesIO(data)).read("_chat.txt")
    text = data.decode("utf-8")
    records = messages(read(FIXTURES / name))
    end = "\n" if text.endswith("\n") else ""
    assert "\n".join(r.raw for r in records) + end == text, "raw records put together give the file back"


def test_owner_names_and_you_become_me() -> None:
    records = read(FIXTURES / "WhatsApp Chat with Book Club 2024.txt")
    senders = {r.sender for r in messages(records)}
    assert "me" in senders and "Sam Rivera" not in senders and "You" not in senders


def test_without_owner_names_the_names_stay() -> None:
    records = read(FIXTURES / "WhatsApp Chat with Book Club 2024.txt", owner_names=[])
    assert by_line(records, 19).sender == "Sam Rivera"
    assert by_line(records, 6).sender == "me", '"You added ..." is the owner whatever the config'


def test_one_to_one_owner_is_guessed_from_the_file_name() -> None:
    records = read(FIXTURES / "WhatsApp Chat with Anna Berg.txt", owner_names=[])
    assert by_line(records, 3).sender == "me"
    assert any("took 'Sam Rivera' to be the owner" in n for n in state_of(records).notes)


def test_ids_do_not_depend_on_owner_or_time_zone() -> None:
    path = FIXTURES / "WhatsApp Chat with Anna Berg.txt"
    a = [r.id for r in messages(read(path))]
    b = [r.id for r in messages(read(path, owner_names=[], timezone=ZoneInfo("Asia/Tokyo")))]
    assert a == b


def test_times_are_read_in_the_given_zone() -> None:
    path = FIXTURES / "WhatsApp Chat with Anna Berg.txt"
    berlin = by_line(read(path, timezone=ZoneInfo("Europe/Berlin")), 1)
    assert berlin.sent_at.utcoffset() == timedelta(hours=1)
    assert berlin.sent_at.astimezone(timezone.utc).isoformat() == "2024-02-14T08:12:00+00:00"
    default = by_line(read(path), 1)
    assert default.sent_at.astimezone(timezone.utc).isoformat() == "2024-02-14T09:12:00+00:00"


def test_guessed_date_order_is_reported() -> None:
    notes = state_of(read(FIXTURES / "WhatsApp Chat with Lia Moreau.txt")).notes
    assert any("date order guessed as month-first (M/D/Y)" in n for n in notes)
    notes = state_of(read(FIXTURES / "WhatsApp Chat with Anna Berg.txt")).notes
    assert not any("date order" in n for n in notes), "a day above 12 decides the order"


def test_identical_messages_in_one_minute_both_survive() -> None:
    records = read(FIXTURES / "WhatsApp Chat with Anna Berg.txt")
    a, b = by_line(records, 11), by_line(records, 12)
    assert (a.text, a.sent_at) == (b.text, b.sent_at) and a.id != b.id


def test_group_rename_keeps_the_first_name_as_key() -> None:
    chat = chat_of(read(FIXTURES / "WhatsApp Chat with Book Club 2024.txt"))
    assert (chat.name, chat.key) == ("Book Club 2024", "book club")
    aliases = state_of(read(FIXTURES / "WhatsApp Chat with Book Club 2024.txt")).state["chat_aliases"]
    assert aliases == {"book club": "book club", "book club: autumn": "book club",
                       "book club 2024": "book club"}
