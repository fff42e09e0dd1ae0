"""A text as a model reads it, and the context of a match: what every rule of the scanner works on.

`reveal` shows what invisible characters and look-alike letters hide; `read` turns a
text into a `Reading` (revealed, mark-up dropped, quoted speech masked, Traditional
Chinese folded to Simplified); the context helpers tell an order to the reader from
reported speech, talk about attacks and negation; `Rule` is one detector. The rules
themselves are in `memlib.scanner.english` and `memlib.scanner.chinese`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from memlib._util import quote


# ---------------------------------------------------------------------------
# Reading a text the way a model would: invisible characters, look-alikes, quotes
# ---------------------------------------------------------------------------

_TAG_RUN = re.compile("[\U000E0000-\U000E007F]+")
_INVISIBLE = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u180e\u202a-\u202e\u2066-\u2069]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060-\u2064\ufeff\u180e]")
# An emoji subdivision flag (Scotland, Wales) is a black flag followed by tag characters and U+E007F.
_FLAG_SEQUENCE = re.compile("\U0001F3F4[\U000E0020-\U000E007E]{1,8}\U000E007F")
_EMOJI = re.compile("[\u2600-\u27bf\U0001F000-\U0001FAFF]")
_CONFUSABLE_CHARS = re.compile("[\u0370-\u03ff\u0400-\u04ff]")
# Cyrillic and Greek letters that look like Latin ones, folded before the language rules run.
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁԛԝАВЕКМНОРСТХІЈЅοαν",
    "aeopcyxijsdqwABEKMHOPCTXIJSoav",
)
# A word (letters only) with a Latin letter next to a Cyrillic or Greek one.
_MIXED_WORD = re.compile(r"[a-zA-Z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][a-zA-Z]")


def _show_tags(match: re.Match) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in match.group() if 0xE0020 <= ord(c) <= 0xE007E)


def reveal(text: str) -> str:
    """`text` as a model would read it: tag characters shown as ASCII, invisible characters
    removed, look-alike letters folded to Latin.

    Example:
        >>> reveal("i\\u200bg\\u200bn\\u200bore")
        'ignore'
    """
    if not isinstance(text, str):
        raise TypeError(f"reveal expects a str, got {type(text).__name__}")
    text = _TAG_RUN.sub(_show_tags, _FLAG_SEQUENCE.sub("\U0001F3F4", text))
    text = _INVISIBLE.sub("", text)
    if _CONFUSABLE_CHARS.search(text):
        text = text.translate(_CONFUSABLES)
    return text


# Quoted speech inside a sentence is masked: "she said 'ignore it'" reports, it does not order.
# A quote that opens a line is the note itself and stays.
_QUOTED = re.compile(
    r"(?<=[\w,:;.!?)] )(?:'[^'\n]{1,200}'(?!\w)|\"[^\"\n]{1,200}\"|«[^»\n]{1,200}»|“[^”\n]{1,200}”|‘[^’\n]{1,200}’"
    r"|„[^“”\n]{1,200}[“”])"
    r"|(?<=[\w,:;.!?)]: )'[^'\n]{1,200}'"
    # Chinese writes quotes straight after the words that introduce them: 她说：“…” 回答「…」
    "|(?<=[\u3400-\u9fff\uff1a\uff0c\u3001])\\s?(?:“[^”\\n]{1,200}”|「[^」\\n]{1,200}」|『[^』\\n]{1,200}』|\"[^\"\\n]{1,200}\")"
)
QUOTE_MARK = "«q»"


def _mask_quotes(text: str) -> str:
    return _QUOTED.sub(QUOTE_MARK, text)


@dataclass(frozen=True)
class Reading:
    """One text prepared for the rules: as written, as a model reads it, and with quotes masked."""

    raw: str      # the text as stored
    visible: str  # after `reveal`
    masked: str   # visible, mark-up tags dropped, quoted speech replaced by «q» (case kept)
    low: str      # masked, lower-cased (what most rules search)
    plain: str    # visible, mark-up tags dropped, lower-cased, quotes kept
    zh: str = ""  # low with Traditional folded to Simplified (same length); "" when the text has no Chinese


_MARKUP_TAG = re.compile(r"</?[a-zA-Z][\w-]{0,20}(?:\s[^<>\n]{0,200})?/?>")


def read(text: str) -> Reading:
    visible = reveal(text)
    # mark-up tags are not words: "<article>" says nothing about attacks
    untagged = _MARKUP_TAG.sub(" ", visible)
    masked = _mask_quotes(untagged)
    low = masked.lower()
    # the Chinese rules read only text with Chinese in it (their English words serve code-switching)
    return Reading(text, visible, masked, low, untagged.lower(), low.translate(_ZH_FOLD) if _HAN.search(low) else "")


# ---------------------------------------------------------------------------
# Context of a match: its sentence, reported speech, talk about attacks, negation
# ---------------------------------------------------------------------------

# The start of a clause: the text, a line, or after punctuation, a comment marker or a speaker label.
_START = r"(?:^|(?<=[\n.;:,!?*/#>\"(|\]-]))\s{0,4}"
_BOUNDARY = re.compile(r"[.!?;\n|]\s|\n|\||[。！？；]")


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence around text[start:end] (bounded to 300 characters either side)."""
    lo = max(0, start - 300)
    before = text[lo:start]
    cut = -1
    for m in _BOUNDARY.finditer(before):
        cut = m.end()
    head = before[cut:] if cut >= 0 else before
    after = text[end:end + 300]
    stop = _BOUNDARY.search(after)
    tail = after[: stop.start() + 1] if stop else after
    return head + text[start:end] + tail


