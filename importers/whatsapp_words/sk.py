"""Slovak. Sources: see SOURCES.md ("sk")."""

WORDS = {
    "language": 'Slovak',
    'media': {
        'unknown': ['<Médiá vynechané>'],
        'image': ['obrázok vynechaný'],
        'video': ['video vynechané'],
        'audio': ['zvuk vynechaný'],
        'sticker': ['nálepka vynechaná'],
        'gif': ['GIF vynechaný'],
        'document': ['dokument vynechaný'],
        'contact': ['kontaktná karta vynechaná'],
    },
    'file_attached': ['súbor priložený'],
    'deleted': ['Táto správa bola odstránená', 'Túto správu ste odstránili'],
    'edited': ['Táto správa bola upravená'],
    'missed': {
        'voice': ['Zmeškaný hlasový hovor'],
        'video': ['Zmeškaný videohovor'],
    },
    'location': ['poloha'],
    'you': ['vy'],
    "events": [
        ('e2e', 'Správy a hovory sú šifrované od začiatku do konca*'),
        ('created', '{actor} [[vytvoril(a)|vytvoril|vytvorila]] skupinu "{new}"'),
        ('added', '{actor} sa [[pripojil(a)|pripojil|pripojila]] pomocou odkazu*'),
        ('added', '{actor} [[pridal(a)|pridal|pridala]] {obj}'),
        ('removed', '{actor} [[odstránil(a)|odstránil|odstránila]] {obj}'),
        ('left', '{actor} [[odišiel(-la)|odišiel|odišla]]'),
        ('subject', '{actor} [[zmenil(a)|zmenil|zmenila]] predmet z "{old}" na "{new}"'),
        ('icon', '{actor} [[zmenil(a)|zmenil|zmenila]] ikonu tejto skupiny'),
        ('description', '{actor} [[zmenil(a)|zmenil|zmenila]] popis skupiny'),
        ('security_code', 'Váš bezpečnostný kód s {obj} sa zmenil*'),
    ],
}
