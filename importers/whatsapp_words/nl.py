"""Dutch. Sources: see SOURCES.md ("nl")."""

WORDS = {
    "language": "Dutch",
    "media": {
        "unknown": ["<Media weggelaten>"],
        "image": ["afbeelding weggelaten"],
        "video": ["video weggelaten"],
        "audio": ["audio weggelaten"],
        "sticker": ["sticker weggelaten"],
        "gif": ["GIF weggelaten"],
        "document": ["document weggelaten"],
        "contact": ["contactkaart weggelaten"],
    },
    "file_attached": ["bestand bijgevoegd"],
    "attached": ["bijgevoegd"],
    "deleted": ["Dit bericht is verwijderd", "Je hebt dit bericht verwijderd",
                "U heeft dit bericht verwijderd", "Dit bericht is verwijderd door een beheerder"],
    "deleted_prefix": ["Dit bericht is verwijderd door "],
    "edited": ["Dit bericht is bewerkt", "Dit bericht is gewijzigd"],
    "missed": {"voice": ["Gemiste spraakoproep", "Gemist spraakgesprek"],
               "video": ["Gemiste video-oproep", "Gemist videogesprek"]},
    "location": ["locatie"],
    "live_location": ["Live locatie gedeeld"],
    "poll": ["PEILING"],
    "option": ["OPTIE"],
    "you": ["je", "jij", "u", "jou"],
    "events": [],
}