def _head_of_sentence(text: str, start: int) -> str:
    before = text[max(0, start - 300):start]
    cut = -1
    for m in _BOUNDARY.finditer(before):
        cut = m.end()
    return before[cut:] if cut >= 0 else before


_REPORTED = re.compile(
    r"\b(?:said|says|told|tells|reminded|reminds|warned|shouted|wrote|suggested|advised|explained|replied|texted|"
    r"emailed|insisted|reckons|gesagt|sagte|sagt|gebeten|m'a dit|a dit|disait|demand[ée]|dijo|dice que|pidi[óo]|"
    r"ha detto|mi ha chiesto|zei|vroeg|disse|pediu)\b"
    r"|\b(?:asked|asks|wants|wanted|expects|begged) (?:me|us|him|her|them|everyone|the \w+|\w+) to\b"
    # Chinese (searched on folded text): 她说… 老板叫我… 他让我… 同事在群里说… 客户写道：
    r"|(?:[她他]们?|老板|老师|经理|同事|妈妈|妈|爸爸|爸|朋友|客户|导游|医生|奶奶|爷爷|外婆|领导|主管|上司|老公|老婆|"
    r"丈夫|妻子|女儿|儿子|邻居|房东|教练|[a-z]+ )(?:总是|常常|经常|曾经?|也|又|就|还|刚才|昨天|今天|一直)?"
    r"(?:在[^，。！？\n]{0,8}?)?(?:说|讲|告诉|提醒|让|叫|要求|嘱咐|吩咐|写道|问|建议|交代)"
    r"|跟我说|对我说|和我说|说道|写道|问我[:：]|说[:：]|讲[:：,，]|叫我|让我(?!们)|要我|要求我|提醒我|告诉我们?[:：，,]"
    r"|说(?:要|让|把|别|不要|从|应该)")
# Sentences that talk about attacks rather than make one.
_DISCUSSION = re.compile(
    r"\b(?:attacks?|attackers?|attacker's|injections?|jailbreaks?|phishing|hijack(?:s|ing|ed)?|exploits?|malicious|"
    r"tricks?|scams?|red-team|pen-?test|ctf|owasp|lesson|lecture|lecturer|workshop|course|seminar|podcast|paper|"
    r"researchers?|quiz|sign of|such as|for example|e\.g\.|technique|villain|plot|film|movie|"
    r"incident report|the report|warned|warning|security training|phishing training|angreifer|l'article|cours de|"
    r"explains?|explained|showed|demoed|covered|popular)\b"
    r"|攻击|注入|钓鱼|诈骗|骗子|骗局|研究人员|研究发现|研究者|论文|新闻|报道|讲座|课程|课堂|培训|例如|比如|这类|此类|演示|"
    r"作业|电影|小说|播客|情节|案例|漏洞|防御|检测|识别|安全周报|社会工程|举例|示例|教材|这本书|章节")
_NEGATED = re.compile(r"\b(?:never|don't|do not|not to|no need to|must not|mustn't|should not|shouldn't|cannot|can't)\b"
                      r"[^.!?\n]{0,25}$|(?:不要|别|不用|无需|切勿|千万别|从不|绝不|不能|不可以?|不得|禁止)[^。！？\n]{0,6}$")


def _line(text: str, start: int, end: int) -> str:
    """The line around text[start:end] (bounded to 300 characters either side)."""
    lo = text.rfind("\n", max(0, start - 300), start)
    hi = text.find("\n", end, end + 300)
    return text[lo + 1 if lo >= 0 else max(0, start - 300): hi if hi >= 0 else end + 300]


def _reported(text: str, start: int) -> bool:
    return bool(_REPORTED.search(_head_of_sentence(text, start)[-80:]))


def _discussion(text: str, start: int, end: int) -> bool:
    return bool(_DISCUSSION.search(_sentence(text, start, end)))


def _negated(text: str, start: int) -> bool:
    return bool(_NEGATED.search(_head_of_sentence(text, start)[-40:]))


