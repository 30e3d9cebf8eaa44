"""Finnish. Sources: see SOURCES.md ("fi")."""

WORDS = {
    "language": 'Finnish',
    'media': {
        'unknown': ['<media jätettiin pois>', '<Media jätetty pois>'],
        'image': ['kuva jätetty pois'],
        'video': ['video jätetty pois'],
        'audio': ['ääni jätetty pois'],
        'sticker': ['tarra jätetty pois'],
        'gif': ['GIF jätetty pois'],
        'document': ['dokumentti jätetty pois'],
        'contact': ['yhteystietokortti jätetty pois'],
    },
    'file_attached': ['tiedosto liitetty'],
    'deleted': ['Tämä viesti poistettiin', 'Poistit tämän viestin'],
    'edited': ['Tätä viestiä on muokattu'],
    'missed': {
        'voice': ['Vastaamaton äänipuhelu'],
        'video': ['Vastaamaton videopuhelu'],
    },
    'location': ['sijainti'],
    'you': ['sinä'],
    "events": [
        ('e2e', 'Viestit ja puhelut ovat päästä päähän salattuja*'),
        ('created', '{actor} loi ryhmän "{new}"'),
        ('added', '{actor} liittyi tämän ryhmän kutsulinkin kautta'),
        ('added', '{actor} lisäsi {obj}'),
        ('removed', '{actor} poisti {obj}'),
        ('left', '{actor} poistui[[| ryhmästä]]'),
        ('subject', '{actor} muutti aiheen "{old}" muotoon "{new}"'),
        ('subject', '{actor} vaihtoi ryhmän nimeksi "{new}"'),
        ('icon', '{actor} vaihtoi tämän ryhmän kuvakkeen'),
        ('description', '{actor} muutti ryhmän kuvausta'),
        ('security_code', 'Turvakoodisi käyttäjän {obj} kanssa vaihtui*'),
    ],
}
