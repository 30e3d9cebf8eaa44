"""Hungarian. Sources: see SOURCES.md ("hu")."""

WORDS = {
    "language": 'Hungarian',
    'media': {
        'unknown': ['<média elhagyva>', '<Hiányzó médiafájl>'],
        'image': ['kép kihagyva'],
        'video': ['videó kihagyva'],
        'audio': ['hang kihagyva'],
        'sticker': ['matrica kihagyva'],
        'gif': ['GIF kihagyva'],
        'document': ['dokumentum kihagyva'],
        'contact': ['névjegykártya kihagyva'],
    },
    'file_attached': ['fájl csatolva'],
    'deleted': ['Ez az üzenet törölve lett', 'Törölted ezt az üzenetet'],
    'edited': ['Ez az üzenet szerkesztve lett'],
    'missed': {
        'voice': ['Nem fogadott hanghívás'],
        'video': ['Nem fogadott videohívás'],
    },
    'location': ['hely'],
    'you': ['te'],
    "events": [
        ('e2e', '*végpontok közötti titkosítás*'),
        ('created', '{actor} létrehozta a(z) "{new}" csoportot'),
        ('added', '{actor} csatlakozott a csoport meghívó linkjével'),
        ('added', '{actor} hozzáadta {obj} tagot'),
        ('removed', '{actor} eltávolította {obj} tagot'),
        ('left', '{actor} kilépett'),
        ('subject', '{actor} a csoport nevét "{old}" helyett "{new}" névre változtatta'),
        ('icon', '{actor} módosította a csoport ikonját'),
        ('description', '{actor} módosította a csoport leírását'),
        ('security_code', 'A biztonsági kódod {obj} partnerrel megváltozott*'),
    ],
}
