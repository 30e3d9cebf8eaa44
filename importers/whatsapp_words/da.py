"""Danish. Sources: see SOURCES.md ("da")."""

WORDS = {
    "language": 'Danish',
    'media': {
        'unknown': ['<medier udeladt>', '<Mediefil udeladt>'],
        'image': ['billede udeladt'],
        'video': ['video udeladt'],
        'audio': ['lyd udeladt'],
        'sticker': ['sticker udeladt'],
        'gif': ['GIF udeladt'],
        'document': ['dokument udeladt'],
        'contact': ['kontaktkort udeladt'],
    },
    'file_attached': ['fil vedhæftet'],
    'deleted': ['Denne besked blev slettet', 'Du slettede denne besked'],
    'edited': ['Denne besked er blevet redigeret'],
    'missed': {
        'voice': ['Ubesvaret taleopkald'],
        'video': ['Ubesvaret videoopkald'],
    },
    'location': ['placering'],
    'you': ['du'],
    "events": [
        ('e2e', 'Beskeder og opkald er end-to-end-krypterede*'),
        ('created', '{actor} oprettede gruppen "{new}"'),
        ('added', '{actor} blev medlem via gruppens invitationslink'),
        ('added', '{actor} tilføjede {obj}'),
        ('removed', '{actor} fjernede {obj}'),
        ('left', '{actor} forlod[[| gruppen]]'),
        ('subject', '{actor} ændrede emnet fra "{old}" til "{new}"'),
        ('icon', '{actor} ændrede gruppens ikon'),
        ('description', '{actor} ændrede gruppebeskrivelsen'),
        ('security_code', 'Din sikkerhedskode med {obj} er ændret*'),
    ],
}
