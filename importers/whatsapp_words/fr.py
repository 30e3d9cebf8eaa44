"""French. Sources: see SOURCES.md ("fr")."""

WORDS = {
    "language": "French",
    "media": {
        "unknown": ["<Médias omis>", "<Fichier omis>"],
        "image": ["image absente"],
        "video": ["vidéo absente", "vídeo absente"],
        "audio": ["audio omis", "audio absent"],
        "sticker": ["sticker omis", "autocollant omis"],
        "gif": ["GIF retiré"],
        "document": ["document omis"],
        "contact": ["carte de contact omise"],
    },
    "file_attached": ["fichier joint"],
    "attached": ["pièce jointe"],
    "deleted": ["Ce message a été supprimé", "Vous avez supprimé ce message",
                "Ce message a été supprimé par un administrateur"],
    "deleted_prefix": ["Ce message a été supprimé par "],
    "edited": ["Ce message a été modifié"],
    "missed": {"voice": ["Appel vocal manqué"], "video": ["Appel vidéo manqué"]},
    "location": ["Position", "localisation"],
    "live_location": ["Position en direct partagée"],
    "poll": ["SONDAGE"],
    "option": ["OPTION"],
    "you": ["vous", "tu"],
    "events": [
        ("business", "Cette discussion est avec un compte professionnel*"),
    ],
}
