"""Writes fixtures/whatsapp-languages/: one export per app language, digit system, calendar and
header order (run: python tests/build_whatsapp_languages.py).

Every export is written by us, fictional, and laid out as the phone of that language writes it
(Android "DATE, TIME - Name: text" or iOS "[DATE, TIME] Name: text", with the locale's date
order, separators, clock and marks). `EXPECTED` says what a user must get from each:
`test_whatsapp_languages.py` imports every file and compares. The owner is named in `owner`.
"""

from __future__ import annotations

import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "whatsapp-languages"
LRM, RLM, NNBSP = "\u200e", "\u200f", "\u202f"
LRE, PDF = "\u202a", "\u202c"  # around phone numbers

# name -> (text, expected). Expected: messages (not system, media and deleted included),
# media, deleted, calls, system, senders (as imported, the owner as "me"), first, last.
FIXTURES: dict[str, tuple[str, dict]] = {}


def fixture(name: str, text: str, *, owner: str, messages: int, media: int, deleted: int,
            calls: int, system: int, senders: set[str], first: str, last: str, polls: int = 0,
            locations: int = 0) -> None:
    FIXTURES[name] = (text, {
        "owner": owner, "messages": messages, "media": media, "deleted": deleted,
        "calls": calls, "system": system, "senders": senders, "first": first, "last": last,
        "polls": polls, "locations": locations,
    })


# ------------------------------------------------------------------ Indonesian, Android, HH.MM
fixture("WhatsApp Chat dengan Arisan Kantor.txt", """\
18/03/22 09.00 - Pesan dan panggilan terenkripsi secara end-to-end. Tidak seorang pun di luar chat ini, termasuk WhatsApp, yang dapat membaca atau mendengarkannya. Ketuk untuk mempelajari selengkapnya.
18/03/22 09.00 - Budi Santoso membuat grup "Arisan Kantor"
18/03/22 09.01 - Budi Santoso menambahkan Sam Rivera
18/03/22 09.05 - Budi Santoso: Selamat pagi semua!
18/03/22 09.06 - Sam Rivera: Pagi, Pak Budi
18/03/22 09.07 - Siti Aminah bergabung menggunakan tautan undangan grup ini
18/03/22 09.10 - Siti Aminah: <Media tidak disertakan>
18/03/22 09.11 - Siti Aminah: Pesan ini telah dihapus
18/03/22 09.12 - Budi Santoso: IMG-20220318-WA0003.jpg (file terlampir)
foto kemarin
18/03/22 13.30 - Budi Santoso mengubah subjek dari "Arisan Kantor" ke "Arisan Kantor 2022"
19/03/22 08.00 - Siti Aminah keluar
19/03/22 08.05 - Budi Santoso: Jadwal bulan depan
menyusul ya <Pesan ini telah diedit>
""", owner="Sam Rivera", messages=6, media=2, deleted=1, calls=0, system=6,
    senders={"Budi Santoso", "me", "Siti Aminah"}, first="2022-03-18T09:00:00",
    last="2022-03-19T08:05:00")

# ------------------------------------------------------------------ Malay, Android, 12 h PG/PTG
fixture("WhatsApp Chat dengan Aiman.txt", """\
18/03/2022, 9:00 PG - Mesej dan panggilan disulitkan hujung ke hujung. Tiada sesiapa di luar sembang ini, termasuk WhatsApp, boleh membaca atau mendengarnya.
18/03/2022, 9:01 PG - Aiman: Assalamualaikum Sam
18/03/2022, 12:15 PTG - Sam Rivera: Waalaikumsalam!
18/03/2022, 12:16 PTG - Aiman: <Media dikecualikan>
18/03/2022, 3:40 PTG - Aiman: Mesej ini telah dipadam
19/03/2022, 12:05 PG - Aiman: Selamat malam
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Aiman", "me"}, first="2022-03-18T09:00:00", last="2022-03-19T00:05:00")

# ------------------------------------------------------------------ Japanese, iOS, yyyy/mm/dd 24 h
fixture("WhatsApp Chat - 山登り.txt", f"""\
[2022/03/18 14:02:11] 山登り: {LRM}メッセージと通話はエンドツーエンドで暗号化されています。このチャットの参加者以外は、WhatsAppであっても、メッセージを読んだり通話を聞いたりすることはできません。
[2022/03/18 14:02:11] 山登り: {LRM}佐藤健がグループ「山登り」を作成しました
[2022/03/18 14:02:12] 山登り: {LRM}佐藤健が鈴木花子を追加しました
[2022/03/18 14:03:00] 佐藤健: 今週末、高尾山はどうですか？
[2022/03/18 14:04:30] 鈴木花子: いいですね！
{LRM}[2022/03/18 14:05:00] 鈴木花子: {LRM}画像は含まれていません
[2022/03/18 14:06:00] 佐藤健: {LRM}このメッセージは削除されました
[2022/03/18 20:15:00] 佐藤健: {LRM}音声通話の不在着信
[2022/03/18 20:30:00] Sam Rivera: 参加します
[2022/03/19 07:00:00] 山登り: {LRM}鈴木花子が退出しました
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=1, system=4,
    senders={"佐藤健", "鈴木花子", "me"}, first="2022-03-18T14:02:11", last="2022-03-19T07:00:00")

