"""Romanian. Sources: see SOURCES.md ("ro")."""

WORDS = {
    "language": 'Romanian',
    'media': {
        'unknown': ['<conținut media omis>'],
        'image': ['imagine omisă'],
        'video': ['videoclip omis'],
        'audio': ['audio omis'],
        'sticker': ['autocolant omis'],
        'gif': ['GIF omis'],
        'document': ['document omis'],
        'contact': ['card de contact omis'],
    },
    'file_attached': ['fișier atașat'],
    'deleted': ['Acest mesaj a fost șters', 'Ai șters acest mesaj'],
    'edited': ['Acest mesaj a fost editat'],
    'missed': {
        'voice': ['Apel vocal pierdut'],
        'video': ['Apel video pierdut'],
    },
    'location': ['locație'],
    'you': ['tu'],
    "events": [
        ('e2e', 'Mesajele și apelurile sunt criptate integral*'),
        ('created', '{actor} a creat grupul "{new}"'),
        ('added', '{actor} s-a alăturat folosind linkul de invitație*'),
        ('added', '{actor} [[a adăugat pe|l-a adăugat pe|a adăugat-o pe|a adăugat]] {obj}'),
        ('removed', '{actor} [[a eliminat pe|l-a eliminat pe|a eliminat]] {obj}'),
        ('left', '{actor} a ieșit'),
        ('subject', '{actor} a schimbat subiectul din "{old}" în "{new}"'),
        ('icon', '{actor} a schimbat pictograma acestui grup'),
        ('description', '{actor} a schimbat descrierea grupului'),
        ('security_code', 'Codul tău de securitate cu {obj} s-a schimbat*'),
    ],
}
