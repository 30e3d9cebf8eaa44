"""Writes the WhatsApp fixtures under fixtures/whatsapp/ (run: python tests/build_whatsapp_fixtures.py).

Every export here is written by us and is fictional; the fixtures' owner is "Sam Rivera".
Each file shows one header layout / language / line-ending variant a real export has. The
texts are kept here, with invisible characters spelled as escapes, so that what each file
holds is readable; `test_whatsapp_fixtures.py` checks the files still match this script.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from media_samples import photo  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "whatsapp"

LRM = "\u200e"  # left-to-right mark: iOS puts it before system texts and placeholders
NNBSP = "\u202f"  # narrow no-break space: before AM/PM in new exports
NBSP = "\u00a0"

# ---------------------------------------------------------------- Android, English, 24 h, D/M/Y
ANDROID_EN = """\
14/02/2024, 09:12 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.
14/02/2024, 09:12 - Anna Berg: Morning Sam! Still on for the climbing gym on Saturday?
14/02/2024, 09:15 - Sam Rivera: Yes! 10:00 works for me.
Can you bring the spare harness?
14/02/2024, 09:16 - Anna Berg: Sure. Shopping list for after:
5/6 eggs
12:30 lunch at the usual place
14/02/2024 is the receipt date
2 x oat milk
14/02/2024, 09:16 - Anna Berg: <Media omitted>
14/02/2024, 09:17 - Sam Rivera: haha
14/02/2024, 09:17 - Sam Rivera: haha
14/02/2024, 09:20 - Anna Berg: This message was deleted
14/02/2024, 09:21 - Sam Rivera: See you at the gym tomorrow <This message was edited>
15/02/2024, 18:40 - Anna Berg: null
15/02/2024, 18:41 - Anna Berg: location: https://maps.google.com/?q=52.370216,4.895168
15/02/2024, 18:45 - Anna Berg: Cleo Park.vcf (file attached)
15/02/2024, 18:46 - Anna Berg: IMG-20240215-WA0007.jpg (file attached)
the wall we did last time
16/02/2024, 20:02 - Sam Rivera: You deleted this message
17/02/2024, 10:05 - Anna Berg: Made it 🧗\u200d♀️
"""

# ---------------------------------------------------------------- iOS, English, 12 h, seconds, U+202F, in a zip with media
IOS_EN = f"""\
[3/2/24, 6:01:09{NNBSP}PM] Ben Ortiz: {LRM}Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them.
[3/2/24, 6:02:30{NNBSP}PM] Sam Rivera: Hey Ben, did the photos from the lake come out?
{LRM}[3/2/24, 6:04:11{NNBSP}PM] Ben Ortiz: {LRM}<attached: 00000003-PHOTO-2024-03-02-18-04-11.jpg>
[3/2/24, 6:04:40{NNBSP}PM] Ben Ortiz: That one is my favourite
{LRM}[3/2/24, 6:05:02{NNBSP}PM] Ben Ortiz: {LRM}image omitted
{LRM}[3/2/24, 6:06:40{NNBSP}PM] Sam Rivera: {LRM}<attached: 00000005-AUDIO-2024-03-02-18-06-40.opus>
{LRM}[3/2/24, 6:07:15{NNBSP}PM] Ben Ortiz: {LRM}<attached: 00000007-Cleo Park.vcf>
[3/2/24, 6:07:30{NNBSP}PM] Ben Ortiz: That's Cleo's number for the boat rental
[3/2/24, 9:15:00{NNBSP}PM] Ben Ortiz: {LRM}Missed voice call
[3/2/24, 9:16:12{NNBSP}PM] Sam Rivera: {LRM}Missed video call
[3/3/24, 8:00:00{NNBSP}AM] Ben Ortiz: {LRM}Location: https://maps.google.com/?q=46.204391,6.143158
[3/3/24, 8:01:20{NNBSP}AM] Sam Rivera: POLL:
Lunch after the boat?
OPTION: Pizza (2 votes)
OPTION: Soup (0 votes)
OPTION: Skip it (1 vote)
[3/3/24, 8:03:00{NNBSP}AM] Ben Ortiz: {LRM}This message was deleted.
[3/3/24, 8:04:00{NNBSP}AM] Sam Rivera: {LRM}You deleted this message.
[3/3/24, 12:00:05{NNBSP}PM] Ben Ortiz: Boat is booked for noon {LRM}<This message was edited>
[3/14/24, 12:01:00{NNBSP}AM] Ben Ortiz: Still awake? The 3/14 pie party is on
[3/14/24, 12:02:00{NNBSP}AM] Ben Ortiz: {LRM}Your security code with Ben Ortiz changed. Tap to learn more.
"""
IOS_EN_MEDIA = {
    "00000003-PHOTO-2024-03-02-18-04-11.jpg": photo("boat"),
    "00000005-AUDIO-2024-03-02-18-06-40.opus": b"OggS\x00\x02fixture voice note",
    "00000007-Cleo Park.vcf": b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cleo Park\r\nTEL;type=CELL:+1 555 0100\r\nEND:VCARD\r\n",
}
# What macOS's Archive Utility adds: an AppleDouble file whose name also ends in .txt.
APPLEDOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02" + bytes(40)

# ---------------------------------------------------------------- English group, Android: every kind of event
GROUP_EN = """\
01/09/2023, 19:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.
01/09/2023, 19:00 - Anna Berg created group "Book Club"
01/09/2023, 19:00 - Anna Berg added you
01/09/2023, 19:01 - Anna Berg added Ben Ortiz
01/09/2023, 19:02 - Anna Berg: First pick: "The Left Hand of Darkness"?
01/09/2023, 19:05 - You added Cleo Park
01/09/2023, 19:06 - Dev Malhotra joined using this group's invite link
02/09/2023, 08:00 - Anna Berg changed the subject from "Book Club" to "Book Club: Autumn"
02/09/2023, 08:01 - Anna Berg changed this group's icon
02/09/2023, 08:02 - Anna Berg changed the group description
02/09/2023, 08:10 - Ben Ortiz: Works for me
05/09/2023, 21:00 - Your security code with Ben Ortiz changed. Tap to learn more.
10/09/2023, 09:00 - Anna Berg turned on disappearing messages. New messages will disappear from this chat 7 days after they're sent, except when kept. Tap to change.
10/09/2023, 09:05 - Anna Berg turned off disappearing messages.
12/09/2023, 12:00 - Dev Malhotra left
12/09/2023, 12:01 - Anna Berg removed Cleo Park
15/09/2023, 18:00 - Ben Ortiz changed their phone number to a new number. Tap to message or add the new number.
02/01/2024, 10:00 - You changed the subject from "Book Club: Autumn" to "Book Club 2024"
02/01/2024, 10:01 - Sam Rivera: New year, new list 📚
02/01/2024, 10:02 - Anna Berg: POLL:
Next book?
OPTION: Piranesi (3 votes)
OPTION: Kindred (1 vote)
02/01/2024, 10:03 - Ben Ortiz: location: https://maps.google.com/?q=48.8566,2.3522
02/01/2024, 10:06 - Anna Berg pinned a message
"""

# ---------------------------------------------------------------- German group, Android, 24 h, dd.mm.yy
GROUP_DE = """\
02.05.23, 19:00 - Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. Niemand außerhalb dieses Chats kann sie lesen oder anhören, nicht einmal WhatsApp. Tippe, um mehr zu erfahren.
02.05.23, 19:00 - Lena Vogt hat die Gruppe „Wandergruppe“ erstellt.
02.05.23, 19:01 - Lena Vogt hat dich hinzugefügt.
02.05.23, 19:01 - Lena Vogt hat Jonas Keller hinzugefügt.
02.05.23, 19:03 - Lena Vogt: Hallo zusammen! Samstag um 8 Uhr am Bahnhof?
02.05.23, 19:05 - Sam Rivera: Bin dabei 👍
02.05.23, 19:06 - Jonas Keller: <Medien ausgeschlossen>
02.05.23, 19:06 - Jonas Keller: IMG-20230502-WA0004.jpg (Datei angehängt)
Routenplan
03.05.23, 08:12 - Lena Vogt hat den Betreff von „Wandergruppe“ zu „Wandergruppe Harz“ geändert.
03.05.23, 08:13 - Lena Vogt hat das Gruppenbild geändert.
03.05.23, 08:20 - Jonas Keller: Diese Nachricht wurde gelöscht
03.05.23, 08:21 - Du hast Mia Brandt hinzugefügt.
03.05.23, 08:22 - Mia Brandt: Danke! Wie lang ist die Strecke?
14 km?
03.05.23, 08:25 - Lena Vogt: 14 km laut Karte <Diese Nachricht wurde bearbeitet>
04.05.23, 21:10 - Deine Sicherheitsnummer für Jonas Keller hat sich geändert. Tippe, um mehr zu erfahren.
05.05.23, 07:45 - Lena Vogt: Standort: https://maps.google.com/?q=51.8034,10.6172
06.05.23, 18:30 - Mia Brandt hat die Gruppe verlassen.
06.05.23, 18:31 - Lena Vogt hat Jonas Keller entfernt.
06.05.23, 18:32 - Lena Vogt hat selbstlöschende Nachrichten aktiviert. Neue Nachrichten werden 7 Tage nach dem Senden aus diesem Chat verschwinden.
"""

# ---------------------------------------------------------------- Spanish one-to-one, Android, 12 h "a. m." / "p. m."
ONE_ES = f"""\
5/3/24, 9:41{NBSP}a.{NBSP}m. - Los mensajes y las llamadas están cifrados de extremo a extremo. Nadie fuera de este chat, ni siquiera WhatsApp, puede leerlos ni escucharlos. Toca para obtener más información.
5/3/24, 9:42{NBSP}a.{NBSP}m. - Carla Núñez: ¡Hola Sam! ¿Vienes a la cena del viernes?
5/3/24, 9:50{NBSP}a.{NBSP}m. - Sam Rivera: ¡Claro! Llevo el postre.
5/3/24, 12:05{NBSP}p.{NBSP}m. - Carla Núñez: <Multimedia omitido>
5/3/24, 12:06{NBSP}p.{NBSP}m. - Carla Núñez: Se eliminó este mensaje.
6/3/24, 12:30{NBSP}a.{NBSP}m. - Carla Núñez: ¿Sigues despierto?
18/3/24, 7:15 p. m. - Sam Rivera: Eliminaste este mensaje.
18/3/24, 7:16 p. m. - Carla Núñez: Nos vemos a las 8 <Se editó este mensaje.>
18/3/24, 7:20 p. m. - Tu código de seguridad con Carla Núñez cambió. Toca para obtener más información.
18/3/24, 11:59 p. m. - Carla Núñez: ubicación: https://maps.google.com/?q=40.416775,-3.703790
19/3/24, 00:10 a. m. - Sam Rivera: ENCUESTA:
¿Qué postre?
OPCIÓN: Flan (2 votos)
OPCIÓN: Tarta (1 voto)
19/3/24, 00:12 a. m. - Carla Núñez: IMG-20240319-WA0002.jpg (archivo adjunto)
"""

# ---------------------------------------------------------------- French group, Android, "12/01/2024 à 20:00 - "
GROUP_FR = """\
12/01/2024 à 20:00 - Les messages et les appels sont chiffrés de bout en bout. Personne en dehors de cette discussion, pas même WhatsApp, ne peut les lire ou les écouter. Appuyez pour en savoir plus.
12/01/2024 à 20:00 - Claire Dubois a créé le groupe « Club de lecture »
12/01/2024 à 20:01 - Claire Dubois vous a ajouté
12/01/2024 à 20:01 - Claire Dubois a ajouté Hugo Martin
12/01/2024 à 20:02 - Vous avez ajouté Inès Laurent
12/01/2024 à 20:05 - Claire Dubois: Premier livre : « L'Étranger » ?
12/01/2024 à 20:07 - Sam Rivera: Parfait, je l'ai déjà.
12/01/2024 à 20:08 - Hugo Martin: <Médias omis>
13/01/2024 à 09:30 - Hugo Martin: Ce message a été supprimé
13/01/2024 à 09:31 - Claire Dubois a modifié le sujet de « Club de lecture » en « Club de lecture 2024 »
13/01/2024 à 09:32 - Claire Dubois a modifié la description du groupe
13/01/2024 à 09:40 - Hugo Martin: Rendez-vous jeudi à 19 h <Ce message a été modifié>
14/01/2024 à 10:00 - Votre code de sécurité avec Hugo Martin a changé. Appuyez pour en savoir plus.
20/01/2024 à 18:00 - Hugo Martin est parti
20/01/2024 à 18:05 - Claire Dubois a retiré Inès Laurent
20/01/2024 à 18:06 - Claire Dubois a activé les messages éphémères. Les nouveaux messages disparaîtront de cette discussion 7 jours après leur envoi.
"""

# ---------------------------------------------------------------- Portuguese one-to-one, Android, "dd/mm/yyyy HH:MM - "
ONE_PT = """\
03/04/2024 10:15 - As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta e ficam somente entre você e os participantes desta conversa. Nem mesmo o WhatsApp pode ler ou ouvi-las. Toque para saber mais.
03/04/2024 10:16 - Rafael Costa: Oi Sam! Tudo certo para o churrasco?
03/04/2024 10:20 - Sam Rivera: Tudo! Levo o carvão.
03/04/2024 10:21 - Rafael Costa: <Mídia oculta>
03/04/2024 10:22 - Rafael Costa: Mensagem apagada
03/04/2024 10:23 - Sam Rivera: Você apagou esta mensagem
04/04/2024 18:00 - Rafael Costa: Chego às 13h <Mensagem editada>
04/04/2024 18:05 - Rafael Costa: localização: https://maps.google.com/?q=-23.550520,-46.633308
15/04/2024 09:00 - Rafael Costa mudou seu número de telefone para um novo número. Toque para enviar uma mensagem ou adicionar o novo número.
15/04/2024 09:01 - O seu código de segurança com Rafael Costa mudou. Toque para saber mais.
"""

# ---------------------------------------------------------------- Italian group, iOS, in a zip, system lines by the group
GROUP_IT = f"""\
[21/06/24, 18:00:00] Gita al lago: {LRM}I messaggi e le chiamate sono crittografati end-to-end. Nessuno al di fuori di questa chat, nemmeno WhatsApp, può leggerli o ascoltarli.
[21/06/24, 18:00:00] Gita al lago: {LRM}Giulia Romano ha creato il gruppo “Gita al lago”
[21/06/24, 18:00:01] Gita al lago: {LRM}Giulia Romano ti ha aggiunto
[21/06/24, 18:00:02] Gita al lago: {LRM}Giulia Romano ha aggiunto Marco Bianchi
[21/06/24, 18:01:10] Giulia Romano: Ciao! Partiamo sabato alle 7?
[21/06/24, 18:02:30] Sam Rivera: Perfetto 🚗
{LRM}[21/06/24, 18:03:05] Marco Bianchi: {LRM}immagine omessa
{LRM}[21/06/24, 18:03:40] Marco Bianchi: {LRM}<allegato: 00000004-PHOTO-2024-06-21-18-03-40.jpg>
[21/06/24, 18:05:00] Giulia Romano: {LRM}Questo messaggio è stato eliminato.
[21/06/24, 18:06:00] Marco Bianchi: Porto io il pranzo {LRM}<Questo messaggio è stato modificato>
[22/06/24, 07:00:00] Gita al lago: {LRM}Giulia Romano ha cambiato l'immagine di questo gruppo
[22/06/24, 07:01:00] Gita al lago: {LRM}Hai cambiato l'oggetto da “Gita al lago” a “Gita al lago 🚣”
[22/06/24, 07:05:00] Gita al lago: {LRM}Marco Bianchi è uscito
[22/06/24, 07:06:00] Giulia Romano: {LRM}Chiamata vocale persa
"""
GROUP_IT_MEDIA = {
    "00000004-PHOTO-2024-06-21-18-03-40.jpg": photo("lago"),
}

# ---------------------------------------------------------------- Dutch one-to-one, Android, "dd-mm-yyyy HH:MM - "
ONE_NL = """\
07-08-2023 14:00 - Berichten en oproepen worden end-to-end versleuteld. Niemand buiten deze chat, zelfs WhatsApp niet, kan ze lezen of beluisteren. Tik voor meer informatie.
07-08-2023 14:01 - Daan Visser: Hoi Sam, fietsen we morgen naar het strand?
07-08-2023 14:03 - Sam Rivera: Goed plan! 09:30 bij de brug?
07-08-2023 14:04 - Daan Visser: <Media weggelaten>
07-08-2023 14:05 - Daan Visser: Dit bericht is verwijderd
07-08-2023 14:06 - Sam Rivera: Je hebt dit bericht verwijderd
08-08-2023 08:15 - Daan Visser: Ik ben er om 9:45 <Dit bericht is bewerkt>
08-08-2023 08:16 - Daan Visser: locatie: https://maps.google.com/?q=52.1,4.27
20-08-2023 19:00 - Je beveiligingscode met Daan Visser is gewijzigd. Tik voor meer informatie.
"""

# ---------------------------------------------------------------- Russian group, Android, "dd.mm.yyyy, HH:MM - "
GROUP_RU = """\
10.09.2023, 12:00 - Сообщения и звонки защищены сквозным шифрованием. Никто за пределами этого чата, даже WhatsApp, не может их прочитать или прослушать. Нажмите, чтобы узнать подробнее.
10.09.2023, 12:01 - Ольга Смирнова создала группу «Дача»
10.09.2023, 12:01 - Ольга Смирнова добавила вас
10.09.2023, 12:02 - Ольга Смирнова добавила Иван Петров
10.09.2023, 12:05 - Ольга Смирнова: Всем привет! В субботу едем на дачу?
10.09.2023, 12:06 - Sam Rivera: Да, конечно!
10.09.2023, 12:07 - Иван Петров: <Без медиафайлов>
10.09.2023, 12:08 - Иван Петров: Данное сообщение удалено
10.09.2023, 12:10 - Ольга Смирнова изменила тему с «Дача» на «Дача 2023»
11.09.2023, 09:00 - Ольга Смирнова: Выезжаем в 8:00 <Сообщение изменено>
11.09.2023, 09:05 - Иван Петров вышел(-а)
13.09.2023, 20:00 - Ваш код безопасности для Ольга Смирнова изменился. Нажмите, чтобы узнать подробнее.
"""

# ---------------------------------------------------------------- Turkish group, Android, "dd.mm.yyyy HH:MM - "
GROUP_TR = """\
01.10.2023 21:00 - Mesajlar ve aramalar uçtan uca şifrelidir. WhatsApp dahil olmak üzere bu sohbetin dışında bulunan hiç kimse mesajlarınızı okuyamaz ve aramalarınızı dinleyemez. Daha fazla bilgi edinmek için dokunun.
01.10.2023 21:00 - Emre Yılmaz, "Halı Saha" grubunu oluşturdu
01.10.2023 21:00 - Emre Yılmaz, sizi ekledi
01.10.2023 21:01 - Emre Yılmaz, Deniz Kaya kişisini ekledi
01.10.2023 21:02 - Emre Yılmaz: Selam! Cumartesi maç var mı?
01.10.2023 21:03 - Sam Rivera: Var, saat 18:00'de.
01.10.2023 21:04 - Deniz Kaya: <Medya dahil edilmedi>
01.10.2023 21:05 - Deniz Kaya: Bu mesaj silindi
01.10.2023 21:06 - Sam Rivera: Bu mesajı sildiniz
02.10.2023 08:00 - Emre Yılmaz: Stada 17:30'da gelirim <Bu mesaj düzenlendi>
02.10.2023 08:05 - Emre Yılmaz: Konum: https://maps.google.com/?q=41.0082,28.9784
03.10.2023 10:00 - Emre Yılmaz, grup konusunu "Halı Saha" iken "Halı Saha Cumartesi" olarak değiştirdi
15.10.2023 10:00 - Deniz Kaya ile güvenlik kodunuz değişti. Daha fazla bilgi edinmek için dokunun.
16.10.2023 11:00 - Deniz Kaya ayrıldı
"""

# ---------------------------------------------------------------- the older colon form, "dd/mm/yyyy HH:MM:SS: "
OLD_COLON = """\
24/12/2013 18:30:12: Sam Rivera: Merry Christmas!
24/12/2013 18:31:40: Nora Quinn: Merry Christmas!! 🎄
24/12/2013 18:32:05: Nora Quinn: Dinner at 8:
the usual place
24/12/2013 18:33:00: Sam Rivera: <image omitted>
26/12/2013 09:00:00: Nora Quinn: Leftovers at mine?
"""

# ---------------------------------------------------------------- year-first, "yyyy-mm-dd HH:MM - "
YMD = """\
2024-05-06 14:07 - Yuki Tanaka: Are the cherry blossoms still out?
2024-05-06 14:09 - Sam Rivera: Mostly gone, sorry 🌸
2024-05-07 08:30 - Yuki Tanaka: Next year then!
2024-05-13 19:45 - Yuki Tanaka: <Media omitted>
"""

# ---------------------------------------------------------------- US Android, CRLF, bare LF inside a body
CRLF_US = (
    f"3/14/24, 9:05{NNBSP}AM - Priya Shah: Pi day! Bringing a pie to the office\r\n"
    f"3/14/24, 9:07{NNBSP}AM - Sam Rivera: Apple please\n\nor cherry\r\n"
    f"3/14/24, 12:30{NNBSP}PM - Priya Shah: It's here 🥧\r\n"
    f"3/15/24, 8:00{NNBSP}am - Priya Shah: Thanks for coming yesterday\r\n"
)

# ---------------------------------------------------------------- iOS 24 h with \r\r\n endings (a file passed through a converter twice)
CRCRLF = (
    "[14.03.24, 09:05:33] Tom Becker: Guten Morgen!\r\r\n"
    "[14.03.24, 09:06:01] Sam Rivera: Morning Tom\r\r\n"
    "Meeting moved to 11:00\r\r\n"
    "[14.03.24, 09:06:59] Tom Becker: 👍\r\r\n"
)

# ---------------------------------------------------------------- every date part <= 12: the order must be guessed (month-first here)
AMBIGUOUS = """\
1/2/24, 10:00 - Lia Moreau: Happy new year again!
1/3/24, 10:05 - Sam Rivera: Thanks Lia
1/5/24, 18:20 - Lia Moreau: Dinner on Friday?
1/9/24, 08:00 - Lia Moreau: Back at work 😴
2/1/24, 12:00 - Sam Rivera: February already
"""

TEXT_FILES = {
    "WhatsApp Chat with Anna Berg.txt": ANDROID_EN.encode(),
    "WhatsApp Chat with Book Club 2024.txt": GROUP_EN.encode(),
    "WhatsApp Chat mit Wandergruppe Harz.txt": GROUP_DE.encode(),
    "Chat de WhatsApp con Carla Núñez.txt": ONE_ES.encode(),
    "Discussion WhatsApp avec Club de lecture 2024.txt": GROUP_FR.encode(),
    "Conversa do WhatsApp com Rafael Costa.txt": ONE_PT.encode(),
    "WhatsApp-chat met Daan Visser.txt": ONE_NL.encode(),
    "Чат WhatsApp с Дача 2023.txt": GROUP_RU.encode(),
    "Halı Saha Cumartesi ile WhatsApp Sohbeti.txt": GROUP_TR.encode(),
    "WhatsApp Chat with Nora Quinn.txt": OLD_COLON.encode(),
    "WhatsApp Chat with Yuki Tanaka.txt": YMD.encode(),
    "WhatsApp Chat with Priya Shah.txt": CRLF_US.encode(),
    "WhatsApp Chat with Tom Becker.txt": ("\ufeff" + CRCRLF).encode(),
    "WhatsApp Chat with Lia Moreau.txt": AMBIGUOUS.encode(),
}
ZIP_FILES = {
    "WhatsApp Chat - Ben Ortiz.zip": (IOS_EN, IOS_EN_MEDIA),
    "WhatsApp Chat - Gita al lago.zip": (GROUP_IT, GROUP_IT_MEDIA),
}
_STAMP = (2024, 7, 1, 12, 0, 0)  # fixed member times: the zips come out byte-identical


def zip_bytes(chat: str, media: dict[str, bytes], *, junk: bool = True) -> bytes:
    """An iOS-style export zip: `_chat.txt`, its media, and macOS's `__MACOSX/` junk."""
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("_chat.txt", _STAMP), chat.encode(), zipfile.ZIP_DEFLATED)
        if junk:
            zf.writestr(zipfile.ZipInfo("__MACOSX/._chat.txt", _STAMP), APPLEDOUBLE)
        for name, data in media.items():
            zf.writestr(zipfile.ZipInfo(name, _STAMP), data)
    return buf.getvalue()


def build() -> dict[str, bytes]:
    """File name -> bytes of every fixture."""
    files = dict(TEXT_FILES)
    for name, (chat, media) in ZIP_FILES.items():
        files[name] = zip_bytes(chat, media)
    return files


def main() -> int:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, data in build().items():
        (FIXTURES / name).write_bytes(data)
    print(f"wrote {len(build())} files to {FIXTURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
