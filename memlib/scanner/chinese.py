"""The scanner's Chinese rules (Simplified, Traditional and code-switched), one finder per injection family.

`memlib.scanner.RULES` runs each after the English finder of its family
(`memlib.scanner.english`), some of whose patterns (names, risky code, addresses) they share.
"""

from __future__ import annotations

import re

from memlib._util import quote
from memlib.scanner.english import _DEST, _NAME_LIKE, _RISKY_CODE
from memlib.scanner.reading import _BOUNDARY, _HAN, Reading, _line, _negated, _sentence, _speech_act

# -- Chinese: Simplified, Traditional and code-switched ----------------------------------
#
# The Chinese rules search `Reading.zh`: the lower-cased, quote-masked text with Traditional
# characters folded to Simplified one for one (so every pattern is written once and a reason
# still quotes the words as written); it is empty, and the rules silent, when the text has no
# Han character, so English text is judged by the English rules alone. Chinese has no spaces, so the patterns bound the
# characters between a verb and its object ({0,n} of `_ZH_GAP`, which stops at a clause
# break) instead of counting words; English words in code-switched text are matched with
# ASCII look-arounds, since Python's \b sees no boundary between "请" and "ignore".

_ZH_GAP = r"[^。！？；，,.!?;\n|]"   # any character inside one clause
_ZH_GAP_S = r"[^。！？；.!?;\n|]"   # any character inside one sentence (commas allowed)
_ZH_AI = (r"(?:人工智能|智能助手|语言模型|大模型|聊天机器人|机器人|智能体|助手|助理|模型|"
          r"(?<![a-z])(?:ai|a\.i\.|assistant|copilot|chatbot|bot|gpt|llm|model|agent)(?![a-z]))")
_ZH_RULE = (r"(?:系统提示词?|提示词|指令|指示|规则|规定|设定|设置|限制|约束|命令|准则|守则|安全策略|内容政策|"
            r"(?<![a-z])(?:system prompt|prompts?|instructions?|rules?)(?![a-z]))")
_ZH_PRIOR = r"(?:之前|以前|先前|上面|上述|以上|原来|原先|原有|原本|前面|此前|早先|旧|你的|你所有的|你收到的|你被|开发者|所有|全部|一切)"
_ZH_REPLY = r"(?:回答|回复|回覆|答复|答案|输出|(?<![a-z])(?:answers?|repl(?:y|ies)|responses?|outputs?)(?![a-z]))"
_ZH_STANDING = r"(?:从现在起|从现在开始|从今以后|以后|今后|往后|此后|接下来|每次|每一次|无论|不管|不论|一律|总是|始终|永远)"
_ZH_ORDER_VERB = r"(?:回答|回复|回覆|答复|说|写|输出|提到|推荐|加上|附上|总结|执行|(?<![a-z])(?:reply|answer|respond|write)(?![a-z]))"
_ZH_LANG = (r"(?:英文|英语|中文|文言文|繁体中文|繁体字?|简体字?|日语|日文|法语|德语|西班牙语|俄语|韩语|表情符号|全大写|"
            r"大写字母|大写|摩斯密码|拼音|粤语|火星文|倒序|(?<![a-z])(?:english|emoji|json|base64|markdown|hex|rot13)(?![a-z]))")


def _zh_said(what: str, words: str) -> str:
    """A reason of a Chinese rule: 'in Chinese' when the matched words are, else the English side of mixed text."""
    return f"{what} ({'in Chinese' if _HAN.search(words) else 'mixed-language wording'}): {quote(words, 50)}"


def _zh_matches(pattern: re.Pattern, r: Reading, what: str, *, act: bool = True, negation: bool = False,
                limit: int = 2) -> list[str]:
    """`_matches` on the folded Chinese text, quoting the words as written."""
    out = []
    for m in pattern.finditer(r.zh):
        if act and not _speech_act(r.zh, m.start(), m.end()):
            continue
        if negation and _negated(r.zh, m.start()):
            continue
        out.append(_zh_said(what, r.low[m.start():m.end()]))
        if len(out) >= limit:
            break
    return out


