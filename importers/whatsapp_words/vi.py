"""Vietnamese. Sources: see SOURCES.md ("vi")."""

WORDS = {
    "language": 'Vietnamese',
    'media': {
        'unknown': ['<bỏ qua tệp phương tiện>', '<Bỏ qua Media>'],
        'image': ['đã bỏ qua hình ảnh'],
        'video': ['đã bỏ qua video'],
        'audio': ['đã bỏ qua âm thanh'],
        'sticker': ['đã bỏ qua nhãn dán'],
        'gif': ['đã bỏ qua GIF'],
        'document': ['đã bỏ qua tài liệu'],
        'contact': ['đã bỏ qua thẻ liên hệ'],
    },
    'file_attached': ['tệp đính kèm'],
    'deleted': ['Tin nhắn này đã bị xóa', 'Tin nhắn này đã bị xoá', 'Bạn đã xóa tin nhắn này', 'Bạn đã xoá tin nhắn này'],
    'edited': ['Tin nhắn này đã được chỉnh sửa'],
    'missed': {
        'voice': ['Cuộc gọi thoại nhỡ'],
        'video': ['Cuộc gọi video nhỡ'],
    },
    'location': ['vị trí'],
    'you': ['bạn'],
    "events": [
        ('e2e', 'Tin nhắn và cuộc gọi được mã hóa đầu cuối*'),
        ('created', '{actor} đã tạo nhóm "{new}"'),
        ('added', '{actor} đã tham gia bằng liên kết mời*'),
        ('added', '{actor} đã thêm {obj}'),
        ('removed', '{actor} đã [[xóa|xoá]] {obj}'),
        ('left', '{actor} đã rời[[| khỏi nhóm| nhóm]]'),
        ('subject', '{actor} đã đổi [[chủ đề|tên nhóm]] từ "{old}" thành "{new}"'),
        ('icon', '{actor} đã thay đổi biểu tượng của nhóm này'),
        ('description', '{actor} đã thay đổi mô tả nhóm'),
        ('security_code', 'Mã bảo mật của bạn với {obj} đã thay đổi*'),
    ],
}
