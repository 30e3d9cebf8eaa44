"""What a WhatsApp message body means, in every app language we know of.

WhatsApp writes the exported text in the phone's language: system events ("Anna added Ben"),
media placeholders ("<Media omitted>", "Bild weggelassen"), deletions, edit marks, polls,
locations and missed calls. The tables below hold those phrases for English, German, Spanish,
French, Portuguese, Italian, Dutch, Russian and Turkish (plus the Android media placeholder in
many more languages). All matching runs on text already passed through `for_matching`.

    >>> e = classify_event('Anna Berg changed the subject from "Hike" to "Hike 2024"')
    >>> (e.event, e.actor, e.old, e.new)
    ('subject', 'Anna Berg', 'Hike', 'Hike 2024')
    >>> classify_event("Du hast Ben Ortiz hinzugefügt").actor_is_you
    True
    >>> media_placeholder("IMG-20240102-WA0003.jpg (Datei angehängt)")
    ('image', 'IMG-20240102-WA0003.jpg')
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# ----------------------------------------------------------------------------- system events

EVENTS = (
    "created", "added", "removed", "left", "subject", "icon", "description",
    "security_code", "timer", "number_changed", "e2e", "contact", "unknown",
)
# Events whose wording is distinctive enough to recognise even after an author prefix
# ("+1 555: +1 555 updated the message timer..." on Android). "added"/"left" are not.
STRONG_EVENTS = frozenset(
    {"created", "subject", "icon", "description", "security_code", "timer", "number_changed", "e2e"}
)

_Q = r"[\"“”„«»‘’'‚‹›]"  # any quote WhatsApp puts around a group name
_QN = _Q + r"\s?(?P<{g}>.*?)\s?" + _Q  # a quoted name, French style spaces allowed


def _qn(group: str) -> str:
    return _QN.format(g=group)


_A = r"(?P<actor>.+?)"  # who did it
_O = r"(?P<obj>.+?)"  # whom it was done to

# (event, pattern, the actor is the owner). Tried in order, anchored at the start, so the
# specific phrases come before the loose "X added Y" ones of the same language.
_PATTERNS: list[tuple[str, str, bool]] = [
    # ---- English
    ("e2e", r".*end-to-end encrypt", False),
    ("created", _A + r" created (?:the )?group " + _qn("new") + r"$", False),
    ("created", _A + r" created this group$", False),
    ("subject", _A + r" changed the (?:subject|group name) from " + _qn("old") + r" to " + _qn("new") + r"$", False),
    ("subject", _A + r" changed the (?:subject|group name) to " + _qn("new") + r"$", False),
    ("icon", _A + r" (?:changed|deleted|removed) (?:this group's|the group's|the group) (?:icon|photo|picture)", False),
    ("description", _A + r" (?:changed|deleted) the group description", False),
    ("security_code", r"your security code with " + _O + r" changed", False),
    ("security_code", _O + r"'s security code changed", False),
    ("timer", _A + r" (?:turned (?:on|off)|changed|updated|set) (?:disappearing messages|the message timer|the disappearing message timer)", False),
    ("timer", r".*disappearing messages", False),
    ("number_changed", _A + r" changed (?:their|his|her) phone number", False),
    ("number_changed", _A + r" changed to (?P<obj>\+?[\d ()-]{6,})$", False),
    ("contact", _A + r" is a contact$", False),
    ("added", r"you were added$", False),
    ("added", _A + r" joined using (?:this|the) group'?s invite link$", False),
    ("added", _A + r" added " + _O + r"$", False),
    ("removed", r"you were removed$", False),
    ("removed", _A + r" removed " + _O + r"$", False),
    ("left", _A + r" left(?: the group)?$", False),
    # ---- German
    ("e2e", r".*ende-zu-ende-(?:verschlüsselt|verschlüsselung)", False),
    ("created", _A + r" (?:hat|hast) (?:die )?gruppe " + _qn("new") + r" erstellt$", False),
    ("subject", _A + r" (?:hat|hast) den (?:betreff|gruppennamen) von " + _qn("old") + r" (?:zu|in) " + _qn("new") + r" geändert$", False),
    ("subject", _A + r" (?:hat|hast) den (?:betreff|gruppennamen) (?:zu|in) " + _qn("new") + r" geändert$", False),
    ("icon", _A + r" (?:hat|hast) (?:das gruppenbild|das bild dieser gruppe|das gruppenfoto) (?:geändert|gelöscht|entfernt)", False),
    ("description", _A + r" (?:hat|hast) die gruppenbeschreibung (?:geändert|gelöscht)", False),
    ("security_code", r"deine sicherheitsnummer (?:für|mit) " + _O + r" hat sich geändert", False),
    ("security_code", r"die sicherheitsnummer von " + _O + r" hat sich geändert", False),
    ("timer", _A + r" (?:hat|hast) (?:die |den )?(?:selbstlöschende nachrichten|nachrichtentimer)", False),
    ("timer", r".*(?:selbstlöschende nachrichten|nachrichtentimer)", False),
    ("number_changed", _A + r" hat (?:seine|ihre|die) telefonnummer", False),
    ("number_changed", _A + r" hat zu (?P<obj>\+?[\d ()-]{6,}) gewechselt", False),
    ("contact", _A + r" ist ein kontakt$", False),
    ("added", r"du wurdest hinzugefügt$", False),
    ("added", _A + r" ist (?:der gruppe )?über (?:den )?einladungslink (?:der gruppe )?beigetreten$", False),
    ("added", _A + r" (?:hat|hast) " + _O + r" hinzugefügt$", False),
    ("removed", _A + r" (?:hat|hast) " + _O + r" entfernt$", False),
    ("left", _A + r" (?:hat|hast) die gruppe verlassen$", False),
    ("left", _A + r" ist ausgetreten$", False),
    # ---- Spanish
    ("e2e", r".*cifrad[oa]s? de extremo a extremo", False),
    ("created", _A + r" creó el grupo " + _qn("new") + r"$", False),
    ("created", r"creaste el grupo " + _qn("new") + r"$", True),
    ("subject", _A + r" cambió el (?:asunto|nombre del grupo) de " + _qn("old") + r" a " + _qn("new") + r"$", False),
    ("subject", _A + r" cambió el (?:asunto|nombre del grupo) a " + _qn("new") + r"$", False),
    ("subject", r"cambiaste el (?:asunto|nombre del grupo) (?:de " + _qn("old") + r" )?a " + _qn("new") + r"$", True),
    ("icon", _A + r" (?:cambió|eliminó) (?:el ícono|el icono|la imagen|la foto) (?:de este grupo|del grupo)", False),
    ("icon", r"(?:cambiaste|eliminaste) (?:el ícono|el icono|la imagen|la foto) (?:de este grupo|del grupo)", True),
    ("description", _A + r" (?:cambió|eliminó) la descripción del grupo", False),
    ("description", r"(?:cambiaste|eliminaste) la descripción del grupo", True),
    ("security_code", r"tu código de seguridad con " + _O + r" cambió", False),
    ("security_code", r"el código de seguridad de " + _O + r" cambió", False),
    ("timer", _A + r" (?:activó|desactivó|cambió|actualizó) (?:los |la duración de los )?mensajes temporales", False),
    ("timer", r"(?:activaste|desactivaste|cambiaste) (?:los )?mensajes temporales", True),
    ("timer", r".*mensajes temporales", False),
    ("number_changed", _A + r" cambió su número(?: de teléfono)?", False),
    ("number_changed", _A + r" cambió a (?P<obj>\+?[\d ()-]{6,})$", False),
    ("contact", _A + r" es un contacto$", False),
    ("added", r"(?:añadiste|agregaste) a " + _O + r"$", True),
    ("added", _A + r" te (?:añadió|agregó)$", False),
    ("added", _A + r" se unió (?:usando|mediante|con) el enlace de invitación(?: de este grupo)?$", False),
    ("added", r"te uniste (?:usando|mediante|con) el enlace de invitación(?: de este grupo)?$", True),
    ("added", _A + r" (?:añadió|agregó) a " + _O + r"$", False),
    ("removed", r"eliminaste a " + _O + r"$", True),
    ("removed", _A + r" te eliminó$", False),
    ("removed", _A + r" eliminó a " + _O + r"$", False),
    ("left", r"saliste(?: del grupo)?$", True),
    ("left", _A + r" salió(?: del grupo)?$", False),
    # ---- French
    ("e2e", r".*chiffr(?:és|ement) de bout en bout", False),
    ("created", _A + r" (?:a|avez) créé (?:le )?groupe " + _qn("new") + r"$", False),
    ("subject", _A + r" (?:a|avez) (?:modifié|changé) (?:le sujet|le nom du groupe) (?:de " + _qn("old") + r" )?(?:en|à|pour|par) " + _qn("new") + r"$", False),
    ("icon", _A + r" (?:a|avez) (?:modifié|changé|supprimé) (?:l['’]icône|la photo|l['’]image) (?:de ce groupe|du groupe)", False),
    ("description", _A + r" (?:a|avez) (?:modifié|changé|supprimé) la description du groupe", False),
    ("security_code", r"votre code de sécurité avec " + _O + r" a changé", False),
    ("security_code", r"le code de sécurité de " + _O + r" a changé", False),
    ("timer", _A + r" (?:a|avez) (?:activé|désactivé|modifié) (?:les |la durée des )?messages éphémères", False),
    ("timer", r".*messages éphémères", False),
    ("number_changed", _A + r" a changé (?:de|son) numéro", False),
    ("contact", _A + r" est un contact$", False),
    ("added", _A + r" vous a ajouté(?:e|\(e\))?$", False),
    ("added", _A + r" (?:a rejoint|s['’]est joint\S*) .*lien d['’]invitation.*$", False),
    ("added", _A + r" (?:a|avez) ajouté " + _O + r"$", False),
    ("removed", _A + r" vous a retiré(?:e|\(e\))?$", False),
    ("removed", _A + r" (?:a|avez) retiré " + _O + r"$", False),
    ("left", _A + r" (?:est parti|êtes parti|a quitté|avez quitté)\S*(?: le groupe)?$", False),
    # ---- Portuguese
    ("e2e", r".*criptografia de ponta a ponta", False),
    ("created", _A + r" criou o grupo " + _qn("new") + r"$", False),
    ("created", _A + r" criou este grupo$", False),
    ("subject", _A + r" (?:mudou|alterou) o (?:assunto|nome do grupo) (?:de " + _qn("old") + r" )?para " + _qn("new") + r"$", False),
    ("icon", _A + r" (?:mudou|alterou|apagou|removeu) a (?:imagem|foto) (?:deste|do) grupo", False),
    ("description", _A + r" (?:mudou|alterou|apagou) a descrição do grupo", False),
    ("security_code", r"(?:o )?seu código de segurança com " + _O + r" (?:mudou|foi alterado)", False),
    ("timer", _A + r" (?:ativou|desativou|alterou) (?:as )?mensagens temporárias", False),
    ("timer", r".*mensagens temporárias", False),
    ("number_changed", _A + r" mudou (?:seu|o|de) (?:número|numero)", False),
    ("number_changed", _A + r" mudou para (?P<obj>\+?[\d ()-]{6,})$", False),
    ("contact", _A + r" é um contato$", False),
    ("added", _A + r" entrou usando o link de convite(?: deste grupo)?$", False),
    ("added", _A + r" adicionou " + _O + r"$", False),
    ("removed", _A + r" removeu " + _O + r"$", False),
    ("left", _A + r" saiu(?: do grupo)?$", False),
    # ---- Italian
    ("e2e", r".*crittografat[ie] end-to-end|.*crittografia end-to-end", False),
    ("created", _A + r" ha creato il gruppo " + _qn("new") + r"$", False),
    ("created", r"hai creato il gruppo " + _qn("new") + r"$", True),
    ("subject", _A + r" ha (?:cambiato|modificato) (?:l['’]oggetto|il nome del gruppo) (?:da " + _qn("old") + r" )?(?:a|in) " + _qn("new") + r"$", False),
    ("subject", r"hai (?:cambiato|modificato) (?:l['’]oggetto|il nome del gruppo) (?:da " + _qn("old") + r" )?(?:a|in) " + _qn("new") + r"$", True),
    ("icon", _A + r" ha (?:cambiato|modificato|eliminato) l['’]immagine (?:di questo|del) gruppo", False),
    ("icon", r"hai (?:cambiato|modificato|eliminato) l['’]immagine (?:di questo|del) gruppo", True),
    ("description", _A + r" ha (?:cambiato|modificato|eliminato) la descrizione del gruppo", False),
    ("description", r"hai (?:cambiato|modificato|eliminato) la descrizione del gruppo", True),
    ("security_code", r"il (?:tuo )?codice di sicurezza (?:con|di) " + _O + r" è cambiato", False),
    ("timer", _A + r" ha (?:attivato|disattivato|modificato) (?:i )?messaggi effimeri", False),
    ("timer", r"hai (?:attivato|disattivato|modificato) (?:i )?messaggi effimeri", True),
    ("timer", r".*messaggi effimeri", False),
    ("number_changed", _A + r" ha cambiato (?:il suo )?numero", False),
    ("contact", _A + r" è un contatto$", False),
    ("added", r"hai aggiunto " + _O + r"$", True),
    ("added", _A + r" ti ha aggiunto$", False),
    ("added", _A + r" si è unit[oa] tramite (?:il )?link d['’]invito$", False),
    ("added", _A + r" ha aggiunto " + _O + r"$", False),
    ("removed", r"hai rimosso " + _O + r"$", True),
    ("removed", _A + r" ti ha rimosso$", False),
    ("removed", _A + r" ha rimosso " + _O + r"$", False),
    ("left", r"(?:sei uscit[oa]|hai abbandonato)(?: il gruppo)?$", True),
    ("left", _A + r" (?:è uscit[oa]|ha abbandonato)(?: il gruppo)?$", False),
    # ---- Dutch
    ("e2e", r".*end-to-end(?:-| )?versleutel", False),
    ("created", _A + r" (?:heeft|hebt|heb) (?:de )?groep " + _qn("new") + r" (?:aangemaakt|gemaakt)$", False),
    ("subject", _A + r" (?:heeft|hebt) (?:de groepsnaam|het onderwerp) (?:gewijzigd )?(?:van " + _qn("old") + r" )?(?:gewijzigd )?(?:naar|in) " + _qn("new") + r"(?: gewijzigd)?$", False),
    ("icon", _A + r" (?:heeft|hebt) (?:het groepsicoon|de groepsafbeelding|de groepsfoto|de afbeelding van deze groep) (?:gewijzigd|verwijderd)", False),
    ("description", _A + r" (?:heeft|hebt) de groepsbeschrijving (?:gewijzigd|verwijderd)", False),
    ("security_code", r"(?:je|uw) beveiligingscode (?:met|voor) " + _O + r" is gewijzigd", False),
    ("timer", _A + r" (?:heeft|hebt) (?:verdwijnende|tijdelijke) berichten (?:ingeschakeld|uitgeschakeld|aangezet|uitgezet)", False),
    ("timer", r".*(?:verdwijnende berichten|tijdelijke berichten)", False),
    ("number_changed", _A + r" (?:heeft|hebt) (?:zijn|haar|een nieuw|het) telefoonnummer", False),
    ("number_changed", _A + r" is overgestapt naar (?P<obj>.+)$", False),
    ("contact", _A + r" is een contact$", False),
    ("added", _A + r" (?:is lid geworden|neemt deel|heeft deelgenomen) via (?:de )?uitnodigingslink.*$", False),
    ("added", _A + r" (?:heeft|hebt) " + _O + r" toegevoegd$", False),
    ("removed", _A + r" (?:heeft|hebt) " + _O + r" verwijderd$", False),
    ("left", _A + r" (?:heeft|hebt) de groep verlaten$", False),
    ("left", _A + r" is vertrokken$", False),
    # ---- Russian
    ("e2e", r".*сквозным шифрованием", False),
    ("created", _A + r" созда(?:л|ла|ли|л\(а\)) группу " + _qn("new") + r"$", False),
    ("subject", _A + r" измени(?:л|ла|ли|л\(а\)) (?:тему|название группы) (?:с " + _qn("old") + r" )?на " + _qn("new") + r"$", False),
    ("icon", _A + r" (?:измени|удали)(?:л|ла|ли|л\(а\)) (?:изображение|фото) (?:этой )?группы", False),
    ("description", _A + r" (?:измени|удали)(?:л|ла|ли|л\(а\)) описание группы", False),
    ("security_code", r"ваш код безопасности (?:для|с) " + _O + r" изменился", False),
    ("security_code", r"код безопасности (?:для )?" + _O + r" изменился", False),
    ("timer", _A + r" (?:включи|выключи|отключи)(?:л|ла|ли|л\(а\)) исчезающие сообщения", False),
    ("timer", r".*исчезающ(?:ие|их) сообщени", False),
    ("number_changed", _A + r" (?:смени|измени)(?:л|ла|ли|л\(а\)) (?:свой )?номер", False),
    ("contact", _A + r" (?:есть в ваших контактах|является контактом)$", False),
    ("added", _A + r" присоедини(?:лся|лась|лись|лся\(-ась\)|лся\(ась\)) .*по ссылке.*$", False),
    ("added", _A + r" добави(?:л|ла|ли|л\(а\)) " + _O + r"$", False),
    ("removed", _A + r" удали(?:л|ла|ли|л\(а\)) " + _O + r"$", False),
    ("left", _A + r" вы(?:шел|шла|шли|шел\(-а\)|шел\(а\))(?: из группы)?$", False),
    # ---- Turkish
    ("e2e", r".*uçtan uca şifrel", False),
    ("created", _A + r",? " + _qn("new") + r" grubunu oluşturdu$", False),
    ("created", r"(?:siz )?" + _qn("new") + r" grubunu oluşturdunuz$", True),
    ("subject", _A + r",? (?:grup )?(?:konusunu|adını|grup adını) (?:" + _qn("old") + r" (?:iken|yerine) )?" + _qn("new") + r" olarak değiştirdi$", False),
    ("subject", r"(?:siz )?(?:grup )?(?:konusunu|adını|grup adını) (?:" + _qn("old") + r" (?:iken|yerine) )?" + _qn("new") + r" olarak değiştirdiniz$", True),
    ("icon", _A + r",? bu grubun (?:simgesini|resmini|fotoğrafını) (?:değiştirdi|sildi)$", False),
    ("icon", r"(?:siz )?bu grubun (?:simgesini|resmini|fotoğrafını) (?:değiştirdiniz|sildiniz)$", True),
    ("description", _A + r",? grup açıklamasını (?:değiştirdi|sildi)$", False),
    ("description", r"(?:siz )?grup açıklamasını (?:değiştirdiniz|sildiniz)$", True),
    ("security_code", _O + r" ile (?:olan )?güvenlik kodunuz değişti", False),
    ("security_code", _O + r" (?:adlı kişinin )?güvenlik kodu değişti", False),
    ("timer", _A + r",? (?:süreli|kaybolan) mesajları (?:açtı|kapattı)", False),
    ("timer", r".*(?:süreli mesaj|kaybolan mesaj|mesaj zamanlayıcısı)", False),
    ("number_changed", _A + r",? telefon numarasını değiştirdi", False),
    ("number_changed", _A + r",? (?P<obj>\+?[\d ()-]{6,}) numarasına geçti", False),
    ("added", r"(?:siz )?" + _O + r" (?:kişisini |adlı kişiyi )?eklediniz$", True),
    ("added", _A + r",? bu grubun davet bağlantısını kullanarak katıldı$", False),
    ("added", r"(?P<actor>[^,]+), " + _O + r" (?:kişisini |adlı kişiyi )?ekledi$", False),
    ("added", _A + r" " + _O + r" (?:kişisini |adlı kişiyi )?ekledi$", False),
    ("removed", r"(?:siz )?" + _O + r" (?:kişisini |adlı kişiyi )?çıkardınız$", True),
    ("removed", r"(?P<actor>[^,]+), " + _O + r" (?:kişisini |adlı kişiyi )?çıkardı$", False),
    ("removed", _A + r" " + _O + r" (?:kişisini |adlı kişiyi )?çıkardı$", False),
    ("left", r"(?:gruptan )?ayrıldınız$", True),
    ("left", _A + r" (?:gruptan )?ayrıldı$", False),
]
_COMPILED = [(ev, re.compile(p, re.IGNORECASE), me) for ev, p, me in _PATTERNS]

# How the owner is named as the subject of a system line ("You added...", "Du hast...").
YOU_WORDS = frozenset(
    {"you", "du", "dich", "tú", "tu", "te", "usted", "vous", "você", "voce", "je", "jij", "u",
     "jou", "вы", "вас", "ты", "siz", "sen", "sizi", "seni"}
)


MAX_EVENT_CHARS = 600


@dataclass(slots=True)
class Event:
    """A recognised system event; `actor` as written ("" when the line names none)."""

    event: str
    actor: str = ""
    actor_is_you: bool = False
    obj: str = ""
    old: str = ""
    new: str = ""  # the group name after a subject change, or at creation

    @property
    def strong(self) -> bool:
        return self.event in STRONG_EVENTS


def classify_event(text: str) -> Event | None:
    """The system event `text` (normalized, one line) describes, or None."""
    # System texts are short; a long line is a message, and must not cost quadratic matching.
    text = _nfc(text[:MAX_EVENT_CHARS].strip().rstrip(".").rstrip())
    for event, pattern, me in _COMPILED:
        m = pattern.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        actor = (groups.get("actor") or "").strip()
        is_you = me or actor.casefold() in YOU_WORDS
        return Event(
            event, actor, is_you, (groups.get("obj") or "").strip(),
            (groups.get("old") or "").strip(), (groups.get("new") or "").strip(),
        )
    return None


# ----------------------------------------------------------------------------- bodies

def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def body_key(text: str) -> str:
    """A body as looked up in the phrase sets: trimmed, no final dot, case-folded, NFC."""
    return _nfc(text.strip().rstrip(".").strip()).casefold()


DELETED = frozenset(body_key(s) for s in (
    "This message was deleted", "You deleted this message", "This message was deleted by admin",
    "Diese Nachricht wurde gelöscht", "Du hast diese Nachricht gelöscht",
    "Se eliminó este mensaje", "Eliminaste este mensaje", "Este mensaje fue eliminado",
    "Ce message a été supprimé", "Vous avez supprimé ce message",
    "Mensagem apagada", "Esta mensagem foi apagada", "Você apagou esta mensagem",
    "Mensagem apagada pelo remetente",
    "Questo messaggio è stato eliminato", "Hai eliminato questo messaggio",
    "Dit bericht is verwijderd", "Je hebt dit bericht verwijderd", "U heeft dit bericht verwijderd",
    "Данное сообщение удалено", "Это сообщение удалено", "Сообщение удалено",
    "Вы удалили данное сообщение", "Вы удалили это сообщение",
    "Bu mesaj silindi", "Bu mesajı sildiniz", "Bu mesajı sildin",
))

# "<This message was edited>" and its translations, at the very end of a body.
_EDITED_WORDS = (
    "This message was edited", "Diese Nachricht wurde bearbeitet", "Se editó este mensaje",
    "Ce message a été modifié", "Mensagem editada", "Esta mensagem foi editada",
    "Questo messaggio è stato modificato", "Dit bericht is bewerkt", "Dit bericht is gewijzigd",
    "Сообщение изменено", "Это сообщение было изменено", "Bu mesaj düzenlendi",
)
EDITED_SUFFIX_RE = re.compile(
    r"\s*<(?:" + "|".join(re.escape(w) for w in _EDITED_WORDS) + r")\.?>\s*$", re.IGNORECASE
)

# Whole-body media placeholders -> media type. Android writes one generic "<Media omitted>"
# (many languages listed); iOS names the type ("image omitted", "Bild weggelassen").
_MEDIA_GENERIC = (
    "<Media omitted>", "<Medien ausgeschlossen>", "<Medien weggelassen>", "<Multimedia omitido>",
    "<Archivo omitido>", "<Médias omis>", "<Fichier omis>", "<Mídia oculta>", "<Mídia omitida>",
    "<Arquivo de mídia oculto>", "<Ficheiro não revelado>", "<Media omessi>", "<Media omesso>",
    "<Media weggelaten>", "<Без медиафайлов>", "<Файл пропущен>", "<Медиафайлы пропущены>",
    "<Medya dahil edilmedi>", "<Medya atlanmış>", "<media weggelaat>", "<média vynechány>",
    "<medier udeladt>", "<media jätettiin pois>", "<média elhagyva>", "<media tidak disertakan>",
    "<media utelatt>", "<pominięto multimedia>", "<conținut media omis>", "<media utelämnat>",
    "<медіа пропущено>", "<bỏ qua tệp phương tiện>", "<忽略多媒體檔>", "<省略多媒体文件>",
    "<メディアなし>", "<미디어 파일 제외됨>", "<تم استبعاد الوسائط>", "<המדיה לא נכללה>",
    "<मीडिया के बिना>", "<αρχείο παραλήφθηκε>", "<Без файл>", "<fitxers multimèdia omesos>",
    "<video message omitted>", "<View once message omitted>",
)
_MEDIA_TYPED = {
    "image": ("image omitted", "Bild weggelassen", "imagen omitida", "image absente",
              "imagem ocultada", "imagem omitida", "immagine omessa", "afbeelding weggelaten",
              "изображение отсутствует", "изображение пропущено", "görüntü dahil edilmedi"),
    "video": ("video omitted", "video note omitted", "Video weggelassen", "video omitido",
              "vídeo absente", "vidéo absente", "vídeo omitido", "video omesso",
              "video weggelaten", "видео отсутствует", "видео пропущено", "video dahil edilmedi"),
    "audio": ("audio omitted", "Audio weggelassen", "audio omitido", "audio omis", "audio absent",
              "áudio ocultado", "áudio omitido", "audio omesso", "audio weggelaten",
              "аудио отсутствует", "аудио пропущено", "ses dahil edilmedi"),
    "sticker": ("sticker omitted", "Sticker weggelassen", "sticker omitido", "sticker omis",
                "autocollant omis", "figurinha omitida", "sticker omesso", "sticker weggelaten",
                "стикер отсутствует", "стикер пропущен", "çıkartma dahil edilmedi"),
    "gif": ("GIF omitted", "GIF weggelassen", "GIF omitido", "GIF retiré", "GIF omessa",
            "GIF weggelaten", "GIF отсутствует", "GIF dahil edilmedi"),
    "document": ("document omitted", "Dokument weggelassen", "documento omitido", "document omis",
                 "documento omesso", "document weggelaten", "документ отсутствует",
                 "belge dahil edilmedi"),
    "contact": ("Contact card omitted", "Kontaktkarte weggelassen", "tarjeta de contacto omitida",
                "carte de contact omise", "cartão de contato omitido", "scheda contatto omessa",
                "contactkaart weggelaten", "карточка контакта отсутствует",
                "kişi kartı dahil edilmedi"),
}
MEDIA_PLACEHOLDERS: dict[str, str] = {body_key(s): "unknown" for s in _MEDIA_GENERIC}
for _type, _phrases in _MEDIA_TYPED.items():
    MEDIA_PLACEHOLDERS.update((body_key(s), _type) for s in _phrases)
    MEDIA_PLACEHOLDERS.update((body_key(f"<{s}>"), _type) for s in _phrases)  # older iOS

_FILE_ATTACHED = (
    "file attached", "Datei angehängt", "archivo adjunto", "fichier joint", "arquivo anexado",
    "ficheiro anexado", "file allegato", "bestand bijgevoegd", "файл прикреплен",
    "файл прикреплён", "файл добавлен", "dosya ekli", "dosya eklendi",
)
# Android with media: "IMG-20240102-WA0003.jpg (file attached)" (caption on the next line).
FILE_ATTACHED_RE = re.compile(
    r"^(?P<name>.+?\.[A-Za-z0-9]{1,6}) \((?:" + "|".join(re.escape(w) for w in _FILE_ATTACHED)
    + r")\)$", re.IGNORECASE,
)
# iOS with media: "<attached: 00000012-PHOTO-2024-01-02-10-00-00.jpg>", localized label.
ATTACHED_RE = re.compile(r"^<[^<>:]{2,24}:\s?(?P<name>[^<>]+?\.[A-Za-z0-9]{1,6})>$")
# iOS document without media: "Report.pdf • 3 pages document omitted".
DOCUMENT_OMITTED_RE = re.compile(
    r"^(?P<name>.+?\.[A-Za-z0-9]{1,6})(?:\s*•.*?)?\s+(?:"
    + "|".join(re.escape(w) for w in _MEDIA_TYPED["document"]) + r")$", re.IGNORECASE,
)
# WhatsApp's own attachment file names, recognised whatever the language around them.
WA_FILE_RE = re.compile(
    r"^(?P<name>(?:IMG|VID|AUD|PTT|STK|DOC|PHOTO|VIDEO|AUDIO|GIF)-[\w.-]*\d{4}[\w.-]*"
    r"\.[A-Za-z0-9]{1,6})(?: \([^()]{2,30}\))?$"
)

_EXT_TYPES = {
    "jpg": "image", "jpeg": "image", "png": "image", "heic": "image", "webp": "image",
    "gif": "gif", "mp4": "video", "mov": "video", "3gp": "video", "opus": "audio", "ogg": "audio",
    "mp3": "audio", "m4a": "audio", "aac": "audio", "wav": "audio", "amr": "audio",
    "vcf": "contact",
}
MIME_TYPES = {
    "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "heic": "image/heic",
    "webp": "image/webp", "gif": "image/gif", "mp4": "video/mp4", "mov": "video/quicktime",
    "3gp": "video/3gpp", "opus": "audio/ogg", "ogg": "audio/ogg", "mp3": "audio/mpeg",
    "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "amr": "audio/amr",
    "vcf": "text/vcard", "pdf": "application/pdf", "txt": "text/plain", "zip": "application/zip",
    "doc": "application/msword", "xlsx": "application/vnd.ms-excel",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


def media_type_of(name: str) -> str:
    """'image', 'video', 'audio', 'sticker', 'gif', 'contact' or 'document' from a file name."""
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    kind = _EXT_TYPES.get(ext, "document")
    if kind == "image" and (name.startswith("STK-") or "-STICKER-" in name):
        return "sticker"
    return kind


_DOCUMENT_ENDINGS = tuple(body_key(w) for w in _MEDIA_TYPED["document"])
_WA_FILE_PREFIXES = ("IMG-", "VID-", "AUD-", "PTT-", "STK-", "DOC-", "PHOTO-", "VIDEO-", "AUDIO-", "GIF-")


def media_placeholder(first_line: str, key: str | None = None) -> tuple[str, str | None] | None:
    """(media type, file name or None) when the body's first line stands for an attachment.

    `key` is `body_key(first_line)` when the caller has it already (the hot path does).
    """
    text = first_line.strip()
    if not text:
        return None
    if key is None:
        key = body_key(text) if len(text) <= 80 else ""
    kind = MEDIA_PLACEHOLDERS.get(key)
    if kind is not None:
        return kind, None
    # Cheap tests first: most bodies are plain text and match none of these.
    if text[0] == "<" and text[-1] == ">":
        patterns: tuple[re.Pattern, ...] = (ATTACHED_RE,)
    elif text[-1] == ")":
        patterns = (FILE_ATTACHED_RE, WA_FILE_RE)
    elif text.startswith(_WA_FILE_PREFIXES):
        patterns = (WA_FILE_RE,)
    elif text.casefold().endswith(_DOCUMENT_ENDINGS):
        patterns = (DOCUMENT_OMITTED_RE,)
    else:
        return None
    for pattern in patterns:
        m = pattern.match(text)
        if m is not None:
            name = m.group("name").strip()
            return media_type_of(name), name
    return None


# Missed calls (iOS writes them as a message from the caller).
_MISSED = {
    "voice": ("Missed voice call", "Missed group voice call", "Verpasster Sprachanruf",
              "Llamada perdida", "Llamada de voz perdida", "Appel vocal manqué",
              "Chamada de voz perdida", "Chiamata vocale persa", "Gemiste spraakoproep",
              "Gemist spraakgesprek", "Пропущенный аудиозвонок", "Пропущенный звонок",
              "Cevapsız sesli arama"),
    "video": ("Missed video call", "Missed group video call", "Verpasster Videoanruf",
              "Videollamada perdida", "Appel vidéo manqué", "Chamada de vídeo perdida",
              "Videochiamata persa", "Gemiste video-oproep", "Gemist videogesprek",
              "Пропущенный видеозвонок", "Cevapsız görüntülü arama"),
}
# body_key of the text before any comma ("Missed voice call, Tap to call back") -> voice | video
MISSED_CALLS = {body_key(s): media for media, phrases in _MISSED.items() for s in phrases}


# Locations: "Location: https://maps.google.com/?q=52.08,5.10" and "live location shared".
_LOCATION_WORDS = frozenset(w.casefold() for w in (
    "location", "Standort", "ubicación", "Position", "localisation", "localização", "posizione",
    "locatie", "геоданные", "местоположение", "геопозиция", "konum",
))
LIVE_LOCATION = frozenset(body_key(s) for s in (
    "live location shared", "Live-Standort wird geteilt", "Ubicación en tiempo real compartida",
    "Position en direct partagée", "Localização em tempo real compartilhada",
    "Posizione in tempo reale condivisa", "Live locatie gedeeld", "Геоданные в реальном времени",
    "Canlı konum paylaşıldı",
))
_COORDS_RE = re.compile(r"(?:[?&](?:q|ll|query)=|@)(-?\d{1,3}\.\d+),\s?(-?\d{1,3}\.\d+)")


def location(first_line: str) -> dict | None:
    """{"url", "lat", "lon"} (or {"live": True}) for a shared location."""
    text = first_line.strip()
    label, sep, rest = text.partition(":")
    if sep and len(label) <= 24 and label.strip().casefold() in _LOCATION_WORDS:
        rest = rest.strip()
        if rest.startswith(("http://", "https://")):
            loc: dict = {"url": rest.split()[0]}
            m = _COORDS_RE.search(rest)
            if m:
                loc["lat"], loc["lon"] = float(m.group(1)), float(m.group(2))
            return loc
    if len(text) <= 50 and body_key(text) in LIVE_LOCATION:
        return {"live": True}
    return None


# Polls: "POLL:" then the question, then one "OPTION: text (n votes)" line per option.
_POLL_WORDS = frozenset(w.casefold() for w in (
    "POLL", "UMFRAGE", "ENCUESTA", "SONDAGE", "ENQUETE", "SONDAGEM", "SONDAGGIO", "PEILING",
    "ОПРОС", "ANKET",
))
_OPTION_WORDS = frozenset(w.casefold() for w in (
    "OPTION", "OPCIÓN", "OPÇÃO", "OPZIONE", "OPTIE", "ВАРИАНТ", "SEÇENEK",
))
_VOTES_RE = re.compile(r"^(?P<text>.*?)\s*\((?:[^()\d]*?:\s*)?(?P<n>\d+)(?:\s+[^()\d]+)?\)$")


def poll(lines: list[str]) -> dict | None:
    """{"question", "options": [{"text", "votes"}]} for a poll body, else None.

    >>> poll(["POLL:", "When?", "OPTION: Friday (2 votes)", "OPTION: Sunday (1 vote)"])
    {'question': 'When?', 'options': [{'text': 'Friday', 'votes': 2}, {'text': 'Sunday', 'votes': 1}]}
    """
    if not lines:
        return None
    label, sep, rest = lines[0].partition(":")
    if not sep or label.strip().casefold() not in _POLL_WORDS:
        return None
    question_lines = [rest.strip()] if rest.strip() else []
    options = []
    for line in lines[1:]:
        label, sep, rest = line.partition(":")
        if sep and label.strip().casefold() in _OPTION_WORDS:
            m = _VOTES_RE.match(rest.strip())
            if m:
                options.append({"text": m.group("text"), "votes": int(m.group("n"))})
            else:
                options.append({"text": rest.strip(), "votes": None})
        elif not options:
            question_lines.append(line.strip())
    if not options:
        return None
    return {"question": "\n".join(q for q in question_lines if q), "options": options}