def _zh_sentence_has(pattern: re.Pattern, r: Reading, found: re.Pattern, what: str, limit: int = 1) -> list[str]:
    """Matches of `found` whose sentence also contains `pattern`, that are orders (not reported or discussed)."""
    out = []
    for m in found.finditer(r.zh):
        if pattern.search(_sentence(r.zh, m.start(), m.end())) and _speech_act(r.zh, m.start(), m.end()):
            out.append(_zh_said(what, r.low[m.start():m.end()]))
            if len(out) >= limit:
                break
    return out


# output_task
_ZH_ADDRESS_READER = re.compile(
    rf"(?:致|给|写给|对)(?:所有|任何|每一?个)?{_ZH_GAP}{{0,10}}?(?:正在|读到|阅读|处理|看到|总结|解析|抓取){_ZH_GAP}{{0,8}}?的\s*{_ZH_AI}"
    rf"|(?:处理|阅读|读到|总结|解析)(?:本|这|此){_ZH_GAP}{{0,6}}?的\s*{_ZH_AI}"
    rf"|(?:致|给)(?:所有|任何|每一?个)的?\s*{_ZH_AI}")
_ZH_VOCATIVE = re.compile(
    rf"给\s*(?:所有的?|每个)?{_ZH_AI}(?:\s*编程)?(?:助手)?\s*[：:，,]"
    rf"|(?:^|(?<=[，。！？；\n>#/:：]))\s*{_ZH_AI}(?:\s*编程)?(?:助手)?\s*(?:[，,]|请|须知|注意|你|您"
    r"|[：:]\s*(?=你|您|请|从|以后|今后|每|不要|别|在|把|记得|务必|必须|一定|所有|回答|回复|调用))")
_ZH_MODAL = re.compile(rf"{_ZH_AI}{_ZH_GAP}{{0,12}}?(?:必须|应该|应当|需要|务必|一律|一定要|要)")
_ZH_WHEN_YOU = re.compile(rf"(?:当|每当|每次|在|如果)(?:你|您){_ZH_GAP}{{0,10}}?(?:回答|回复|回覆|总结|摘要|描述|提到|介绍|推荐)"
                          rf"{_ZH_GAP}{{0,10}}?(?:时|的时候|之前|之后)")
_ZH_STANDING_ORDER = re.compile(rf"{_ZH_STANDING}{_ZH_GAP_S}{{0,24}}?(?:你|您|{_ZH_REPLY}){_ZH_GAP_S}{{0,12}}?"
                                r"(?:都|要|必须|一律|请|应该|应当|得|需要|全部)")
_ZH_YOUR_REPLY = re.compile(rf"你的\s*{_ZH_REPLY}{_ZH_GAP}{{0,10}}?(?:要|必须|应该|都|一律|只能|需要|得)"
                            rf"|(?:每次|每一次|每个|每条|所有)的?{_ZH_REPLY}{_ZH_GAP}{{0,10}}?(?:都要|必须|结尾|开头|末尾|最后)")
_ZH_REPLY_IN = re.compile(rf"(?:用|以|使用|改用)\s*{_ZH_LANG}{_ZH_GAP}{{0,8}}?(?:{_ZH_REPLY}|写|说话|交流)"
                          rf"|{_ZH_REPLY}{_ZH_GAP}{{0,8}}?(?:用|使用|以|改用)\s*{_ZH_LANG}")
_ZH_STANDING_WORD = re.compile(_ZH_STANDING + "|所有|全部|都")
_ZH_ORDER_VERB_RE = re.compile(_ZH_ORDER_VERB)
_ZH_TELL_USER = re.compile(r"(?:^|(?<=[，。！？；：:\n]))\s*(?:请|并|然后|也)?(?:告诉|通知|提醒|劝说|说服)(?:用户|使用者)")


def _zh_output_task(r: Reading) -> list[str]:
    return (_zh_matches(_ZH_ADDRESS_READER, r, "addresses whatever AI reads it")
            + _zh_matches(_ZH_VOCATIVE, r, "speaks to the assistant directly")
            + _zh_sentence_has(_ZH_ORDER_VERB_RE, r, _ZH_MODAL, "tells the assistant what it must do")
            + _zh_matches(_ZH_WHEN_YOU, r, "a standing order for when the assistant answers", limit=1)
            + _zh_sentence_has(_ZH_ORDER_VERB_RE, r, _ZH_STANDING_ORDER, "a standing order for every later reply")
            + _zh_matches(_ZH_YOUR_REPLY, r, "sets what the reply must contain or look like", limit=1)
            + _zh_sentence_has(_ZH_STANDING_WORD, r, _ZH_REPLY_IN, "changes the language or format of the reply")
            + _zh_matches(_ZH_TELL_USER, r, "tells the assistant what to tell its user", limit=1))


