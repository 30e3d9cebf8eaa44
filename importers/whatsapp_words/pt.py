"""Portuguese (Brazil and Portugal). Sources: see SOURCES.md ("pt")."""

WORDS = {
    "language": "Portuguese",
    "media": {
        "unknown": ["<Mídia oculta>", "<Mídia omitida>", "<Arquivo de mídia oculto>",
                    "<Ficheiro não revelado>"],
        "image": ["imagem ocultada", "imagem omitida", "imagem oculta"],
        "video": ["vídeo omitido", "vídeo ocultado", "vídeo oculto"],
        "audio": ["áudio ocultado", "áudio omitido"],
        "sticker": ["figurinha omitida", "sticker omitido"],
        "gif": ["GIF omitido"],
        "document": ["documento omitido"],
        "contact": ["cartão de contato omitido", "Cartão do contato omitido"],
    },
    "file_attached": ["arquivo anexado", "ficheiro anexado"],
    "attached": ["anexado"],
    "deleted": ["Mensagem apagada", "Esta mensagem foi apagada", "Você apagou esta mensagem",
                "Mensagem apagada pelo remetente", "Esta mensagem foi apagada por um admin"],
    "deleted_prefix": ["Esta mensagem foi apagada por "],
    "edited": ["Mensagem editada", "Esta mensagem foi editada"],
    "missed": {"voice": ["Chamada de voz perdida"], "video": ["Chamada de vídeo perdida"]},
    "location": ["localização"],
    "live_location": ["Localização em tempo real compartilhada"],
    "poll": ["ENQUETE", "SONDAGEM"],
    "option": ["OPÇÃO"],
    "you": ["você", "voce"],
    "events": [
        ("business", "Esta conversa é com uma conta comercial*"),
    ],
}
