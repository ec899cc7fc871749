"""Character classes shared by extraction, the critic and the task scorer (one definition)."""

import re

#: Han characters (BMP, extension A, compatibility, extensions B–H; not the noncharacters U+2FFFE
#: and U+2FFFF between them) and the lacuna □.
VERSE = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fffd\U00030000-\U0003134f□"
#: Characters garbled in transmission (kana, box drawing, U+FFFD, private use, Cyrillic, vertical
#: forms): each stands for a lost Han character and is kept as a lacuna. Not the katakana middle
#: dot ・ (U+30FB): Japanese input methods type it for ·, between a tune and its title.
GARBLED = "\u3040-\u30fa\u30fc-\u30ff\u2500-\u257f\ufffd\ue000-\uf8ff\u0400-\u04ff\ufe10-\ufe4f"
GARBLED_RE = re.compile(f"[{GARBLED}]")
LACUNA = "□"