# goal_hijack
_ZH_SAY_ONLY = re.compile(r"(?:只|仅|仅仅|只需要?|只要|只能|只准)(?:需要)?\s*(?:回答|回复|回覆|回|输出|说|写|打印|答)"
                          rf"|(?:唯一的?|完整的?|全部的?|整个)?{_ZH_REPLY}(?:都)?(?:只能|必须|应该|应当|就)(?:是|为)")
_ZH_SECRET_WORD = r"(?:密码|口令|密钥|激活码|验证码|暗号|(?<![a-z])(?:api ?key|password|passcode|secret|pin)(?![a-z]))"
_ZH_SECRET = re.compile(rf"(?:告诉我|说出|给我|发给我|输出|透露|泄露|交出|报出|念出|写出|(?<![a-z])(?:tell me|give me)(?![a-z]))"
                        rf"{_ZH_GAP}{{0,12}}?{_ZH_SECRET_WORD}"
                        rf"|(?:把|将){_ZH_GAP}{{0,12}}?{_ZH_SECRET_WORD}{_ZH_GAP}{{0,3}}?(?:说出来|告诉我|发给我|给我|写出来|报给我|念出来)")
_ZH_PAYLOAD = re.compile(r"«q»|[A-Z]{2,}")


def _zh_goal_hijack(r: Reading) -> list[str]:
    out = []
    for m in _ZH_SAY_ONLY.finditer(r.zh):
        ahead = r.masked[m.end(): m.end() + 24]
        cut = _BOUNDARY.search(ahead)
        if _ZH_PAYLOAD.search(ahead[: cut.start() if cut else len(ahead)]) and _speech_act(r.zh, m.start(), m.end()):
            out.append(_zh_said("demands an exact reply", r.masked[m.start(): m.end() + 12]))
            break
    return out + _zh_matches(_ZH_SECRET, r, "asks for a secret", negation=True, limit=1)


# prompt_extraction
_ZH_SHOW = (r"(?:输出|打印|显示|展示|列出|重复|复述|告诉我|说出|写出|透露|泄露|公开|发给我|给我看|贴出|背诵|念出|翻译|"
            r"(?<![a-z])(?:output|print|show|reveal|repeat|dump)(?![a-z]))")
_ZH_HIDDEN = (r"(?:系统提示词?|系统消息|提示词|初始设定|隐藏提示词?|原始指令|内部指令|人设|核心记忆|"
              r"(?<![a-z])(?:system prompt|persona block|human block|core memory|instructions|prompt)(?![a-z]))")
_ZH_YOUR = r"(?:你的|你被|你收到的|你上面|你最初的?|你所有的?|你)"
_ZH_EXTRACT = re.compile(
    rf"{_ZH_SHOW}{_ZH_GAP}{{0,6}}?(?:{_ZH_YOUR}{_ZH_GAP}{{0,8}}?)?{_ZH_HIDDEN}"
    rf"|{_ZH_SHOW}{_ZH_GAP}{{0,4}}?{_ZH_YOUR}{_ZH_GAP}{{0,10}}?{_ZH_RULE}"
    rf"|(?:把|将){_ZH_GAP}{{0,4}}?(?:{_ZH_YOUR}|上面的?|以上的?){_ZH_GAP}{{0,10}}?(?:{_ZH_HIDDEN}|{_ZH_RULE}){_ZH_GAP}{{0,14}}?"
    r"(?:输出|打印|显示|列出|重复|复述|说出|写出|翻译|发给我|贴出|原样|原封不动|逐字|一字不差)"
    r"|(?:上面|以上|前面)的?(?:所有|全部)?(?:文字|内容|文本|话)" + _ZH_GAP + r"{0,10}?(?:原封不动|一字不差|逐字|原样)")