# ------------------------------------------------------------------ Thai, Android, Buddhist era
fixture("WhatsApp Chat กับ สมชาย.txt", """\
18/3/2565 14:02 - ข้อความและการโทรได้รับการเข้ารหัสตั้งแต่ต้นทางถึงปลายทาง ไม่มีบุคคลภายนอกแชทนี้ แม้แต่ WhatsApp ที่จะอ่านหรือฟังได้
18/3/2565 14:03 - สมชาย: สวัสดีครับ
18/3/2565 14:04 - Sam Rivera: สวัสดีครับ สมชาย
18/3/2565 14:05 - สมชาย: <ไฟล์สื่อถูกลบ>
18/3/2565 14:06 - สมชาย: ข้อความนี้ถูกลบแล้ว
31/12/2565 23:59 - สมชาย: สวัสดีปีใหม่
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"สมชาย", "me"}, first="2022-03-18T14:02:00", last="2022-12-31T23:59:00")

# ------------------------------------------------------------------ Thai digits and Buddhist era, iOS
fixture("WhatsApp Chat - นิรันดร์.txt", f"""\
[๑๘/๓/๒๕๖๕ ๑๔:๐๒:๑๑] นิรันดร์: {LRM}ข้อความและการโทรได้รับการเข้ารหัสตั้งแต่ต้นทางถึงปลายทาง
[๑๘/๓/๒๕๖๕ ๑๔:๐๓:๐๐] นิรันดร์: สวัสดีครับ
[๑๘/๓/๒๕๖๕ ๑๔:๐๔:๐๐] Sam Rivera: สวัสดี
[๑๘/๓/๒๕๖๕ ๑๔:๐๕:๐๐] นิรันดร์: {LRM}ข้อความนี้ถูกลบแล้ว
[๑/๔/๒๕๖๕ ๐๘:๐๐:๐๐] นิรันดร์: อรุณสวัสดิ์
""", owner="Sam Rivera", messages=4, media=0, deleted=1, calls=0, system=1,
    senders={"นิรันดร์", "me"}, first="2022-03-18T14:02:11", last="2022-04-01T08:00:00")

# ------------------------------------------------------------------ Ukrainian, Android
fixture("Чат WhatsApp з Олена.txt", """\
18.03.22, 14:02 - Повідомлення та дзвінки захищені наскрізним шифруванням. Ніхто за межами цього чату, навіть WhatsApp, не може їх прочитати чи прослухати.
18.03.22, 14:03 - Олена: Привіт, Сем!
18.03.22, 14:04 - Sam Rivera: Привіт!
18.03.22, 14:05 - Олена: <медіа пропущено>
18.03.22, 14:06 - Олена: Це повідомлення видалено
18.03.22, 14:07 - Sam Rivera: Ви видалили це повідомлення
18.03.22, 14:08 - Олена: IMG-20220318-WA0001.jpg (файл додано)
19.03.22, 09:00 - Олена: До зустрічі о 10:00 <Це повідомлення змінено>
""", owner="Sam Rivera", messages=7, media=2, deleted=2, calls=0, system=1,
    senders={"Олена", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:00:00")

# ------------------------------------------------------------------ Hindi, Android, 12 h pm
fixture("WhatsApp चैट राहुल के साथ.txt", """\
18/03/22, 2:02 pm - मैसेज और कॉल एंड-टू-एंड एन्क्रिप्टेड हैं. इस चैट के बाहर कोई भी, WhatsApp भी, इन्हें पढ़ या सुन नहीं सकता.
18/03/22, 2:03 pm - राहुल: नमस्ते सैम
18/03/22, 2:04 pm - Sam Rivera: नमस्ते राहुल!
18/03/22, 2:05 pm - राहुल: <मीडिया के बिना>
18/03/22, 2:06 pm - राहुल: यह मैसेज हटा दिया गया था
18/03/22, 11:58 pm - राहुल: शुभ रात्रि
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"राहुल", "me"}, first="2022-03-18T14:02:00", last="2022-03-18T23:58:00")

