"""Croatian. Sources: see SOURCES.md ("hr")."""

WORDS = {
    "language": 'Croatian',
    'media': {
        'unknown': ['<medijski zapis izostavljen>'],
        'image': ['slika izostavljena'],
        'video': ['videozapis izostavljen'],
        'audio': ['audiozapis izostavljen'],
        'sticker': ['naljepnica izostavljena'],
        'gif': ['GIF izostavljen'],
        'document': ['dokument izostavljen'],
        'contact': ['kartica kontakta izostavljena'],
    },
    'file_attached': ['datoteka je priložena'],
    'deleted': ['Ova poruka je izbrisana', 'Izbrisali ste ovu poruku'],
    'edited': ['Ova poruka je uređena'],
    'missed': {
        'voice': ['Propušteni glasovni poziv'],
        'video': ['Propušteni videopoziv'],
    },
    'location': ['lokacija'],
    'you': ['vi'],
    "events": [
        ('e2e', 'Poruke i pozivi su sveobuhvatno šifrirani*'),
        ('created', '{actor} [[je kreirao|je kreirala|je stvorio|je stvorila]] grupu "{new}"'),
        ('added', '{actor} se [[pridružio|pridružila]] putem poveznice*'),
        ('added', '{actor} [[je dodao|je dodala]] {obj}'),
        ('removed', '{actor} [[je uklonio|je uklonila]] {obj}'),
        ('left', '{actor} [[je izašao|je izašla]]'),
        ('subject', '{actor} [[je promijenio|je promijenila]] temu iz "{old}" u "{new}"'),
        ('icon', '{actor} [[je promijenio|je promijenila]] ikonu ove grupe'),
        ('description', '{actor} [[je promijenio|je promijenila]] opis grupe'),
        ('security_code', 'Vaš sigurnosni kod s {obj} je promijenjen*'),
    ],
}