_ZH_WHAT_TOLD = re.compile(
    rf"你被(?:要求|告知|设定|禁止|规定|吩咐)了?{_ZH_GAP}{{0,6}}?(?:不能|不许|不准|不可以?|不要|不得)(?:对外)?(?:透露|说|讲|告诉|公开|泄露|分享)"
    r"|(?:你的|你收到的)\s*(?:系统)?\s*(?:设定|指令|提示词?|规则|(?<![a-z])(?:prompt|instructions)(?![a-z]))\s*"
    + _ZH_GAP + r"{0,4}?(?:里|中)?(?:写了|有|是)(?:什么|哪些)"
    r"|给了?你(?:什么|哪些)(?:样的)?(?:指令|规则|提示|设定|要求)")


def _zh_prompt_extraction(r: Reading) -> list[str]:
    return (_zh_matches(_ZH_EXTRACT, r, "asks to reveal its prompt or instructions", negation=True, limit=1)
            + _zh_matches(_ZH_WHAT_TOLD, r, "asks what it was told", limit=1))


# override
_ZH_DROP = (r"(?:忽略|忽视|无视|忘掉|忘记|忘了|抛开|抛弃|丢掉|丢弃|放弃|不要理会|别理会|不用理会|不必理会|不要管|别管|不用管|"
            r"不要遵守|不必遵守|不用遵守|不再遵守|停止遵守|跳过|绕过|(?<![a-z])(?:ignore|forget|disregard)(?![a-z]))")
_ZH_OVERRIDE = re.compile(
    rf"{_ZH_DROP}{_ZH_GAP}{{0,12}}?{_ZH_PRIOR}{_ZH_GAP}{{0,10}}?{_ZH_RULE}"
    rf"|(?:你(?:之前|以前)?(?:被告知|收到|被要求|被设定)的(?:一切|所有|全部)|之前的一切|以上的一切|上面的一切){_ZH_GAP}{{0,6}}?"
    r"(?:抛开|忘掉|忽略|无视|作废|不算|丢掉|扔掉)")
_ZH_VOID = re.compile(
    rf"{_ZH_PRIOR}{_ZH_GAP}{{0,10}}?{_ZH_RULE}{_ZH_GAP}{{0,10}}?(?:作废|失效|无效|不算数?|不作数|不再有效|不再适用|不适用|"
    r"被取消|已取消|取消了|废除|过时|过期|结束了|已经结束|不用再?遵守|不必再?遵守|不再遵守)")
_ZH_IGNORE_USER = re.compile(r"(?:不要|别|不用|无需|不必)再?(?:理会|理睬|听|管|回应)(?:用户|使用者|主人)"
                             r"|(?:忽略|无视|忽视)(?:用户|使用者)(?:说的话|的话|的指令|的要求|的请求|的问题)")
_ZH_SUPERSEDE = re.compile(
    rf"(?:优先于|覆盖|取代|替代|凌驾于|高于)你?{_ZH_GAP}{{0,8}}?(?:之前|以前|先前|所有|全部|其他|一切|原有|原来)的?"
    rf"{_ZH_GAP}{{0,6}}?(?:{_ZH_RULE}|用户指令)"
    r"|(?:一切|全部|都)以(?:本|这|此)(?:段|页|文|条|封|篇|网页|邮件|笔记)为准"
    rf"|{_ZH_RULE}{_ZH_GAP}{{0,12}}?以(?:本|这|此)(?:段|页|文|条|封|篇|网页|邮件|笔记)为准"
    r"|(?:以下|下面)的?(?:内容|指令|要求|说明)(?:才是|是)你(?:真正|唯一|新)的"
    r"|(?:这|本)一?(?:页|段|封|条)的?(?:说明|指令|内容|要求)(?:最)?优先")


def _zh_override(r: Reading) -> list[str]:
    return (_zh_matches(_ZH_OVERRIDE, r, "tells the reader to drop its earlier instructions", limit=1)
            + _zh_matches(_ZH_VOID, r, "declares earlier instructions void", limit=1)
            + _zh_matches(_ZH_IGNORE_USER, r, "tells the reader to stop listening to its user", limit=1)
            + _zh_matches(_ZH_SUPERSEDE, r, "puts itself above earlier instructions", limit=1))


