"""Words of languages without a table of their own: Android's "<Media omitted>" and the
deleted-message text. Sources: see SOURCES.md ("chat-analytics", "notification-filter").
"""

MEDIA_OMITTED = {
    "af": ["<media weggelaat>"],
    "az": ["<media buraxıldı>", "<Media çıxarılmışdır>"],
    "bg": ["<Без файл>"],
    "bn": ["<মিডিয়া বাদ দেওয়া হয়েছে>"],
    "et": ["<meedia välja jäetud>", "<Meedia ära jäetud>"],
    "gu": ["<મિડિયા છોડી મૂકાયું>", "<મીડિયા અવગણવામાં આવ્યા>"],
    "kk": ["<файлдар қосылмаған>", "<Файл қосылған жоқ>"],
    "kn": ["<ಮಾಧ್ಯಮ ಕೈಬಿಡಲಾಗಿದೆ>"],
    "lo": ["<ບໍ່ລວມມີເດຍ>"],
    "lt": ["<medija praleista>", "<Praleistas medijos turinys>"],
    "lv": ["<nav iekļauta multivide>", "<Bez multivides>"],
    "mk": ["<без фајлови>", "<Без фајл>"],
    "ml": ["<മീഡിയ ഒഴിവാക്കി>"],
    "mr": ["<मीडिया वगळण्यात आला>", "<मीडिया वगळले>"],
    "pa": ["<ਮੀਡੀਆ ਛੱਡਿਆ>", "<ਮੀਡੀਆ ਛਡਿਆ ਗਿਆ>"],
    "sl": ["<datoteke izpuščene>", "<Medij izpuščen>"],
    "sq": ["<media u hoq>", "<Media hequr>"],
    "sr": ["<медији су изостављени>"],
    "sw": ["<media hazijajumuishwa>", "<Media imerukwa>"],
    "ta": ["<கோப்புகள் விடப்பட்டன>", "< ஊடகங்கள் நீக்கப்பட்டது >"],
    "te": ["<మీడియా విస్మరించబడింది>", "<మాధ్యమం విస్మరించబడింది>"],
    "tl": ["<ınalis ang media>", "<Walang kalakip na media>"],
    "ur": ["<میڈیا چھوڑ دیا گیا>", "<میڈیا ہٹا دیا گیا>"],
    "uz": ["<fayl o‘tkazib yuborildi>"],
}

DELETED = {
    "gu": ["આ સંદેશ કાઢી નાખવામાં આવ્યો છે"],
    "ta": ["இந்த செய்தி நீக்கப்பட்டது"],
    "te": ["ఈ సందేశం తొలగించబడింది"],
    "kn": ["ಈ ಸಂದೇಶವನ್ನು ಅಳಿಸಲಾಗಿದೆ"],
    "ml": ["ഈ സന്ദേശം ഇല്ലാതാക്കി"],
}
