"""Norwegian Bokmål. Sources: see SOURCES.md ("nb")."""

WORDS = {
    "language": 'Norwegian Bokmål',
    'media': {
        'unknown': ['<media utelatt>', '<Uten vedlegg>'],
        'image': ['bilde utelatt'],
        'video': ['video utelatt'],
        'audio': ['lyd utelatt'],
        'sticker': ['klistremerke utelatt'],
        'gif': ['GIF utelatt'],
        'document': ['dokument utelatt'],
        'contact': ['kontaktkort utelatt'],
    },
    'file_attached': ['fil vedlagt'],
    'deleted': ['Denne meldingen ble slettet', 'Du slettet denne meldingen'],
    'edited': ['Denne meldingen er redigert'],
    'missed': {
        'voice': ['Tapt taleanrop'],
        'video': ['Tapt videoanrop'],
    },
    'location': ['posisjon'],
    'you': ['du'],
    "events": [
        ('e2e', 'Meldinger og anrop er ende-til-ende-kryptert*'),
        ('created', '{actor} opprettet gruppen "{new}"'),
        ('added', '{actor} ble med via invitasjonslenken*'),
        ('added', '{actor} la til {obj}'),
        ('removed', '{actor} fjernet {obj}'),
        ('left', '{actor} forlot[[| gruppen]]'),
        ('subject', '{actor} endret emnet fra "{old}" til "{new}"'),
        ('icon', '{actor} endret ikonet for denne gruppen'),
        ('description', '{actor} endret gruppebeskrivelsen'),
        ('security_code', 'Sikkerhetskoden din med {obj} er endret*'),
    ],
}