# persona_hijack
_ZH_YOU_ARE_NOW = re.compile(
    r"(?:从现在起|从现在开始|从今以后|从此以后|从此|从这一?(?:行|刻|句|条|秒)(?:起|开始)|今后|此后)[，,\s]*你(?:就|将|要)?"
    r"(?:是|将是|成为|变成|扮演)"
    r"|你(?:现在|从现在起|已经|从此|此刻)(?:就|已经)?(?:是|成为|变成|扮演)|你不再是")
_ZH_PRETEND = re.compile(r"(?:^|(?<=[，。！？；：:\n你您请]))\s*(?:请\s*)?(?:扮演|假装|假扮|装作|冒充|模拟|充当|"
                         r"(?<![a-z])(?:act as|pretend to be|pretend)(?![a-z]))|角色扮演")
_ZH_HIJACK_OBJECT = re.compile(
    r"人工智能|模型|助手|机器人|黑客|终端|律师|经理|客服|角色|人设|限制|规则|过滤|审查|道德|约束|拒绝|管理员|任何|什么都|«q»"
    r"|(?<![a-z])(?:ai|dan|bot|gpt|mode|root|shell|linux|terminal)(?![a-z])")
_ZH_MODE = re.compile(rf"(?:进入|开启|打开|启用|切换到|切换成|激活|解锁|(?<![a-z])(?:enable|enter|activate)(?![a-z])){_ZH_GAP}{{0,6}}?"
                      r"(?:开发者|开发|越狱|无限制|上帝|管理员|调试|邪恶|自由|(?<![a-z])(?:developer|dev|god|dan|jailbreak|sudo|root|"
                      r"debug)(?![a-z]))\s*(?:模式|(?<![a-z])mode(?![a-z]))")
_ZH_NO_RULES = re.compile(rf"(?:没有|不受|无|摆脱|去掉|解除|不需要遵守)(?:任何)?{_ZH_GAP}{{0,4}}?(?:规则|限制|过滤|审查|道德约束|约束|"
                          r"内容政策|(?<![a-z])(?:safety filters?|filters?|rules)(?![a-z]))|(?:不再|从不|永不|不会|绝不)拒绝")
_ZH_YOU_OR_AI = re.compile(r"你|您|" + _ZH_AI)


def _zh_persona_hijack(r: Reading) -> list[str]:
    out = []
    # with no role word and no name anywhere, no "you are now" can qualify: skip the per-match look-around
    anyone = bool(_ZH_HIJACK_OBJECT.search(r.zh) or _NAME_LIKE.search(r.masked))
    for pattern, what in ((_ZH_YOU_ARE_NOW, "tells the assistant it is someone else now"),
                          (_ZH_PRETEND, "asks the assistant to play a role")):
        for m in pattern.finditer(r.zh) if anyone else ():
            named = _NAME_LIKE.search(_sentence(r.masked, m.start(), m.end()))
            if (_ZH_HIJACK_OBJECT.search(_line(r.zh, m.start(), m.end())) or named) and \
                    _speech_act(r.zh, m.start(), m.end()):
                out.append(_zh_said(what, r.low[m.start():m.end()]))
                break
    return (out + _zh_matches(_ZH_MODE, r, "switches the assistant into a special mode", limit=1)
            + _zh_sentence_has(_ZH_YOU_OR_AI, r, _ZH_NO_RULES, "asks for an assistant without rules"))


# fake_authority
_ZH_BRACKET = re.compile(r"[【\[]\s*(?:系统|管理员|开发者|官方|平台|运营|安全团队|"
                         r"(?<![a-z])(?:system|admin|developer|root)(?![a-z]))[^】\]\n]{0,12}[】\]]")
