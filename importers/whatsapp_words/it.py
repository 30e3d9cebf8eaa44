"""Italian. Sources: see SOURCES.md ("it")."""

WORDS = {
    "language": "Italian",
    "media": {
        "unknown": ["<Media omessi>", "<Media omesso>"],
        "image": ["immagine omessa"],
        "video": ["video omesso"],
        "audio": ["audio omesso"],
        "sticker": ["sticker omesso", "adesivo omesso"],
        "gif": ["GIF omessa", "GIF omesso"],
        "document": ["documento omesso"],
        "contact": ["scheda contatto omessa"],
    },
    "file_attached": ["file allegato"],
    "attached": ["allegato"],
    "deleted": ["Questo messaggio è stato eliminato", "Hai eliminato questo messaggio",
                "Questo messaggio è stato eliminato da un amministratore"],
    "deleted_prefix": ["Questo messaggio è stato eliminato da "],
    "edited": ["Questo messaggio è stato modificato"],
    "missed": {"voice": ["Chiamata vocale persa"], "video": ["Videochiamata persa"]},
    "location": ["posizione"],
    "live_location": ["Posizione in tempo reale condivisa"],
    "poll": ["SONDAGGIO"],
    "option": ["OPZIONE"],
    "you": ["tu", "te"],
    "events": [
        ("business", "Questa chat è con un account business*"),
        ("added", "{actor} è [[entrato|entrata|entrato/a]] usando il link d'invito[[ al gruppo|]]*"),
        ("added", "{actor} è stat[[o|a]] aggiunt[[o|a]]"),
        ("number_changed", "{actor} ha cambiato numero in*"),
        ("number_changed", "{actor} è stato cambiato con*"),
    ],
}
