"""Polish. Sources: see SOURCES.md ("pl")."""

WORDS = {
    "language": 'Polish',
    'media': {
        'unknown': ['<pominięto multimedia>', '<pliki pominięto>'],
        'image': ['pominięto obraz'],
        'video': ['pominięto wideo'],
        'audio': ['pominięto dźwięk'],
        'sticker': ['pominięto naklejkę'],
        'gif': ['pominięto GIF'],
        'document': ['pominięto dokument'],
        'contact': ['pominięto wizytówkę'],
    },
    'file_attached': ['załączono plik'],
    'deleted': ['Wiadomość została usunięta', 'Ta wiadomość została usunięta', 'Usunięto tę wiadomość', 'Usunąłeś tę wiadomość', 'Usunęłaś tę wiadomość'],
    'edited': ['Ta wiadomość została edytowana'],
    'missed': {
        'voice': ['Nieodebrane połączenie głosowe'],
        'video': ['Nieodebrane połączenie wideo'],
    },
    'location': ['lokalizacja'],
    'poll': ['ANKIETA'],
    'option': ['OPCJA'],
    'you': ['ty', 'ciebie'],
    "events": [
        ('e2e', 'Wiadomości i połączenia są szyfrowane [[end-to-end|metodą end-to-end]]*'),
        ('created', '{actor} [[utworzył(a)|utworzył|utworzyła]] grupę "{new}"'),
        ('added', '{actor} [[dołączył(a)|dołączył|dołączyła]] [[przez|za pomocą]] link[[u|]] zaproszenia*'),
        ('added', '{actor} [[dodał(a)|dodał|dodała]] {obj}'),
        ('removed', '{actor} [[usunął(-ęła)|usunął|usunęła]] {obj}'),
        ('left', '{actor} [[opuścił(a) grupę|opuścił grupę|opuściła grupę|wyszedł|wyszła]]'),
        ('subject', '{actor} [[zmienił(a)|zmienił|zmieniła]] temat z "{old}" na "{new}"'),
        ('icon', '{actor} [[zmienił(a)|zmienił|zmieniła]] ikonę tej grupy'),
        ('description', '{actor} [[zmienił(a)|zmienił|zmieniła]] opis grupy'),
        ('security_code', 'Twój kod zabezpieczenia [[z|dla]] {obj} [[uległ zmianie|zmienił się]]*'),
    ],
}
