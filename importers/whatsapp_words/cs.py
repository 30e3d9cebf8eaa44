"""Czech. Sources: see SOURCES.md ("cs")."""

WORDS = {
    "language": 'Czech',
    'media': {
        'unknown': ['<média vynechány>', '< Média vynechána >', '<Média vynechána>'],
        'image': ['obrázek vynechán'],
        'video': ['video vynecháno'],
        'audio': ['zvuk vynechán'],
        'sticker': ['nálepka vynechána'],
        'gif': ['GIF vynechán'],
        'document': ['dokument vynechán'],
        'contact': ['karta kontaktu vynechána'],
    },
    'file_attached': ['soubor byl přiložen'],
    'deleted': ['Tato zpráva byla smazána', 'Smazali jste tuto zprávu', 'Tuto zprávu jste smazali'],
    'edited': ['Tato zpráva byla upravena'],
    'missed': {
        'voice': ['Zmeškaný hlasový hovor'],
        'video': ['Zmeškaný videohovor'],
    },
    'location': ['poloha'],
    'poll': ['ANKETA'],
    'option': ['MOŽNOST'],
    'you': ['vy'],
    "events": [
        ('e2e', 'Zprávy a hovory jsou koncově šifrované*'),
        ('created', '{actor} [[vytvořil(a)|vytvořil|vytvořila]] skupinu "{new}"'),
        ('added', '{actor} se [[připojil(a)|připojil|připojila]] pomocí odkazu*'),
        ('added', '{actor} [[přidal(a)|přidal|přidala]] {obj}'),
        ('removed', '{actor} [[odebral(a)|odebral|odebrala]] {obj}'),
        ('left', '{actor} [[odešel/odešla|odešel|odešla|opustil(a) skupinu]]'),
        ('subject', '{actor} [[změnil(a)|změnil|změnila]] [[předmět|název skupiny]] z "{old}" na "{new}"'),
        ('icon', '{actor} [[změnil(a)|změnil|změnila]] ikonu této skupiny'),
        ('description', '{actor} [[změnil(a)|změnil|změnila]] popis skupiny'),
        ('security_code', 'Váš bezpečnostní kód s {obj} se změnil*'),
    ],
}
