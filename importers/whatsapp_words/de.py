"""German. Sources: see SOURCES.md ("de")."""

WORDS = {
    "language": "German",
    "media": {
        "unknown": ["<Medien ausgeschlossen>", "<Medien weggelassen>"],
        "image": ["Bild weggelassen"],
        "video": ["Video weggelassen"],
        "audio": ["Audio weggelassen"],
        "sticker": ["Sticker weggelassen"],
        "gif": ["GIF weggelassen"],
        "document": ["Dokument weggelassen"],
        "contact": ["Kontaktkarte weggelassen"],
        "view_once": ["Einmal ansehen-Foto weggelassen"],
    },
    "file_attached": ["Datei angehängt"],
    "attached": ["Anhang"],
    "deleted": ["Diese Nachricht wurde gelöscht", "Du hast diese Nachricht gelöscht",
                "Diese Nachricht wurde von einem Admin gelöscht"],
    "deleted_prefix": ["Diese Nachricht wurde von "],
    "edited": ["Diese Nachricht wurde bearbeitet"],
    "missed": {"voice": ["Verpasster Sprachanruf", "Verpasster Gruppensprachanruf"],
               "video": ["Verpasster Videoanruf", "Verpasster Gruppenvideoanruf"]},
    "location": ["Standort"],
    "live_location": ["Live-Standort wird geteilt"],
    "poll": ["UMFRAGE"],
    "option": ["OPTION"],
    "you": ["du", "dich"],
    "events": [
        ("business", "Dies ist ein Chat mit einem Unternehmenskonto*"),
        ("removed", "{actor} hat dich entfernt"),
    ],
}
