"""The five WhatsApp text exports the token-budget test and benchmark read, written on demand.

English, German, Russian, Chinese and an emoji-heavy chat, each between the owner (Sam Rivera)
and one friend, about 150 messages over two weeks: everyday lines of mixed length, a few
multi-line messages, media left out of the export and a deleted message, in the header format
each language's phone writes. `write(folder)` writes them (the same every time: seeded); they are
not kept under fixtures/, whose folder other tests import whole.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

OWNER = "Sam Rivera"
MESSAGES = 150

# (file name, friend, header format, media line, deleted line, lines)
CHATS: list[tuple[str, str, str, str, str, list[str]]] = [
    ("WhatsApp Chat with Maya Collins.txt", "Maya Collins", "%d/%m/%Y, %H:%M",
     "<Media omitted>", "This message was deleted", [
         "Morning! Did you sleep ok after the flight?",
         "Barely. The kid behind me kicked my seat for six hours straight",
         "Oh no. Coffee at 10 at the usual place?",
         "Make it 10:30, I still have to drop the car keys at my sister's",
         "Deal. I'll grab the table by the window",
         "Have you heard back from the landlord about the leak in the bathroom?",
         "He says a plumber comes Thursday between 8 and 12, which means noon at best",
         "Classic. Take photos of the ceiling before they fix it, just in case",
         "Good idea, I'll send them to you too so there's a copy somewhere",
         "Are we still doing the hike on Sunday or is the weather going to ruin it?",
         "Forecast says 40% rain after 2pm, so if we start at 8 we should be fine",
         "8 is brutal but ok. I'll bring sandwiches and the big thermos",
         "Can you pick up Leo on the way? His bike has a flat",
         "Sure, tell him to be outside at 7:40, I'm not waiting this time",
         "Lol he promised. I'll believe it when I see it",
         "Did you finish the book? I'm stuck at the part where they leave the island",
         "Finished it last night. Keep going, the last 50 pages are the best part",
         "No spoilers please!!",
         "My lips are sealed. Book club is on the 14th by the way, at Priya's",
         "Reminder that the electricity bill is due Friday, it's 84.20 this month",
         "Paid it just now, you owe me 42.10 whenever",
         "Sending it tonight. Also what do you want for your birthday?",
         "Honestly nothing, maybe dinner somewhere nice",
         "There's that new Lebanese place on Elm Street, supposed to be great",
         "Let's do it. Can you book for Saturday around 7?",
         "Booked, table for 4 at 19:15 under your name",
         "You're the best",
         "Running 10 minutes late, the train is stuck outside the station again",
         "No worries, I ordered you a flat white",
         "Do you still have the charger I lent you in March?",
         "It's in the drawer next to the fridge, I'll bring it Saturday",
         "The vet said Biscuit is fine, just ate something weird in the park",
         "Thank god. Was it expensive?",
         "120 for the visit and the tablets, but at least he's back to normal",
         "Can you send me the address of the place where you got your bike fixed?",
         "Miller's Cycles, 22 Harbour Road. Ask for Dan, he's quick and fair",
         "My manager just moved the deadline up by a week, I'm losing my mind",
         "That's awful. Want to vent over dinner tonight?",
         "Yes please. Somewhere with fries",
         "I'm outside, the blue car",
     ]),
    ("WhatsApp Chat mit Jonas Weber.txt", "Jonas Weber", "%d.%m.%y, %H:%M",
     "<Medien ausgeschlossen>", "Diese Nachricht wurde gelöscht", [
         "Guten Morgen! Hast du gut geschlafen?",
         "Geht so, die Nachbarn haben bis zwei Uhr nachts gefeiert",
         "Oh Mann. Kaffee um 10 im Café am Markt?",
         "Lieber 10:30, ich muss vorher noch zur Post und ein Paket abholen",
         "Passt. Ich halte uns den Platz am Fenster frei",
         "Hat sich der Vermieter wegen der Heizung gemeldet?",
         "Ja, der Handwerker kommt am Donnerstag zwischen 8 und 12 Uhr",
         "Mach vorher Fotos von den Wasserflecken an der Wand, nur zur Sicherheit",
         "Gute Idee, ich schicke sie dir auch, dann haben wir eine Kopie",
         "Bleibt es bei der Wanderung am Sonntag oder regnet es?",
         "Laut Wetterbericht ab 14 Uhr Regen, wenn wir um 8 starten, passt das",
         "8 Uhr ist hart, aber okay. Ich bringe Brötchen und die große Thermoskanne mit",
         "Kannst du Leonie unterwegs abholen? Ihr Fahrrad hat einen Platten",
         "Klar, sag ihr, sie soll um 7:40 vor der Tür stehen, ich warte diesmal nicht",
         "Haha, sie hat es versprochen. Mal sehen",
         "Hast du das Buch schon durch? Ich hänge bei der Stelle mit der Überfahrt",
         "Gestern Abend fertig geworden. Lies weiter, die letzten 50 Seiten sind die besten",
         "Bitte keine Spoiler!!",
         "Versprochen. Der Lesekreis ist übrigens am 14., bei Katrin",
         "Erinnerung: die Stromrechnung ist Freitag fällig, diesen Monat 84,20 €",
         "Gerade überwiesen, du schuldest mir 42,10 € wann immer es passt",
         "Schicke ich heute Abend. Was wünschst du dir eigentlich zum Geburtstag?",
         "Ehrlich gesagt nichts, vielleicht ein schönes Abendessen",
         "In der Schillerstraße hat ein neues libanesisches Restaurant aufgemacht, soll super sein",
         "Machen wir. Kannst du für Samstag gegen 19 Uhr reservieren?",
         "Reserviert, Tisch für vier um 19:15 Uhr auf deinen Namen",
         "Du bist die Beste",
         "Ich komme zehn Minuten später, die S-Bahn steht schon wieder vor dem Bahnhof",
         "Kein Problem, ich habe dir schon einen Cappuccino bestellt",
         "Hast du noch das Ladegerät, das ich dir im März geliehen habe?",
         "Liegt in der Schublade neben dem Kühlschrank, ich bringe es Samstag mit",
         "Die Tierärztin sagt, Bello geht es gut, er hat nur etwas Komisches im Park gefressen",
         "Zum Glück. War es teuer?",
         "120 € für Untersuchung und Tabletten, aber er ist wieder ganz der Alte",
         "Schickst du mir die Adresse der Fahrradwerkstatt?",
         "Radhaus Müller, Hafenstraße 22. Frag nach Dennis, der ist schnell und fair",
         "Meine Chefin hat die Abgabe um eine Woche vorgezogen, ich drehe durch",
         "Das ist übel. Willst du heute Abend beim Essen Dampf ablassen?",
         "Ja bitte. Irgendwo mit Pommes",
         "Ich stehe unten, das blaue Auto",
     ]),
    ("Чат WhatsApp с Алексей Морозов.txt", "Алексей Морозов", "%d.%m.%Y, %H:%M",
     "<Без медиафайлов>", "Данное сообщение удалено", [
         "Доброе утро! Как долетел?",
         "Еле живой, ребёнок сзади шесть часов пинал моё кресло",
         "Ужас. Кофе в 10 на нашем месте?",
         "Давай в 10:30, мне ещё надо завезти ключи сестре",
         "Договорились, займу столик у окна",
         "Хозяин квартиры ответил насчёт протечки в ванной?",
         "Говорит, сантехник придёт в четверг с 8 до 12, значит, к обеду в лучшем случае",
         "Классика. Сфотографируй потолок до ремонта, на всякий случай",
         "Хорошая мысль, скину и тебе, чтобы была копия",
         "Мы всё ещё идём в поход в воскресенье или погода всё испортит?",
         "Прогноз обещает дождь после двух, если выйдем в 8, успеем",
         "В 8 тяжело, но ладно. Возьму бутерброды и большой термос",
         "Можешь по дороге забрать Лёшу? У него проколото колесо",
         "Конечно, пусть стоит у подъезда в 7:40, в этот раз ждать не буду",
         "Ха-ха, он обещал. Посмотрим",
         "Ты дочитал книгу? Я застрял на том месте, где они уплывают с острова",
         "Дочитал вчера вечером. Читай дальше, последние 50 страниц самые лучшие",
         "Только без спойлеров!!",
         "Молчу. Книжный клуб, кстати, 14-го у Наташи",
         "Напоминаю: за свет платить до пятницы, в этом месяце 2 340 ₽",
         "Только что оплатил, с тебя 1 170 ₽ когда сможешь",
         "Переведу вечером. Кстати, что тебе подарить на день рождения?",
         "Честно, ничего не надо, может, просто поужинать где-нибудь",
         "На Садовой открылся новый грузинский ресторан, говорят, отличный",
         "Давай. Забронируешь на субботу часов на семь?",
         "Забронировал, столик на четверых на 19:15 на твоё имя",
         "Ты лучший",
         "Опаздываю минут на десять, электричка опять стоит перед станцией",
         "Ничего, я уже заказал тебе капучино",
         "У тебя ещё осталась зарядка, которую я давал в марте?",
         "Лежит в ящике рядом с холодильником, принесу в субботу",
         "Ветеринар сказал, что с Барсиком всё хорошо, просто съел что-то в парке",
         "Слава богу. Дорого вышло?",
         "3 500 ₽ за приём и таблетки, но он снова в порядке",
         "Скинешь адрес мастерской, где тебе чинили велосипед?",
         "Веломастерская на Портовой, 22. Спроси Дениса, он быстрый и честный",
         "Начальница перенесла дедлайн на неделю раньше, я схожу с ума",
         "Жесть. Хочешь выговориться за ужином сегодня?",
         "Да, пожалуйста. Куда-нибудь, где есть картошка фри",
         "Я внизу, синяя машина",
     ]),
    ("与李娜的 WhatsApp 聊天.txt", "李娜", "chinese",
     "<省略多媒体文件>", "此消息已删除", [
         "早上好！昨晚睡得怎么样？",
         "不太好，楼上邻居一直到两点还在吵",
         "太惨了。十点老地方喝咖啡？",
         "十点半吧，我还得先去快递站取个包裹",
         "好的，我先去占靠窗的位子",
         "房东回复你卫生间漏水的事了吗？",
         "他说修理工周四上午八点到十二点之间来",
         "修之前先把天花板拍几张照片，以防万一",
         "好主意，我也发你一份留个底",
         "周日还去爬山吗？天气会不会不好？",
         "天气预报说下午两点以后有雨，早上八点出发应该没问题",
         "八点有点早，不过行吧。我带三明治和大保温壶",
         "你能顺路接一下小明吗？他的自行车爆胎了",
         "没问题，让他七点四十在楼下等，这次我可不等人",
         "哈哈，他保证过了，看他表现吧",
         "那本书你看完了吗？我卡在他们离开小岛那一段",
         "昨晚看完了。继续看，最后五十页最精彩",
         "千万别剧透！！",
         "我不说。顺便提醒一下，读书会是十四号，在王芳家",
         "提醒一下，电费周五到期，这个月是二百三十四块",
         "刚交了，你什么时候方便转我一百一十七就行",
         "今晚转你。对了，你生日想要什么礼物？",
         "说实话什么都不用，一起吃顿好的就行",
         "南京路新开了一家云南菜，听说很不错",
         "好啊。你能订周六晚上七点左右吗？",
         "订好了，周六七点一刻，四个人，用你的名字",
         "你最好了",
         "我要晚十分钟，地铁又停在站外了",
         "没事，我已经帮你点了一杯拿铁",
         "我三月借你的充电器还在你那儿吗？",
         "在冰箱旁边的抽屉里，周六带给你",
         "兽医说豆豆没事，就是在公园里吃了点奇怪的东西",
         "谢天谢地。花了多少钱？",
         "看病加药三百五，不过它已经恢复正常了",
         "能把你修自行车那家店的地址发我吗？",
         "港口路二十二号的老陈车行，找陈师傅，又快又实在",
         "领导把截止日期提前了一周，我快疯了",
         "太过分了。今晚一起吃饭吐槽一下？",
         "好的，找个有薯条的地方",
         "我在楼下，蓝色的车",
     ]),
    ("WhatsApp Chat with Zoe Park.txt", "Zoe Park", "%d/%m/%Y, %H:%M",
     "<Media omitted>", "This message was deleted", [
         "GOOD MORNING ☀️☀️☀️",
         "morning 😴😴 need coffee ☕",
         "omw ☕🥐 usual place?",
         "yesss 🙌🙌 10:30?",
         "👍👍",
         "the landlord finally answered 🙄🙄 plumber thursday 🔧💧",
         "FINALLY 🎉🎉🎉",
         "take pics of the ceiling first 📸📸",
         "done ✅ sending them to u 📤",
         "hike sunday?? 🥾⛰️🌲",
         "rain after 2 🌧️🌧️ so 8am start ⏰",
         "8am 💀💀💀 ok fine. I'll bring sandwiches 🥪🥪 and the thermos ☕",
         "can u pick up Leo 🚲💥 flat tyre",
         "sure 🚗 7:40 sharp or I'm leaving 😤",
         "😂😂😂 he promised 🤞",
         "did u finish the book 📖👀",
         "YES 😭😭😭 the ending omg 💔💔",
         "NO SPOILERS 🙉🙈🙊",
         "🤐🤐 book club on the 14th at Priya's 📚🍷",
         "electricity bill due fri ⚡💸 84.20",
         "paid ✅💳 u owe me 42.10 😘",
         "sending tonight 💸 what do u want for ur bday 🎂🎁",
         "nothing 🥺 maybe dinner 🍽️✨",
         "new lebanese place on elm st 🧆🥙🔥🔥",
         "YES 🤤🤤 book sat 7pm??",
         "booked 📅✅ 4 ppl 19:15 🥂",
         "ur the best 🥰🥰🥰💖",
         "running late 🚆😩 train stuck again 🙃",
         "np 😌 ordered u a flat white ☕❤️",
         "do u still have my charger 🔌🤔",
         "drawer by the fridge 🗄️ bringing it sat 👌",
         "vet says Biscuit is fine 🐶💚 ate something weird 🤢",
         "omg thank god 😮‍💨😮‍💨🙏🙏",
         "120 for everything 💸🐕 but he's back to zoomies 🐕💨💨",
         "address of the bike shop?? 🚲🔧",
         "Miller's Cycles 📍22 Harbour Rd ask for Dan 👨‍🔧👍",
         "boss moved my deadline up a week 😡😡🔥🔥🔥",
         "noooo 😱 dinner + venting tonight? 🍕🗣️",
         "pleaseee 🍟🍟🍟",
         "outside 🚙💙 🎶🎶",
     ]),
]


def _header(when: datetime, fmt: str) -> str:
    if fmt == "chinese":  # 2022/3/18 下午2:02
        half = "上午" if when.hour < 12 else "下午"
        hour = when.hour % 12 or 12
        return f"{when.year}/{when.month}/{when.day} {half}{hour}:{when.minute:02d}"
    return when.strftime(fmt)


def build_chat(friend: str, fmt: str, media: str, deleted: str, lines: list[str], seed: int) -> str:
    rnd = random.Random(seed)
    when = datetime(2024, 3, 4, 8, 15)
    out: list[str] = []
    speaker = friend
    for i in range(MESSAGES):
        gap = rnd.choice([1, 2, 3, 5, 12, 40]) if rnd.random() < 0.8 else rnd.randint(240, 900)
        when += timedelta(minutes=gap)
        if rnd.random() < 0.6:  # a reply, not another line from the same person
            speaker = OWNER if speaker == friend else friend
        if i == 37:
            text = media
        elif i == 88:
            text = deleted
        else:
            text = lines[(i * 7 + rnd.randint(0, 3)) % len(lines)]
            if rnd.random() < 0.1:  # a second line typed into the same message
                text += "\n" + lines[rnd.randrange(len(lines))]
        out.append(f"{_header(when, fmt)} - {speaker}: {text}")
    return "\n".join(out) + "\n"


def build() -> dict[str, str]:
    return {name: build_chat(friend, fmt, media, deleted, lines, seed)
            for seed, (name, friend, fmt, media, deleted, lines) in enumerate(CHATS)}


def write(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in build().items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
