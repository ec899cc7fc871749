"""Poems whose title names another tune than the one they follow (同名异调, 又名), quoted as the 全宋词 prints them."""

# 贺铸's 思越人 (quoted as printed: 城阕) is a 鹧鸪天 (词谱 鹧鸪天: 又名思越人); 欧阳修's 鹤冲天 is a 喜迁莺 (小令; 词谱
# 喜迁莺: 又名鹤冲天): both titles also name a tune of their own (张泌's 思越人, 柳永's 鹤冲天).
SIYUEREN_HEZHU = "紫府东风放夜时。步莲秾李伴人归。五更钟动笙歌散，十里月明灯火稀。香苒苒，梦依依。天涯寒尽减春衣。凤凰城阕知何处，寥落星河一雁飞。"
HECHONGTIAN_OUYANG = (
    "梅谢粉，柳拖金。香满旧园林。养花天气半晴阴。花好却愁深。花无数。愁无数。花好却愁春去。戴花持酒祝东风。千万莫匆匆。"
)
#: 晏几道's 鹧鸪天; 思佳客 is one of the tune's 又名.
ZHEGUTIAN_YAN = "彩袖殷勤捧玉锺。当年拼却醉颜红。舞低杨柳楼心月，歌尽桃花扇影风。从别后，忆相逢。几回魂梦与君同。今宵剩把银釭照，犹恐相逢是梦中。"
