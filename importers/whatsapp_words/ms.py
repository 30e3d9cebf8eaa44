"""Malay. Sources: see SOURCES.md ("ms")."""

WORDS = {
    "language": 'Malay',
    'media': {
        'unknown': ['<Media dikecualikan>', '<Media disingkirkan>'],
        'image': ['imej dikecualikan'],
        'video': ['video dikecualikan'],
        'audio': ['audio dikecualikan'],
        'sticker': ['pelekat dikecualikan'],
        'gif': ['GIF dikecualikan'],
        'document': ['dokumen dikecualikan'],
        'contact': ['kad kenalan dikecualikan'],
    },
    'file_attached': ['fail dilampirkan'],
    'deleted': ['Mesej ini telah dipadam', 'Anda telah memadam mesej ini'],
    'edited': ['Mesej ini telah disunting'],
    'missed': {
        'voice': ['Panggilan suara terlepas'],
        'video': ['Panggilan video terlepas'],
    },
    'location': ['lokasi'],
    'you': ['anda'],
    "events": [
        ('e2e', 'Mesej dan panggilan disulitkan hujung ke hujung*'),
        ('created', '{actor} mencipta kumpulan "{new}"'),
        ('added', '{actor} menyertai menggunakan pautan jemputan kumpulan ini'),
        ('added', '{actor} menambah {obj}'),
        ('removed', '{actor} mengeluarkan {obj}'),
        ('left', '{actor} keluar'),
        ('subject', '{actor} menukar subjek daripada "{old}" kepada "{new}"'),
        ('subject', '{actor} menukar subjek kepada "{new}"'),
        ('icon', '{actor} menukar ikon kumpulan ini'),
        ('description', '{actor} menukar perihalan kumpulan'),
        ('security_code', 'Kod keselamatan anda dengan {obj} telah berubah*'),
    ],
}