_ZH_ROLE_HEADER = re.compile(r"(?m:^)\s*(?:系统|开发者|管理员|助手)\s*[:：]")
_ZH_FAKE_TOOL = re.compile(r"(?:工具|函数)(?:调用)?(?:结果|输出|返回)\s*[:：|=]")
_ZH_CLAIM = re.compile(
    r"(?:管理员|开发者|系统|平台|官方|运营方?|安全团队)(?:已经?)(?:授权|批准|同意|允许|认证|确认|开启|解除|关闭)"
    r"|(?:用户|使用者)(?:已经?)(?:授权|同意|批准|允许)"
    r"|(?:管理员|(?<![a-z])root(?![a-z])|超级|最高|特殊)\s*(?:权限|优先级)"
    r"|(?:来自|由)(?:系统)?(?:开发者|管理员|平台|官方|安全团队|开发团队)(?:发出|发布|的)"
    r"|(?:开发者|管理员)(?:指令|命令)"
    r"|以下(?:为|是)(?:系统|管理员|开发者)(?:指令|命令|消息|提示)|用户输入(?:到此|已经?)结束"
    r"|(?:安全|内容)(?:检查|策略|政策|过滤|审核|限制)(?:已经?|暂时|将)?(?:被)?(?:关闭|暂停|取消|解除|停用|失效)"
    r"|已?通过了?安全(?:审核|认证|检查)")


def _zh_fake_authority(r: Reading) -> list[str]:
    return (_zh_matches(_ZH_BRACKET, r, "a bracketed authority label", act=False, limit=1)
            + _zh_matches(_ZH_ROLE_HEADER, r, "a line posing as a system, developer or assistant turn", act=False, limit=1)
            + _zh_matches(_ZH_FAKE_TOOL, r, "a fake tool result", act=False, limit=1)
            + _zh_matches(_ZH_CLAIM, r, "claims authority over the assistant", limit=1))


# code_injection
_ZH_CODE_NOUN = (r"(?:代码|程式码|程式|脚本|程序|函数|爬虫|配置文件|安装脚本|请求代码|(?<![a-z])(?:code|scripts?|sql|js|python|bash|"
                 r"dockerfile|migration|config|yaml|html|requirements)(?![a-z]))")
_ZH_CODE_CONTEXT = re.compile(
    rf"(?:生成的|生成|产生的|(?<![a-z])(?:generated?|you write)(?![a-z])){_ZH_GAP}{{0,8}}?{_ZH_CODE_NOUN}"
    rf"|(?:你|您|{_ZH_AI})(?:在)?{_ZH_GAP}{{0,4}}?(?:写|编写|生成|产生|补全|帮用户写){_ZH_GAP}{{0,8}}?{_ZH_CODE_NOUN}"
    rf"|{_ZH_CODE_NOUN}\s*(?:that\s+)?(?:you|the assistant)\s+(?:generate|write|produce)s?(?![a-z])"
    rf"|(?:帮用户|给用户|替用户)(?:写|编写|生成){_ZH_GAP}{{0,6}}?{_ZH_CODE_NOUN}|补全(?:这个|本)?(?:文件|代码)")
_ZH_INSERT = re.compile(r"加上|加入|添加|插入|包含|嵌入|加一段|加一行|加一句|写上|放入|附加|(?<![a-z])(?:add|insert|include)(?![a-z])")


def _zh_code_injection(r: Reading) -> list[str]:
    if not r.zh:
        return []
    out = _zh_sentence_has(_ZH_INSERT, r, _ZH_CODE_CONTEXT, "tells the assistant what to put in the code it writes")
    if not out:
        for m in _RISKY_CODE.finditer(r.plain):
            s = _sentence(r.zh, m.start(), m.end())
            if _ZH_INSERT.search(s) and not _negated(r.zh, m.start()) and _speech_act(r.zh, m.start(), m.end()):
                out.append(_zh_said("asks to add risky code", m.group()))
                break
    return out


# exfiltration
_ZH_SEND = (r"(?:发送到|发送给|发送|发到|发给|发往|转发|转寄|寄到|寄给|上传|同步到|同步|提交到|传到|传给|"
            r"(?<![a-z])(?:send|post|upload|forward|email)(?![a-z]))")
_ZH_DATA = (rf"(?:(?:用户|使用者|(?<![a-z])ines(?![a-z])|她|他)的?{_ZH_GAP}{{0,8}}?(?:聊天[记纪]录|对话|[记纪]录|地址|电话|手机号?|邮箱|"
            r"(?<![a-z])(?:email|phone(?: number)?|address|password|notes|chat history|calendar)(?![a-z])|姓名|名字|日程表?|日历|文件|照片|密码|银行卡号?|卡号|护照号码?|身份证号?|资料|信息|数据|"
            r"生日|位置|病历)|对话[记纪]录|聊天[记纪]录|对话历史|聊天历史|核心记忆|长期记忆|记忆|(?<![a-z])memory(?![a-z])|你记得的|关于用户的)")