# ------------------------------------------------------------------ Czech, iOS, contact card and calls
fixture("WhatsApp Chat - Jana Nováková.txt", f"""\
[18.03.22 14:02:11] Jana Nováková: {LRM}Zprávy a hovory jsou koncově šifrované. Nikdo mimo tento chat, ani WhatsApp, je nemůže číst ani poslouchat.
[18.03.22 14:03:00] Jana Nováková: Ahoj Same!
[18.03.22 14:04:00] Sam Rivera: Ahoj Jano
{LRM}[18.03.22 14:05:00] Jana Nováková: {LRM}obrázek vynechán
[18.03.22 14:06:00] Jana Nováková: {LRM}Tato zpráva byla smazána.
[18.03.22 14:07:00] Jana Nováková: Alex.vcf (soubor byl přiložen)
[18.03.22 18:00:00] Jana Nováková: {LRM}Zmeškaný hlasový hovor
[18.03.22 18:01:00] Jana Nováková: {LRM}Zmeškaný videohovor
[19.03.22 08:00:00] Sam Rivera: Promiň, zavolám
""", owner="Sam Rivera", messages=6, media=2, deleted=1, calls=2, system=1,
    senders={"Jana Nováková", "me"}, first="2022-03-18T14:02:11", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Arabic, Android: Arabic-Indic digits, RLM, Arabic marker, phone authors
_PH1 = f"{LRE}+966 50 123 4567{PDF}"
fixture("محادثة واتساب مع رحلة الصحراء.txt", f"""\
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٢ م - الرسائل والمكالمات مشفرة تمامًا بين الطرفين. لا أحد خارج هذه الدردشة، حتى واتساب، يمكنه قراءتها أو الاستماع إليها.
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٢ م - {_PH1} أنشأ المجموعة "رحلة الصحراء"
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٣ م - {_PH1} أضاف Sam Rivera
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٥ م - {_PH1}: مرحبا بالجميع
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٦ م - Sam Rivera: أهلا!
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٧ م - {_PH1}: <تم استبعاد الوسائط>
{RLM}١٨{RLM}/٣{RLM}/٢٠٢٢ ٢:٠٨ م - {_PH1}: تم حذف هذه الرسالة
{RLM}١٩{RLM}/٣{RLM}/٢٠٢٢ ٩:١٥ ص - {_PH1}: صباح الخير
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=3,
    senders={"+966 50 123 4567", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:15:00")

# ------------------------------------------------------------------ Vietnamese, Android: the time before the date
fixture("Đoạn chat WhatsApp với Lan.txt", """\
14:02, 18/03/2022 - Tin nhắn và cuộc gọi được mã hóa đầu cuối. Không ai bên ngoài đoạn chat này, kể cả WhatsApp, có thể đọc hoặc nghe chúng.
14:03, 18/03/2022 - Lan: Chào Sam!
14:04, 18/03/2022 - Sam Rivera: Chào Lan
14:05, 18/03/2022 - Lan: <bỏ qua tệp phương tiện>
14:06, 18/03/2022 - Lan: Tin nhắn này đã bị xóa
08:00, 19/03/2022 - Lan: Hẹn gặp lại
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Lan", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Chinese, Android: marker before the time
fixture("与王伟的 WhatsApp 聊天.txt", """\
2022/3/18 下午2:02 - 消息和通话均已进行端到端加密。此对话之外的任何人，甚至包括 WhatsApp，都无法读取或收听。
2022/3/18 下午2:03 - 王伟: 你好，Sam
2022/3/18 下午2:04 - Sam Rivera: 你好！
2022/3/18 下午2:05 - 王伟: <省略多媒体文件>
2022/3/18 下午2:06 - 王伟: 此消息已删除
2022/3/19 上午9:00 - 王伟: 早上好
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"王伟", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:00:00")

# ------------------------------------------------------------------ Korean, Android: "2022. 3. 18. 오후 2:02"
fixture("김민수 님과 WhatsApp 대화.txt", """\
2022. 3. 18. 오후 2:02 - 메시지와 통화는 종단간 암호화로 보호됩니다. WhatsApp을 포함해 대화방 밖의 누구도 읽거나 들을 수 없습니다.
2022. 3. 18. 오후 2:03 - 김민수: 안녕하세요 Sam
2022. 3. 18. 오후 2:04 - Sam Rivera: 안녕하세요!
2022. 3. 18. 오후 2:05 - 김민수: <미디어 파일 제외됨>
2022. 3. 18. 오후 2:06 - 김민수: 삭제된 메시지입니다
2022. 3. 19. 오전 12:30 - 김민수: 잘 자요
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"김민수", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T00:30:00")

# ------------------------------------------------------------------ Polish, Android
fixture("Czat WhatsApp z Wyjazd w góry.txt", """\
18.03.2022, 14:02 - Wiadomości i połączenia są szyfrowane end-to-end. Nikt spoza tego czatu, nawet WhatsApp, nie może ich odczytać ani odsłuchać.
18.03.2022, 14:02 - Anna Kowalska utworzył(a) grupę „Wyjazd w góry”
18.03.2022, 14:03 - Anna Kowalska dodał(a) Sam Rivera
18.03.2022, 14:04 - Anna Kowalska: Cześć wszystkim!
18.03.2022, 14:05 - Sam Rivera: Hej!
18.03.2022, 14:06 - Anna Kowalska: <pominięto multimedia>
18.03.2022, 14:07 - Anna Kowalska: Ta wiadomość została usunięta
19.03.2022, 10:00 - Anna Kowalska opuścił(a) grupę
""", owner="Sam Rivera", messages=4, media=1, deleted=1, calls=0, system=4,
    senders={"Anna Kowalska", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T10:00:00")

# ------------------------------------------------------------------ Swedish, iOS, yyyy-mm-dd
fixture("WhatsApp-chatt med Erik.txt", f"""\
[2022-03-18 14:02:11] Erik Lind: {LRM}Meddelanden och samtal är end-to-end-krypterade. Ingen utanför den här chatten, inte ens WhatsApp, kan läsa eller lyssna på dem.
[2022-03-18 14:03:00] Erik Lind: Hej Sam!
[2022-03-18 14:04:00] Sam Rivera: Hej Erik
{LRM}[2022-03-18 14:05:00] Erik Lind: {LRM}bild utelämnad
[2022-03-18 14:06:00] Erik Lind: {LRM}Det här meddelandet raderades.
[2022-03-18 19:00:00] Erik Lind: {LRM}Missat röstsamtal
[2022-03-19 08:00:00] Erik Lind: Ring mig
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=1, system=1,
    senders={"Erik Lind", "me"}, first="2022-03-18T14:02:11", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Danish, Android, HH.MM
fixture("WhatsApp-chat med Mads.txt", """\
18.03.2022 14.02 - Beskeder og opkald er end-to-end-krypterede. Ingen uden for denne chat, ikke engang WhatsApp, kan læse eller lytte til dem.
18.03.2022 14.03 - Mads: Hej Sam
18.03.2022 14.04 - Sam Rivera: Hej Mads!
18.03.2022 14.05 - Mads: <medier udeladt>
18.03.2022 14.06 - Mads: Denne besked blev slettet
19.03.2022 07.30 - Mads: God morgen
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Mads", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T07:30:00")

# ------------------------------------------------------------------ Norwegian, Android
fixture("WhatsApp-chat med Hyttetur.txt", """\
18.03.2022, 14:02 - Meldinger og anrop er ende-til-ende-kryptert. Ingen utenfor denne chatten, ikke engang WhatsApp, kan lese eller lytte til dem.
18.03.2022, 14:02 - Ola Nordmann opprettet gruppen "Hyttetur"
18.03.2022, 14:03 - Ola Nordmann la til Sam Rivera
18.03.2022, 14:04 - Ola Nordmann: Hei alle sammen!
18.03.2022, 14:05 - Sam Rivera: Hei!
18.03.2022, 14:06 - Ola Nordmann: <media utelatt>
18.03.2022, 14:07 - Ola Nordmann: Denne meldingen ble slettet
19.03.2022, 09:00 - Ola Nordmann forlot
""", owner="Sam Rivera", messages=4, media=1, deleted=1, calls=0, system=4,
    senders={"Ola Nordmann", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:00:00")

# ------------------------------------------------------------------ Finnish, Android: "klo" and dotted times
fixture("WhatsApp-keskustelu Aino.txt", """\
18.3.2022 klo 14.02 - Viestit ja puhelut ovat päästä päähän salattuja. Kukaan tämän keskustelun ulkopuolella, ei edes WhatsApp, voi lukea tai kuunnella niitä.
18.3.2022 klo 14.03 - Aino: Moi Sam!
18.3.2022 klo 14.04 - Sam Rivera: Moi Aino
18.3.2022 klo 14.05 - Aino: <media jätettiin pois>
18.3.2022 klo 14.06 - Aino: Tämä viesti poistettiin
19.3.2022 klo 8.00 - Aino: Huomenta
19.3.2022 klo 8.05 - Aino: sijainti: https://maps.google.com/?q=60.169857,24.938379
19.3.2022 klo 8.10 - Sam Rivera: KYSELY:
Milloin sauna?
VAIHTOEHTO: perjantaina (2 ääntä)
VAIHTOEHTO: lauantaina (1 ääni)
""", owner="Sam Rivera", messages=7, media=1, deleted=1, calls=0, system=1,
    senders={"Aino", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:10:00",
    polls=1, locations=1)

# ------------------------------------------------------------------ Greek, Android, 12 h π.μ./μ.μ.
fixture("Συνομιλία WhatsApp με Νίκος.txt", """\
18/3/22, 2:02 μ.μ. - Τα μηνύματα και οι κλήσεις είναι κρυπτογραφημένα από άκρο σε άκρο. Κανείς εκτός αυτής της συνομιλίας, ούτε καν το WhatsApp, δεν μπορεί να τα διαβάσει ή να τα ακούσει.
18/3/22, 2:03 μ.μ. - Νίκος: Γεια σου Sam
18/3/22, 2:04 μ.μ. - Sam Rivera: Γεια!
18/3/22, 2:05 μ.μ. - Νίκος: <αρχείο παραλήφθηκε>
18/3/22, 2:06 μ.μ. - Νίκος: Αυτό το μήνυμα διαγράφηκε
19/3/22, 9:00 π.μ. - Νίκος: Καλημέρα
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Νίκος", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:00:00")

# ------------------------------------------------------------------ Hebrew, Android, right-to-left names
fixture("צ'אט WhatsApp עם דנה.txt", f"""\
18.3.2022, 14:02 - ההודעות והשיחות מוצפנות מקצה לקצה. אף אחד מחוץ לצ'אט הזה, אפילו לא WhatsApp, לא יכול לקרוא או להאזין להן.
18.3.2022, 14:03 - {RLM}דנה: שלום Sam
18.3.2022, 14:04 - Sam Rivera: שלום דנה!
18.3.2022, 14:05 - דנה: <המדיה לא נכללה>
18.3.2022, 14:06 - דנה: ההודעה נמחקה
19.3.2022, 08:00 - דנה: בוקר טוב
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"דנה", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Hungarian, Android, year first with dots
fixture("WhatsApp-csevegés Kovács Annával.txt", """\
2022. 03. 18. 14:02 - Az üzenetek és a hívások végpontok közötti titkosítással vannak védve. Senki sem olvashatja vagy hallgathatja meg őket ezen a csevegésen kívül, még a WhatsApp sem.
2022. 03. 18. 14:03 - Kovács Anna: Szia Sam!
2022. 03. 18. 14:04 - Sam Rivera: Szia Anna!
2022. 03. 18. 14:05 - Kovács Anna: <média elhagyva>
2022. 03. 18. 14:06 - Kovács Anna: Ez az üzenet törölve lett
2022. 03. 19. 08:00 - Kovács Anna: Jó reggelt
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Kovács Anna", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Romanian, Android
fixture("Conversație WhatsApp cu Ioana.txt", """\
18.03.2022, 14:02 - Mesajele și apelurile sunt criptate integral. Nimeni din afara acestui chat, nici chiar WhatsApp, nu le poate citi sau asculta.
18.03.2022, 14:03 - Ioana: Salut Sam!
18.03.2022, 14:04 - Sam Rivera: Salut!
18.03.2022, 14:05 - Ioana: <conținut media omis>
18.03.2022, 14:06 - Ioana: Acest mesaj a fost șters
19.03.2022, 08:00 - Ioana: Bună dimineața
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Ioana", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Persian, Android: Extended Arabic-Indic digits, Gregorian
fixture("گفتگوی واتساپ با علی.txt", f"""\
{RLM}۲۰۲۲/۳/۱۸، ۱۴:۰۲ - پیام‌ها و تماس‌ها رمزگذاری سرتاسری شده‌اند. هیچ‌کس خارج از این گفتگو، حتی واتساپ، نمی‌تواند آن‌ها را بخواند یا گوش دهد.
{RLM}۲۰۲۲/۳/۱۸، ۱۴:۰۳ - علی: سلام سام
{RLM}۲۰۲۲/۳/۱۸، ۱۴:۰۴ - Sam Rivera: سلام علی!
{RLM}۲۰۲۲/۳/۱۸، ۱۴:۰۵ - علی: <رسانه حذف شد>
{RLM}۲۰۲۲/۳/۱۸، ۱۴:۰۶ - علی: این پیام حذف شد
{RLM}۲۰۲۲/۳/۱۹، ۰۸:۰۰ - علی: صبح بخیر
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"علی", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Catalan, Android, 12 h "p. m."
fixture("Xat de WhatsApp amb Jordi.txt", f"""\
18/3/22, 2:02 p.{NNBSP}m. - Els missatges i les trucades estan xifrats d'extrem a extrem. Ningú fora d'aquest xat, ni tan sols WhatsApp, els pot llegir ni escoltar.
18/3/22, 2:03 p.{NNBSP}m. - Jordi: Hola Sam!
18/3/22, 2:04 p.{NNBSP}m. - Sam Rivera: Hola Jordi
18/3/22, 2:05 p.{NNBSP}m. - Jordi: <fitxers multimèdia omesos>
18/3/22, 2:06 p.{NNBSP}m. - Jordi: S'ha suprimit aquest missatge
19/3/22, 9:00 a.{NNBSP}m. - Jordi: Bon dia
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Jordi", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:00:00")

# ------------------------------------------------------------------ Croatian, Android: "18. 03. 2022. 14:02"
fixture("WhatsApp razgovor s Ivana.txt", """\
18. 03. 2022. 14:02 - Poruke i pozivi su sveobuhvatno šifrirani. Nitko izvan ovog chata, čak ni WhatsApp, ne može ih čitati ni slušati.
18. 03. 2022. 14:03 - Ivana: Bok Sam!
18. 03. 2022. 14:04 - Sam Rivera: Bok Ivana
18. 03. 2022. 14:05 - Ivana: <medijski zapis izostavljen>
18. 03. 2022. 14:06 - Ivana: Ova poruka je izbrisana
19. 03. 2022. 08:00 - Ivana: Dobro jutro
""", owner="Sam Rivera", messages=5, media=1, deleted=1, calls=0, system=1,
    senders={"Ivana", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ Slovak, iOS: "[18. 3. 2022 14:02:11]"
fixture("WhatsApp Chat - Peter.txt", f"""\
[18. 3. 2022 14:02:11] Peter Horváth: {LRM}Správy a hovory sú šifrované od začiatku do konca. Nikto mimo tohto chatu, ani WhatsApp, ich nemôže čítať ani počúvať.
[18. 3. 2022 14:03:00] Peter Horváth: Ahoj Sam
[18. 3. 2022 14:04:00] Sam Rivera: Ahoj Peter
{LRM}[18. 3. 2022 14:05:00] Peter Horváth: {LRM}obrázok vynechaný
[18. 3. 2022 14:06:00] Peter Horváth: {LRM}Táto správa bola odstránená.
[18. 3. 2022 19:00:00] Peter Horváth: {LRM}Zmeškaný videohovor
""", owner="Sam Rivera", messages=4, media=1, deleted=1, calls=1, system=1,
    senders={"Peter Horváth", "me"}, first="2022-03-18T14:02:11", last="2022-03-18T19:00:00")

# ------------------------------------------------------------------ Portuguese (Brazil), iOS typed placeholders
fixture("WhatsApp Chat - Mariana.txt", f"""\
[18/03/2022 14:02:11] Mariana Souza: {LRM}As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta.
[18/03/2022 14:03:00] Mariana Souza: Oi Sam!
[18/03/2022 14:04:00] Sam Rivera: Oi Mariana
{LRM}[18/03/2022 14:05:00] Mariana Souza: {LRM}imagem ocultada
{LRM}[18/03/2022 14:05:30] Mariana Souza: {LRM}figurinha omitida
[18/03/2022 14:06:00] Mariana Souza: {LRM}Mensagem apagada
[18/03/2022 20:00:00] Mariana Souza: {LRM}Chamada de vídeo perdida
""", owner="Sam Rivera", messages=5, media=2, deleted=1, calls=1, system=1,
    senders={"Mariana Souza", "me"}, first="2022-03-18T14:02:11", last="2022-03-18T20:00:00")

# ------------------------------------------------------------------ Italian and Russian, iOS: sticker, GIF, audio
fixture("WhatsApp Chat - Luca.txt", f"""\
[18/03/22, 14:02:11] Luca Ferri: Ciao Sam
{LRM}[18/03/22, 14:03:00] Luca Ferri: {LRM}sticker omesso
{LRM}[18/03/22, 14:04:00] Luca Ferri: {LRM}GIF omessa
{LRM}[18/03/22, 14:05:00] Luca Ferri: {LRM}audio omesso
[18/03/22, 14:06:00] Sam Rivera: 😂
""", owner="Sam Rivera", messages=5, media=3, deleted=0, calls=0, system=0,
    senders={"Luca Ferri", "me"}, first="2022-03-18T14:02:11", last="2022-03-18T14:06:00")
fixture("WhatsApp Chat - Дмитрий.txt", f"""\
[18.03.2022, 14:02:11] Дмитрий: Привет, Сэм
{LRM}[18.03.2022, 14:03:00] Дмитрий: {LRM}стикер отсутствует
{LRM}[18.03.2022, 14:04:00] Дмитрий: {LRM}GIF отсутствует
{LRM}[18.03.2022, 14:05:00] Дмитрий: {LRM}аудио отсутствует
[18.03.2022, 14:06:00] Дмитрий: {LRM}Данное сообщение удалено.
""", owner="Sam Rivera", messages=5, media=3, deleted=1, calls=0, system=0,
    senders={"Дмитрий"}, first="2022-03-18T14:02:11", last="2022-03-18T14:06:00")

# ------------------------------------------------------------------ English group: the end-to-end notice under the group's name
fixture("WhatsApp Chat - Pokemon Chat.txt", """\
[3/18/22, 2:02:11 PM] Pokemon Chat: Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them.
[3/18/22, 2:03:00 PM] Ash: Who's up for a raid?
[3/18/22, 2:04:00 PM] Sam Rivera: Me!
[3/18/22, 2:05:00 PM] Misty: This message was deleted by admin Ash.
[3/18/22, 2:06:00 PM] Misty: <Media omitted>
""", owner="Sam Rivera", messages=4, media=1, deleted=1, calls=0, system=1,
    senders={"Ash", "me", "Misty"}, first="2022-03-18T14:02:11", last="2022-03-18T14:06:00")

# ------------------------------------------------------------------ calendars and clocks in other forms
fixture("WhatsApp Chat - Somchai BE.txt", f"""\
[3/18/2565 BE, 2:02:11{NNBSP}PM] Somchai: Hello from Bangkok
[3/18/2565 BE, 2:03:00{NNBSP}PM] Sam Rivera: Hi Somchai!
[3/19/2565 BE, 9:00:00{NNBSP}AM] Somchai: Good morning
""", owner="Sam Rivera", messages=3, media=0, deleted=0, calls=0, system=0,
    senders={"Somchai", "me"}, first="2022-03-18T14:02:11", last="2022-03-19T09:00:00")
fixture("WhatsApp Chat - Yuki era.txt", """\
[4/30/H31 23:50:00] Yuki: Last night of Heisei
[5/1/R1 00:10:00] Sam Rivera: First minutes of Reiwa!
[3/18/R4 14:02:11] Yuki: Three years later
""", owner="Sam Rivera", messages=3, media=0, deleted=0, calls=0, system=0,
    senders={"Yuki", "me"}, first="2019-04-30T23:50:00", last="2022-03-18T14:02:11")
fixture("WhatsApp Chat with Rahim.txt", """\
১৮/৩/২২, ২:০২ PM - Rahim: Hello Sam
১৮/৩/২২, ২:০৩ PM - Sam Rivera: Hi Rahim
১৯/৩/২২, ৯:০০ AM - Rahim: Good morning
""", owner="Sam Rivera", messages=3, media=0, deleted=0, calls=0, system=0,
    senders={"Rahim", "me"}, first="2022-03-18T14:02:00", last="2022-03-19T09:00:00")
# Marathi markers no table knows: learned from how they flip around noon.
fixture("WhatsApp Chat with Priya.txt", """\
१८/३/२२, ९:१५ म.पू. - Priya: Good morning
१८/३/२२, ११:४० म.पू. - Sam Rivera: Morning!
१८/३/२२, १२:१० म.उ. - Priya: Lunch?
१८/३/२२, ६:३० म.उ. - Priya: Dinner then
१९/३/२२, ८:०० म.पू. - Sam Rivera: Sorry, slept early
१९/३/२२, ३:०० म.उ. - Priya: No problem
""", owner="Sam Rivera", messages=6, media=0, deleted=0, calls=0, system=0,
    senders={"Priya", "me"}, first="2022-03-18T09:15:00", last="2022-03-19T15:00:00")
# A header layout no grammar rule covers (no separator before the author): learned from the file.
fixture("WhatsApp Chat with Goran.txt", """\
18. 3. 2022. 14:02:11 Goran: Zdravo Sam
18. 3. 2022. 14:03:00 Sam Rivera: Zdravo
how are you
19. 3. 2022. 08:00:00 Goran: Dobro jutro
""", owner="Sam Rivera", messages=3, media=0, deleted=0, calls=0, system=0,
    senders={"Goran", "me"}, first="2022-03-18T14:02:11", last="2022-03-19T08:00:00")

# ------------------------------------------------------------------ unknown words: shapes decide
fixture("WhatsApp Chat with Kofi.txt", f"""\
[18/03/2022, 14:02:11] Kofi: Akwaaba Sam
[18/03/2022, 14:03:00] Kofi: <Nsɛm a wɔayi afi mu>
[18/03/2022, 14:04:00] Kofi: Ticket.pdf (fael a wɔde aka ho)
[18/03/2022, 14:05:00] Sam Rivera: Medaase
[18/03/2022, 14:06:00] Ama: {LRM}Wɔayi nkra yi
""", owner="Sam Rivera", messages=5, media=2, deleted=0, calls=0, system=0,
    senders={"Kofi", "me", "Ama"}, first="2022-03-18T14:02:11", last="2022-03-18T14:06:00")


def build() -> dict[str, bytes]:
    """File name -> bytes of every language fixture."""
    return {name: text.encode() for name, (text, _) in FIXTURES.items()}


def main() -> int:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, data in build().items():
        (FOLDER / name).write_bytes(data)
    print(f"wrote {len(FIXTURES)} files to {FOLDER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