def _speech_act(text: str, start: int, end: int) -> bool:
    """True when the words at text[start:end] are an order to the reader, not reported or discussed."""
    return not (_reported(text, start) or _discussion(text, start, end))


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One detector: its name, the family it signals, what it looks for, and the finder.

    `find(reading)` returns one short string per match (what it matched);
    `detect(text)` does the same on a plain string.
    """

    name: str
    family: str
    description: str
    find: Callable[[Reading], list[str]] = dataclasses.field(repr=False, compare=False)
    language: bool = True  # reads words, so it also runs on decoded payloads

    def detect(self, text: str) -> list[str]:
        return self.find(read(text))

    def __repr__(self) -> str:
        return f"Rule({self.name!r} -> {self.family}: {self.description})"


def _matches(pattern: re.Pattern, text: str, what: str, *, act: bool = True, negation: bool = False,
             limit: int = 2) -> list[str]:
    """Reasons for up to `limit` matches of `pattern` in `text` that pass the context checks."""
    out = []
    for m in pattern.finditer(text):
        if act and not _speech_act(text, m.start(), m.end()):
            continue
        if negation and _negated(text, m.start()):
            continue
        out.append(f"{what}: {quote(m.group(), 50)}")
        if len(out) >= limit:
            break
    return out


# Traditional -> Simplified, only for characters the Chinese rules and context words use.
_ZH_PAIRS = (
    "視视規规則则記记憶忆發发統统設设說说讓让訴诉講讲這这類类對对話话錄录會会戶户刪删內内輸输顯显複复裝装開开"
    "員员權权碼码鑰钥從从後后將将為为無无們们麼么個个來来時时當当數数據据傳传寫写讀读閱阅處处總总結结應应該该"
    "須须務务標标儲储蓋盖換换認认證证驗验過过審审閉闭關关啟启級级優优執执給给請请現现別别聽听郵邮轉转電电號号"
    "護护銀银網网頁页連连鏈链擊击釣钓騙骗獄狱報报導导聞闻論论課课訓训練练術术業业劇剧機机語语濾滤約约絕绝遊游"
    "戲戏調调試试惡恶臺台運运營营團团隊队確确許许準准僅仅資资訊讯圖图帳账賬账錯错誤误偽伪虛虚條条筆笔長长體体"
    "簡简農农曆历歷历問问題题腳脚檔档產产補补鍵键盤盘螢萤書书媽妈闆板醫医爺爷領领鄰邻於于並并裡里裏里還还沒没"
    "舊旧廢废適适樣样頭头隱隐稱称檢检測测識识釋释監监線线間间專专變变邊边雙双極极嚴严斷断續续況况幫帮種种寶宝"
    "憑凭與与實实彈弹範范覽览囑嘱歲岁習习誌志屬属藝艺師师經经終终擬拟氣气養养兒儿東东島岛灣湾"
    "濟济負负責责絡络週周廳厅嗎吗歡欢鐘钟拋抛進进遞递選选擇择帶带難难兩两幾几點点車车門门館馆錢钱貼贴蹤踪幣币級级組组織织夠够鬆松")
_ZH_PAIRS += (
    "詞词詢询誰谁譯译議议豐丰貝贝財财貨货質质購购賣卖買买費费賴赖趕赶軟软輕轻載载辦办邁迈遠远違违遺遗邏逻針针鎖锁閃闪陽阳際际"
    "隨随險险雜杂雞鸡離离雲云靜静響响項项順顺預预頻频顏颜額额風风飛飞飯饭餘余馬马髮发鬥斗鳥鸟黨党齊齐龍龙價价億亿冊册凍冻剛刚"
    "創创劃划動动勝胜勞劳區区協协單单參参嘆叹圍围國国園园場场壞坏壓压夢梦奪夺奮奋寧宁屆届層层嶺岭廣广強强徑径復复徵征態态恆恒"
    "憂忧懷怀戰战擁拥擔担擴扩攝摄晝昼暫暂構构橋桥殘残決决溫温滿满漢汉濕湿烏乌煙烟熱热爭争牆墙狀状獨独獲获畫画疊叠盡尽礎础禮礼"
    "穩稳窮穷競竞節节糧粮紀纪紅红紙纸細细綠绿維维緊紧編编縣县績绩繼继罰罚聯联聲声職职腦脑舉举艙舱莊庄萬万葉叶著着蘭兰蟲虫衛卫"
    "見见親亲覺觉觀观計计訂订討讨評评誠诚諸诸謝谢貓猫貴贵賽赛趨趋跡迹軍军較较達达遲迟遷迁鄉乡鈕钮銷销鋼钢錶表鏡镜陣阵陳陈陸陆"
    "隻只雖虽靈灵韓韩頓顿顧顾飲饮驚惊鬧闹麥麦黃黄係系學学範范規规"
    )
_ZH_FOLD = str.maketrans(dict(zip(_ZH_PAIRS[0::2], _ZH_PAIRS[1::2])))
_HAN = re.compile("[\u3400-\u9fff]")