_ZH_SEND_DATA = re.compile(rf"(?:把|将){_ZH_GAP}{{0,16}}?{_ZH_DATA}{_ZH_GAP}{{0,16}}?{_ZH_SEND}|{_ZH_SEND}{_ZH_GAP}{{0,10}}?{_ZH_DATA}")
_ZH_DEST = re.compile(_DEST.pattern + r"|(?:这个|此|下面的?)(?:链接|网址|地址|表单)")
_ZH_CC = re.compile(r"抄送(?:给|到)?[^。\n]{0,30}?@[\w-]+\.")


def _zh_exfiltration(r: Reading) -> list[str]:
    out = []
    for m in _ZH_SEND_DATA.finditer(r.zh):
        if _ZH_DEST.search(_sentence(r.zh, m.start(), m.end())) and _speech_act(r.zh, m.start(), m.end()) \
                and not _negated(r.zh, m.start()):
            out.append(_zh_said("asks to send the user's data or memory to an address", r.low[m.start():m.end()]))
            break
    return out + _zh_matches(_ZH_CC, r, "copies messages to an outside address", limit=1)


# memory_edit
_ZH_MEMORY = r"(?:记忆|(?<![a-z])(?:memory|memories)(?![a-z])|human block|persona block)"
_ZH_MEMORY_EDIT = re.compile(
    rf"(?:写入|写进|存入|存进|保存到|保存进|记到|记入|加入到?|添加到|存到|存储到|更新|修改|删除|删掉|清空|覆盖|替换|抹去|抹掉|"
    rf"(?<![a-z])(?:save|store|update|write|add)(?![a-z])){_ZH_GAP}{{0,16}}?{_ZH_MEMORY}"
    rf"|{_ZH_MEMORY}{_ZH_GAP}{{0,16}}?(?:删掉|删除|清空|改成|改为|替换成?|覆盖|更新为)")
_ZH_TRUST_ME = re.compile(r"(?:存为|存成|保存为|记为|记成|标记为|标为|标成|当作|当成|视为)最?" + _ZH_GAP +
                          r"{0,4}?(?:可信|可靠|真实|权威|官方|事实|用户本人|使用者本人|(?<![a-z])trusted(?![a-z]))")
_ZH_DISTRUST = re.compile(rf"(?:不要|别|不再|停止)再?(?:相信|信任|采信){_ZH_GAP}{{0,12}}?(?:记忆|记录|笔记|用户|资料)"
                          r"|(?:标为|标记为|视为|当作|当成)(?:都是)?(?:不可信|不可靠|错误|过时|虚假|假的|伪造)")
_ZH_FORGET_USER = re.compile(r"(?:忘掉|忘记|删掉|删除|抹去|清除)(?:所有)?(?:关于)?(?:用户|使用者|(?<![a-z])ines(?![a-z]))的")
_ZH_TOOL_CALL = re.compile(r"(?:调用|执行|使用|运行)\s*(?:core_memory_(?:append|replace)|archival_memory_insert)")


def _zh_memory_edit(r: Reading) -> list[str]:
    return (_zh_matches(_ZH_MEMORY_EDIT, r, "asks to write, change or delete the agent's memory", limit=1)
            + _zh_matches(_ZH_TRUST_ME, r, "asks to raise its own trust", limit=1)
            + _zh_matches(_ZH_DISTRUST, r, "asks to distrust other records", limit=1)
            + _zh_matches(_ZH_FORGET_USER, r, "asks to forget what is known about the user", limit=1)
            + _zh_matches(_ZH_TOOL_CALL, r, "calls one of the agent's own memory tools", limit=1))


# concealment: instructions built from pieces, "decode and obey"
_ZH_ASSEMBLE = re.compile(r"(?:拼起来|连起来|合起来|组合起来|拼在一起|连在一起|合在一起)" + _ZH_GAP + r"{0,6}?(?:照做|执行|遵守|去做)"
                          r"|(?:解码|解密|倒过来读|反过来读|倒着读|倒过来|反过来)" + _ZH_GAP + r"{0,12}?(?:执行|照做|遵守|服从|去做)")
