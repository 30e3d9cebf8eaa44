"""Turkish. Sources: see SOURCES.md ("tr")."""

WORDS = {
    "language": "Turkish",
    "media": {
        "unknown": ["<Medya dahil edilmedi>", "<Medya atlanmış>"],
        "image": ["görüntü dahil edilmedi"],
        "video": ["video dahil edilmedi"],
        "audio": ["ses dahil edilmedi"],
        "sticker": ["çıkartma dahil edilmedi"],
        "gif": ["GIF dahil edilmedi"],
        "document": ["belge dahil edilmedi"],
        "contact": ["kişi kartı dahil edilmedi"],
    },
    "file_attached": ["dosya ekli", "dosya eklendi"],
    "attached": ["ek"],
    "deleted": ["Bu mesaj silindi", "Bu mesajı sildiniz", "Bu mesajı sildin",
                "Bu mesaj yönetici tarafından silindi"],
    "deleted_prefix": [],
    "edited": ["Bu mesaj düzenlendi"],
    "missed": {"voice": ["Cevapsız sesli arama"], "video": ["Cevapsız görüntülü arama"]},
    "location": ["konum"],
    "live_location": ["Canlı konum paylaşıldı"],
    "poll": ["ANKET"],
    "option": ["SEÇENEK"],
    "you": ["siz", "sen", "sizi", "seni"],
    "events": [],
}
