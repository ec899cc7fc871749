"""Tests for poetone.prosody: known facts, script equality, table freshness."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import poetone.prosody as P
from poetone.prosody import TONE_EITHER, TONE_PING, TONE_ZE

ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = ROOT / "scripts" / "build_prosody_tables.py"
DATA_DIR = ROOT / "src" / "poetone" / "prosody" / "data"


# --- tones -------------------------------------------------------------------
@pytest.mark.parametrize("char", "白一国國月")
def test_classical_entering_tone_is_ze(char: str) -> None:
    assert P.tone_mask(char) == TONE_ZE
    assert P.tone_class(char) == "仄"


@pytest.mark.parametrize("char", "看思听聽")
def test_classical_either(char: str) -> None:
    assert P.tone_mask(char, "classical") == TONE_EITHER
    assert P.tone_class(char) == "中"


def test_classical_ping() -> None:
    assert P.tone_mask("东") == TONE_PING
    assert P.tone_class("東") == "平"


@pytest.mark.parametrize("char", "白国一")
def test_modern_ping(char: str) -> None:
    assert P.tone_mask(char, "modern") == TONE_PING


def test_modern_ze() -> None:
    assert P.tone_class("月", "modern") == "仄"
    assert P.tone_class("好", "modern") == "仄"


@pytest.mark.parametrize("char", ["\uff0c", "\u3002", "a", "Z", "1", " ", "\u3001", "\u300a"])
def test_non_han_is_unknown(char: str) -> None:
    for system in P.TONE_SYSTEMS:
        assert P.tone_mask(char, system) == 0
        assert P.tone_class(char, system) == ""
    for system in P.RHYME_SYSTEMS:
        assert P.rhyme_groups(char, system) == frozenset()


def test_tone_table_is_cached_and_consistent() -> None:
    table = P.tone_table("classical")
    assert table is P.tone_table("classical")
    assert table["看"] == P.tone_mask("看")
    assert len(table) > 30000


# --- 词林正韵 --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("char", "bu"),
    [("屋", "第十五部"), ("药", "第十六部"), ("藥", "第十六部"), ("国", "第十七部"),
     ("月", "第十八部"), ("合", "第十九部")],
)  # fmt: skip
def test_entering_tone_bu(char: str, bu: str) -> None:
    assert (bu, "仄") in P.rhyme_groups(char, "cilin")


@pytest.mark.parametrize(
    ("char", "expected"),
    [("东", ("第一部", "平")), ("江", ("第二部", "平")), ("会", ("第三部", "仄")),
     ("會", ("第三部", "仄")), ("开", ("第五部", "平")), ("家", ("第十部", "平"))],
)  # fmt: skip
def test_cilin_groups(char: str, expected: tuple[str, str]) -> None:
    assert expected in P.rhyme_groups(char)


def test_kan_both_tones_in_bu_seven() -> None:
    assert P.rhyme_groups("看") == {("第七部", "平"), ("第七部", "仄")}


def test_ya_rhymes_in_two_bu() -> None:
    """涯: 支 reading (魚羈切) -> 第三部, 佳 reading (五佳切, modern yá) -> 第十部."""
    assert {("第三部", "平"), ("第十部", "平")} <= P.rhyme_groups("涯")


def test_jia_rhyme_split_by_modern_final() -> None:
    assert ("第五部", "平") in P.rhyme_groups("鞋")  # 佳韻, modern xié
    assert ("第十部", "仄") in P.rhyme_groups("挂")  # 卦韻, modern guà


def test_tai_open_goes_to_bu_five() -> None:
    assert P.rhyme_groups("泰") == {("第五部", "仄")}


def test_cilin_group_names() -> None:
    names = P.rhyme_group_names("cilin")
    assert len(names) == 19
    assert names[0] == "第一部" and names[9] == "第十部" and names[18] == "第十九部"


# --- modern rhyme systems --------------------------------------------------------
def test_pinyin_final() -> None:
    assert P.rhyme_groups("东", "pinyin-final") == {("ong", "平")}
    assert P.rhyme_groups("月", "pinyin-final") == {("ve", "仄")}


@pytest.mark.parametrize(
    ("char", "group"),
    [("家", "麻"), ("波", "波"), ("月", "皆"), ("开", "开"), ("贵", "微"), ("好", "豪"),
     ("牛", "尤"), ("山", "寒"), ("云", "文"), ("江", "唐"), ("东", "庚"), ("一", "齐"),
     ("儿", "齐"), ("鱼", "齐"), ("知", "支"), ("思", "支"), ("姑", "姑")],
)  # fmt: skip
def test_xinyun(char: str, group: str) -> None:
    assert group in {name for name, _ in P.rhyme_groups(char, "xinyun")}


def test_rhyme_table_masks_match_groups() -> None:
    names = P.rhyme_group_names("xinyun")
    ping, ze = P.rhyme_table("xinyun")["家"]
    assert ping == 1 << names.index("麻") and ze == 0


# --- simplified / traditional --------------------------------------------------
PAIRS = (
    "东東 国國 听聽 药藥 会會 开開 画畫 卖賣 贝貝 门門 马馬 鸟鳥 鱼魚 龙龍 风風 云雲 "
    "发發 发髮 干幹 干乾 后後 里裏 余餘 台臺 叶葉 万萬 与與 为爲 为為 无無 见見 长長 "
    "东東 乐樂 书書 买買 乱亂 争爭 亏虧 亚亞 产產 亲親 亿億 仅僅 从從 仓倉 仪儀 们們 "
    "价價 众衆 众眾 优優 伙夥 会會 伞傘 伟偉 传傳 伤傷 伦倫 伪僞 体體 佣傭 侠俠 侣侶 "
    "侥僥 侦偵 侧側 侨僑 俭儉 债債 倾傾 偿償 储儲 儿兒 兑兌 党黨 兰蘭 关關 兴興 兹茲 "
    "养養 兽獸 内內 冈岡 册冊 写寫 军軍 农農 冯馮 冲衝 决決 况況 冻凍 净淨 凉涼 减減 "
    "凤鳳 凭憑 凯凱 击擊 凿鑿 刍芻 划劃 刘劉 则則 刚剛 创創 删刪 别別 刹剎 剂劑 剑劍 "
    "剧劇 劝勸 办辦 务務 动動 励勵 劲勁 劳勞 势勢 勋勳 匀勻 区區 医醫 华華 协協 单單 "
    "卖賣 卢盧 卫衛 却卻 厂廠 厅廳 历歷 历曆 压壓 厌厭 厕廁 厢廂 厦廈 厨廚 县縣 参參 "
    "双雙 变變 叙敘 叠疊 号號 叹嘆 吓嚇 吕呂 吗嗎 吨噸 听聽 启啓 吴吳 呐吶 员員 呛嗆 "
    "呜嗚 咏詠 响響 哑啞 哗嘩 唤喚 啸嘯 喷噴 严嚴 嘱囑 团團 园園 围圍 图圖 圆圓 圣聖 "
    "场場 坏壞 块塊 坚堅 坛壇 坝壩 坟墳 坠墜 垄壟 垒壘 垦墾 垫墊 夺奪 "
    "奋奮 奖獎 妆妝 妇婦 妈媽 娱娛 婴嬰 学學 宁寧 宝寶 实實 宠寵 审審 宪憲 宫宮 宽寬 "
    "宾賓 寝寢 对對 寻尋 导導 寿壽 将將 尔爾 尘塵 尝嘗 尧堯 尸屍 尽盡 层層 屉屜 属屬 "
    "岁歲 岂豈 岗崗 岛島 岭嶺 峡峽 币幣 帅帥 师師 帐帳 带帶 帮幫 广廣 庄莊 庆慶 库庫 "
    "应應 庙廟 废廢 开開 异異 弃棄 张張 弥彌 弯彎 归歸 当當 录錄 彦彥 彻徹 征徵 径徑 "
    "忆憶 忧憂 怀懷 态態 怜憐 总總 恋戀 恶惡 恼惱 悦悅 悬懸 惊驚 惧懼 惨慘 惯慣 愤憤 "
    "愿願 懒懶 戏戲 战戰 户戶 扑撲 执執 扩擴 扫掃 扬揚 扰擾 抚撫 抢搶 护護 报報 担擔 "
    "拟擬 拥擁 拦攔 拨撥 择擇 挂掛 挚摯 挡擋 挣掙 挤擠 挥揮 捞撈 损損 捡撿 换換 捣搗 "
    "据據 掳擄 掷擲 掸撣 掺摻 揽攬 搀攙 摄攝 摆擺 摇搖 撑撐 敌敵 敛斂 数數 斋齋 斗鬥 "
    "断斷 无無 旧舊 时時 旷曠 昙曇 显顯 晋晉 晒曬 晓曉 晕暈 暂暫 术術 机機 杀殺 杂雜 "
    "权權 条條 来來 杨楊 极極 构構 枪槍 枫楓 柜櫃 标標 栈棧 栋棟 栏欄 树樹 样樣 桥橋 "
    "梦夢 检檢 楼樓 欢歡 欧歐 歼殲 残殘 毁毀 毕畢 毙斃 气氣 汇匯 汉漢 汤湯 沟溝 没沒 "
    "沧滄 沪滬 泪淚 泽澤 洁潔 洒灑 浅淺 浆漿 浇澆 浊濁 测測 济濟 浏瀏 浑渾 浓濃 涛濤 "
    "涝澇 润潤 涨漲 渊淵 渔漁 渐漸 温溫 湾灣 湿濕 满滿 滚滾 滞滯 滩灘 灭滅 灯燈 灵靈 "
    "灾災 灿燦 炉爐 点點 炼煉 烂爛 烛燭 烟煙 烦煩 烧燒 热熱 焕煥 爱愛 爷爺 牵牽 犹猶 "
    "狭狹 独獨 狮獅 猎獵 猪豬 献獻 环環 现現 琐瑣 电電 画畫 畅暢 疗療 疯瘋 盐鹽 监監 "
    "盖蓋 盘盤 睁睜 矫矯 码碼 砖磚 础礎 硕碩 确確 礼禮 祸禍 离離 秃禿 种種 积積 称稱 "
    "稳穩 穷窮 窃竊 竞競 笔筆 笼籠 筑築 简簡 签簽 粮糧 纪紀 约約 红紅 纤纖 纯純 纱紗 "
    "纲綱 纳納 纵縱 纷紛 纸紙 纹紋 纺紡 线線 练練 组組 细細 织織 终終 经經 结結 绕繞 "
    "绘繪 给給 络絡 绝絕 统統 绢絹 继繼 绩績 绪緒 续續 绳繩 维維 绵綿 综綜 绿綠 缓緩 "
    "编編 缘緣 缩縮 罗羅 罚罰 罢罷 职職 联聯 聪聰 肃肅 胁脅 脉脈 脑腦 脚腳 脸臉 腾騰 "
    "舰艦 艺藝 节節 苏蘇 苹蘋 范範 荐薦 荡蕩 荣榮 药藥 莲蓮 获獲 萧蕭 蓝藍 虑慮 虽雖 "
    "蚀蝕 蚁蟻 蛮蠻 补補 衬襯 袜襪 装裝 见見 观觀 规規 视視 览覽 觉覺 触觸 誉譽 计計 "
    "认認 讨討 让讓 训訓 议議 讯訊 记記 讲講 许許 论論 设設 访訪 证證 评評 识識 诉訴 "
    "词詞 译譯 试試 诗詩 诚誠 话話 诞誕 询詢 该該 详詳 语語 误誤 说說 请請 诸諸 读讀 "
    "课課 谁誰 调調 谈談 谊誼 谋謀 谜謎 谢謝 谣謠 谦謙 谨謹 谱譜 贝貝 贞貞 负負 贡貢 "
    "财財 责責 贤賢 败敗 账賬 货貨 质質 贩販 贪貪 贫貧 购購 贯貫 贵貴 贸貿 费費 贺賀 "
)  # fmt: skip


def _pairs() -> list[tuple[str, str]]:
    return [(p[0], p[1]) for p in PAIRS.split()]


def test_pair_list_is_large() -> None:
    assert len(_pairs()) >= 300


@pytest.mark.parametrize("system", P.TONE_SYSTEMS)
def test_simplified_traditional_tones_identical(system: str) -> None:
    table = P.tone_table(system)
    diffs = [(s, t) for s, t in _pairs() if table.get(s, 0) != table.get(t, 0)]
    assert not diffs


@pytest.mark.parametrize("system", P.RHYME_SYSTEMS)
def test_simplified_traditional_rhymes_identical(system: str) -> None:
    diffs = [(s, t) for s, t in _pairs() if P.rhyme_groups(s, system) != P.rhyme_groups(t, system)]
    assert not diffs


def _single(converted: str, original: str) -> str:
    return converted if len(converted) == 1 else original


def test_every_char_equals_its_t2s_form() -> None:
    """Over the whole tables, not just the sample pairs above."""
    opencc = pytest.importorskip("opencc")
    conv = opencc.OpenCC("t2s")
    for system in P.TONE_SYSTEMS:
        table = P.tone_table(system)
        diffs = [c for c in table if table[c] != table.get(_single(conv.convert(c), c), 0)]
        assert not diffs[:20]
    for system in P.RHYME_SYSTEMS:
        rows = P.rhyme_table(system)
        diffs = [c for c in rows if rows[c] != rows.get(_single(conv.convert(c), c), (0, 0))]
        assert not diffs[:20]


# --- API contract --------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [lambda: P.tone_mask("看", "tang"), lambda: P.tone_class("看", "Classical"),
     lambda: P.tone_table("pingshui"), lambda: P.rhyme_groups("看", "pingshui"),
     lambda: P.rhyme_table("modern"), lambda: P.rhyme_group_names("")],
)  # fmt: skip
def test_bad_system_raises(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError, match="expected one of"):
        call()


def test_error_names_bad_and_valid_values() -> None:
    with pytest.raises(ValueError) as err:
        P.tone_mask("看", "bogus")
    assert "'bogus'" in str(err.value) and "classical" in str(err.value)


def test_import_is_lazy() -> None:
    """Fresh interpreter: import loads no table, and loading one imports no build dependency
    (its speed is measured by benchmarks/load_and_reference_time.py, not asserted here)."""
    code = (
        "import sys\n"
        "import poetone.prosody as P\n"
        "assert P._tables.tones.cache_info().currsize == 0\n"
        "assert not {'tshet_uinh', 'pypinyin', 'opencc'} & set(sys.modules)\n"
        "assert P.tone_table('classical')\n"
        "assert not {'tshet_uinh', 'pypinyin', 'opencc'} & set(sys.modules)\n"
    )
    env_path = str(ROOT / "src")
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, check=True,
        env={"PYTHONPATH": env_path, "PATH": ""},
    )  # fmt: skip
    assert out.returncode == 0


# --- shipped tables are fresh ----------------------------------------------------
def test_shipped_tables_match_build_script() -> None:
    if not BUILD_SCRIPT.exists():
        # scripts/mutation.py's copy holds src/ and tests/ only; the build script is not mutated
        pytest.skip("scripts/build_prosody_tables.py is not beside these tests")
    for module in ("tshet_uinh", "pypinyin", "opencc"):
        pytest.importorskip(module)
    spec = importlib.util.spec_from_file_location("build_prosody_tables", BUILD_SCRIPT)
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    tables = build.build_tables()
    assert sorted(tables) == sorted(p.name for p in DATA_DIR.glob("*.tsv"))
    for name, text in tables.items():
        assert (DATA_DIR / name).read_text(encoding="utf-8") == text, f"{name} is stale"
