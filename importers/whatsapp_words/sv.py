"""Swedish. Sources: see SOURCES.md ("sv")."""

WORDS = {
    "language": 'Swedish',
    'media': {
        'unknown': ['<media utelämnat>', '<Media har utelämnats>'],
        'image': ['bild utelämnad'],
        'video': ['video utelämnad'],
        'audio': ['ljud utelämnat'],
        'sticker': ['klistermärke utelämnat'],
        'gif': ['GIF utelämnad'],
        'document': ['dokument utelämnat'],
        'contact': ['kontaktkort utelämnat'],
    },
    'file_attached': ['fil bifogad'],
    'deleted': ['Det här meddelandet raderades', 'Du raderade det här meddelandet'],
    'edited': ['Det här meddelandet har redigerats'],
    'missed': {
        'voice': ['Missat röstsamtal'],
        'video': ['Missat videosamtal'],
    },
    'location': ['plats'],
    'poll': ['OMRÖSTNING'],
    'option': ['ALTERNATIV'],
    'you': ['du'],
    "events": [
        ('e2e', 'Meddelanden och samtal är end-to-end-krypterade*'),
        ('created', '{actor} skapade gruppen "{new}"'),
        ('added', '{actor} gick med via gruppens inbjudningslänk'),
        ('added', '{actor} lade till {obj}'),
        ('removed', '{actor} tog bort {obj}'),
        ('left', '{actor} lämnade[[| gruppen]]'),
        ('subject', '{actor} ändrade [[ämnet|gruppnamnet]] från "{old}" till "{new}"'),
        ('icon', '{actor} ändrade gruppens ikon'),
        ('description', '{actor} ändrade gruppbeskrivningen'),
        ('security_code', 'Din säkerhetskod med {obj} har ändrats*'),
    ],
}
