"""What a WhatsApp message body means, in every app language we know of.

WhatsApp writes the exported text in the phone's language: system events ("Anna added Ben"),
media placeholders ("<Media omitted>", "Bild weggelassen"), deletions, edit marks, polls,
locations and missed calls. The words live in data tables, one per language, in
`whatsapp_words/` (with SOURCES.md saying where each came from); the system-event patterns
below are hand-tuned for English, German, Spanish, French, Portuguese, Italian, Dutch,
Russian and Turkish, and the tables' templates cover the other languages. All matching runs
on text already passed through `for_matching`.

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
from functools import partial

from . import whatsapp_words as words

# ----------------------------------------------------------------------------- system events

EVENTS = (
    "created", "added", "removed", "left", "subject", "icon", "description",
    "security_code", "timer", "number_changed", "e2e", "contact", "business", "unknown",
)
# Events whose wording is distinctive enough to recognise even after an author prefix
# ("+1 555: +1 555 updated the message timer..." on Android). "added"/"left" are not.
STRONG_EVENTS = frozenset(
    {"created", "subject", "icon", "description", "security_code", "timer", "number_changed", "e2e"}
)

_Q = r"[\"“”„«»‘’'‚‹›「」『』]"  # any quote WhatsApp puts around a group name
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
# every language's patterns, then the tables' templates (every other language); each compiled
# the first time a line is tried that far
_COMPILED = words.LazyPatterns(
    [(ev, partial(re.compile, p, re.IGNORECASE), me) for ev, p, me in _PATTERNS]
    + words.EVENT_TEMPLATES.sources
)

# How the owner is named as the subject of a system line ("You added...", "Du hast...").
YOU_WORDS = words.YOU_WORDS | frozenset({"dich", "jou"})


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


DELETED = words.DELETED
DELETED_PREFIXES = words.DELETED_PREFIXES


def is_deleted(key: str) -> bool:
    """True when a body key says the message was deleted (by its sender, you or an admin)."""
    return key in DELETED or (bool(DELETED_PREFIXES) and key.startswith(DELETED_PREFIXES))


# "<This message was edited>" and its translations, at the very end of a body.
EDITED_SUFFIX_RE = re.compile(
    r"\s*<(?:" + "|".join(re.escape(w) for w in words.EDITED) + r")\.?>\s*$", re.IGNORECASE
)

# Whole-body media placeholders -> media type. Android writes one generic "<Media omitted>";
# iOS names the type ("image omitted", "Bild weggelassen").
MEDIA_PLACEHOLDERS: dict[str, str] = dict(words.MEDIA)

_FILE_ATTACHED = words.FILE_ATTACHED
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
    + "|".join(re.escape(w) for w in words.DOCUMENT_OMITTED) + r")$", re.IGNORECASE,
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


_DOCUMENT_ENDINGS = words.DOCUMENT_OMITTED
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
# body_key of the text before any comma ("Missed voice call, Tap to call back") -> voice | video
MISSED_CALLS = words.MISSED_CALLS


# Locations: "Location: https://maps.google.com/?q=52.08,5.10" and "live location shared".
_LOCATION_WORDS = words.LOCATION_WORDS
LIVE_LOCATION = words.LIVE_LOCATION
_COORDS_RE = re.compile(r"(?:[?&](?:q|ll|query)=|@)(-?\d{1,3}\.\d+),\s?(-?\d{1,3}\.\d+)")


# A map link after a label no table knows ("lokasi: https://maps.google.com/?q=...").
_MAPS_RE = re.compile(
    r"^https?://(?:maps\.google\.[a-z.]+/|(?:www\.)?google\.[a-z.]+/maps|maps\.app\.goo\.gl/"
    r"|goo\.gl/maps/|maps\.apple\.com/|foursquare\.com/)"
)


def location(first_line: str) -> dict | None:
    """{"url", "lat", "lon"} (or {"live": True}) for a shared location.

    >>> location("sijainti: https://maps.google.com/?q=60.17,24.94")
    {'url': 'https://maps.google.com/?q=60.17,24.94', 'lat': 60.17, 'lon': 24.94}
    """
    text = first_line.strip()
    label, sep, rest = text.partition(":")
    rest = rest.strip()
    if sep and len(label) <= 24 and (
        label.strip().casefold() in _LOCATION_WORDS
        or (" " not in label.strip() and _MAPS_RE.match(rest))
    ):
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
_POLL_WORDS = words.POLL_WORDS
_OPTION_WORDS = words.OPTION_WORDS
_VOTES_RE = re.compile(r"^(?P<text>.*?)\s*\((?:[^()\d]*?:\s*)?(?P<n>\d+)(?:\s+[^()\d]+)?\)$")


def poll(lines: list[str]) -> dict | None:
    """{"question", "options": [{"text", "votes"}]} for a poll body, else None.

    >>> poll(["POLL:", "When?", "OPTION: Friday (2 votes)", "OPTION: Sunday (1 vote)"])
    {'question': 'When?', 'options': [{'text': 'Friday', 'votes': 2}, {'text': 'Sunday', 'votes': 1}]}
    >>> poll(["KYSELY:", "Milloin?", "VAIHTOEHTO: perjantai (2 ääntä)", "VAIHTOEHTO: su (0 ääntä)"])["options"][1]
    {'text': 'su', 'votes': 0}
    """
    if not lines:
        return None
    label, sep, rest = lines[0].partition(":")
    label = label.strip()
    known = label.casefold() in _POLL_WORDS
    # Labels no table knows count when they look like WhatsApp's: one upper-case word, and
    # every option line under one other such word with a vote count.
    if not sep or not (known or (label.isupper() and " " not in label and len(label) <= 20)):
        return None
    question_lines = [rest.strip()] if rest.strip() else []
    options = []
    option_label = None
    for line in lines[1:]:
        label, sep, rest = line.partition(":")
        label = label.strip()
        m = _VOTES_RE.match(rest.strip()) if sep else None
        if sep and (label.casefold() in _OPTION_WORDS or (
                label.isupper() and " " not in label and m and option_label in (None, label))):
            option_label = label
            if m:
                options.append({"text": m.group("text"), "votes": int(m.group("n"))})
            else:
                options.append({"text": rest.strip(), "votes": None})
        elif not options:
            question_lines.append(line.strip())
    if not options or (not known and len(options) < 2):
        return None
    return {"question": "\n".join(q for q in question_lines if q), "options": options}
