"""Korean. Sources: see SOURCES.md ("ko")."""

WORDS = {
    "language": 'Korean',
    'media': {
        'unknown': ['<미디어 파일 제외됨>', '<미디어 파일을 생략한 대화내용>'],
        'image': ['사진 생략됨'],
        'video': ['동영상 생략됨'],
        'audio': ['오디오 생략됨'],
        'sticker': ['스티커 생략됨'],
        'gif': ['GIF 생략됨'],
        'document': ['문서 생략됨'],
        'contact': ['연락처 카드 생략됨'],
    },
    'file_attached': ['파일 첨부됨'],
    'deleted': ['이 메시지는 삭제되었습니다', '삭제된 메시지입니다', '메시지를 삭제했습니다'],
    'edited': ['수정된 메시지입니다'],
    'missed': {
        'voice': ['부재중 음성통화', '부재중 음성 통화'],
        'video': ['부재중 영상통화', '부재중 영상 통화'],
    },
    'location': ['위치'],
    'you': ['회원님'],
    "events": [
        ('e2e', '*종단간 암호화*'),
        ('created', '{actor}님이 "{new}" 그룹을 만들었습니다'),
        ('added', '{actor}님이 초대 링크를 통해 참여했습니다'),
        ('added', '{actor}님이 {obj}님을 [[초대했습니다|추가했습니다]]'),
        ('removed', '{actor}님이 {obj}님을 내보냈습니다'),
        ('left', '{actor}님이 나갔습니다'),
        ('subject', '{actor}님이 그룹 이름을 "{new}"[[(으)로|으로|로]] 변경했습니다'),
        ('icon', '{actor}님이 그룹 아이콘을 변경했습니다'),
        ('description', '{actor}님이 그룹 설명을 변경했습니다'),
        ('security_code', '{obj}님과의 보안 코드가 변경되었습니다*'),
    ],
}
