"""Catalan. Sources: see SOURCES.md ("ca")."""

WORDS = {
    "language": 'Catalan',
    'media': {
        'unknown': ['<fitxers multimèdia omesos>', '<Mitjans omesos>'],
        'image': ['imatge omesa'],
        'video': ['vídeo omès'],
        'audio': ['àudio omès'],
        'sticker': ['adhesiu omès'],
        'gif': ['GIF omès'],
        'document': ['document omès'],
        'contact': ['targeta de contacte omesa'],
    },
    'file_attached': ['fitxer adjunt'],
    'deleted': ["S'ha suprimit aquest missatge", 'Has suprimit aquest missatge'],
    'edited': ["S'ha editat aquest missatge"],
    'missed': {
        'voice': ['Trucada de veu perduda'],
        'video': ['Videotrucada perduda'],
    },
    'location': ['ubicació'],
    'you': ['tu'],
    "events": [
        ('e2e', "Els missatges i les trucades estan xifrats d'extrem a extrem*"),
        ('created', '{actor} ha creat el grup "{new}"'),
        ('added', "{actor} s'ha unit mitjançant l'enllaç d'invitació*"),
        ('added', '{actor} ha afegit {obj}'),
        ('removed', '{actor} ha eliminat {obj}'),
        ('left', '{actor} ha sortit'),
        ('subject', '{actor} ha canviat l\'assumpte de "{old}" a "{new}"'),
        ('icon', "{actor} ha canviat la icona d'aquest grup"),
        ('description', '{actor} ha canviat la descripció del grup'),
        ('security_code', 'El teu codi de seguretat amb {obj} ha canviat*'),
    ],
}
