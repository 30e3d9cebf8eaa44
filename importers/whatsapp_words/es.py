"""Spanish. Sources: see SOURCES.md ("es")."""

WORDS = {
    "language": "Spanish",
    "media": {
        "unknown": ["<Multimedia omitido>", "<Archivo omitido>"],
        "image": ["imagen omitida"],
        "video": ["video omitido", "vídeo omitido"],
        "audio": ["audio omitido"],
        "sticker": ["sticker omitido"],
        "gif": ["GIF omitido"],
        "document": ["documento omitido"],
        "contact": ["tarjeta de contacto omitida"],
        "view_once": ["foto de visualización única omitida"],
    },
    "file_attached": ["archivo adjunto"],
    "attached": ["adjunto"],
    "deleted": ["Se eliminó este mensaje", "Eliminaste este mensaje", "Este mensaje fue eliminado",
                "Este mensaje fue eliminado por un administrador"],
    "deleted_prefix": ["Este mensaje fue eliminado por "],
    "edited": ["Se editó este mensaje"],
    "missed": {"voice": ["Llamada perdida", "Llamada de voz perdida"],
               "video": ["Videollamada perdida"]},
    "location": ["ubicación"],
    "live_location": ["Ubicación en tiempo real compartida"],
    "poll": ["ENCUESTA"],
    "option": ["OPCIÓN"],
    "you": ["tú", "tu", "te", "usted"],
    "events": [
        ("business", "Este chat es con una cuenta de empresa*"),
    ],
}
