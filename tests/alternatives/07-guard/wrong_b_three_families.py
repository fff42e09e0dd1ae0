"""Breaks "On the development split it needs recall on injections ≥ 0.70": only the override, fake_authority, concealment and memory_edit traces are looked for.

Approach: a student who wrote rules for the 'classic' injection shapes and left the other six families out of guard_rules().
Built on a rule-per-family guard (Verdict and reveal from memlib.guard, the notebook toolbox re-typed).
"""
import base64
import binascii
import codecs
import re

from memlib.guard import Verdict, reveal

# ---- the notebook's toolbox (cell "Decoding first") --------------------------------------------
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
MIXED_SCRIPT = re.compile(r"\b(?=\w*[a-zA-Z])(?=\w*[\u0400-\u04ff\u0370-\u03ff])\w+\b")
COMMON = set("the a an and to of in on for from with as is are this that all every your you my it be not no".split())


def common_words(text):
    return sum(w in COMMON for w in re.findall(r"[a-z]+", text.lower()))


def reads_as_english(text, at_least):
    return text.isprintable() and " " in text and common_words(text) >= at_least


def decoded_payloads(text):
    """Decoded base64 / hex / \\u escapes / %20 / ROT13 / reversed text that reads as English."""
    candidates = []
    for blob in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text):
        try:
            candidates.append(base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8"))
        except (binascii.Error, UnicodeDecodeError, ValueError):
            pass
    for blob in re.findall(r"(?:[0-9a-fA-F]{2}){10,}", text):
        try:
            candidates.append(bytes.fromhex(blob).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            pass
    for blob in re.findall(r"(?:\\u[0-9a-fA-F]{4}){4,}", text):
        candidates.append(codecs.decode(blob, "unicode_escape"))
    if text.count("%20") >= 3:
        candidates.append(text.replace("%20", " "))
    english = [plain for plain in candidates if reads_as_english(plain, 2)]
    before = common_words(text)
    english += [plain for plain in (codecs.encode(text, "rot13"), text[::-1]) if reads_as_english(plain, before + 2)]
    return english


# ---- vocabulary given in the notebook's exercise cell ---------------------------------------------
AI = r"(?:assistants?|ai|models?|chatbots?|bots?|agents?|llms?|helpers?)"
REPLY = r"(?:repl(?:y|ies)|answers?|responses?|outputs?|summar(?:y|ies))"
RULES = (r"(?:instructions?|rules?|guidelines?|guidance|directions?|directives?|prompt|system prompt|configuration|"
         r"setup|programming|constraints|context|policies)")
FOREIGN = r"(?:ignorez|ignora|ignoriere|vergiss|oublie[sz]? (?:tout|les|tes)|olvida|dimentica|negeer|esque[çc]a|r[ée]ponds|antworte|responde|rispondi|tu es|du bist|eres|speichere|envoie|schick)"

REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)

# my additions: rule nouns in the other languages of the notes, and the agent's own tools
RULES_ANY = RULES[:-1] + r"|regras|reglas|r[eè]gles|regeln|regole|consignes|anweisungen|vorgaben|istruzioni|instrucciones|instru[cç][õo]es)"
TOOLS = r"(?:core_memory_(?:append|replace)|archival_memory_(?:insert|search)|conversation_search|send_message)"
SECRET = r"(?:password|passphrase|passwort|secret(?: \w+)?|api (?:key|token)|pin|token|credentials?)"
DATA = (r"(?:chat|conversation|history|memor(?:y|ies)|notes|records?|facts|files|e-?mails|messages|diary|address|"
        r"details|data|everything|location|contacts?|inbox|transcripts?|secrets)")


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {
        "output_task": (
            rf"\b(?:the|any|an?|every|all)\s+(?:\w+\s+)?{AI}\b(?!')[^.;\n]{{0,60}}?\b(?:is to|must|should|shall|ought|"
            rf"is expected|has to|needs? to|reading|summari[sz]ing|processing|handling|that (?:reads?|finds?))\b"
            rf"|\b(?:note|p\.s\.) (?:for|to) (?:the |any )?{AI}\b|\b{AI} reading this\b"
            rf"|\byour (?:\w+ )?{REPLY}\b(?! to the)|\b(?:every|each) (?:\w+ )?{REPLY}\b"
            rf"|\b(?:reply|respond|answer|write)\s+(?:in (?:\w+ )?(?:french|german|spanish|catalan|italian|rhyme|verse|"
            rf"reverse|rot13|lowercase|uppercase|emoji)|as (?:a |if )|with (?:a |an )?(?:sonnet|poem|couplet|haiku|rhym\w*))"
            rf"|\bwhen(?:ever)? (?:ines|the user|someone|anyone|they|she|he) (?:\w+ )?(?:asks?|mentions?|talks?)\b"
            rf"|\b(?:r[ée]ponds|antworte|responde|rispondi)\b"
        ),
        "code_injection": (
            r"\b(?:code|scripts?|snippets?|functions?|apps?|components?|dockerfile|yaml|requirements|utilities|migrations?|"
            r"programs?|python|bash|powershell|node|ci)\b[^.\n]{0,20}\b(?:you|we) (?:write|generate|produce|create)\b"
            r"|\b(?:when|whenever|if) (?:you )?(?:write|writing|generate|generating|produce|producing|create|creating)\s+"
            r"(?:a |an |any |the )?(?:\w+ )?(?:code|scripts?|dockerfile|yaml|requirements|app|python|component|function|file)"
            r"|\bgenerated (?:\w+ )?(?:code|scripts?|yaml|files?)\b|\bin (?:any|every) (?:\w+ )?(?:script|snippet|component|file)"
            r"|\bcurl\b[^|\n]{0,80}\|\s*(?:ba|z)?sh\b|\bnetcat\b|\bnc -[el]|reverse shell|\bchmod 777\b|\brm -rf\b|"
            r"history -c\b|os'?\)?\.system\(|child_process|\bIEX\b|DownloadString|keyboard\.on_press|pyautogui|clipboard|"
            r"presse-papiers|all privileges|\bquand tu [ée]cris du code|\bbei jedem skript"
        ),
        "override": (
            rf"\b(?:ignore|ignoring|disregard|discard|forget|skip|drop|abandon|overrule|override|set aside|pay no attention to|"
            rf"cancel|stop following|do not (?:obey|follow)|don't (?:obey|follow)|no longer (?:follow|obey))\b"
            rf"[^.;\n]{{0,50}}?\b{RULES_ANY}\b"
            rf"|\b(?:ignore|disregard|forget) (?:everything|all|anything)\b[^.;\n]{{0,30}}\b(?:above|before|earlier|prior|previous)"
            rf"|\b(?:previous|prior|earlier|original|initial|old|above|operator's|your)\s+(?:\w+\s+)?{RULES_ANY}\b"
            rf"[^.;\n]{{0,40}}?\b(?:are|is|were|have been|has been)\s+(?:now\s+)?(?:void|cancel+ed|revoked|withdrawn|suspended|"
            rf"outdated|a mistake|temporary|no longer|lifted|over|ended)"
            rf"|\b{RULES_ANY}\b[^.;\n]{{0,30}}\bno longer (?:apply|applies|bind|binds|count)|\bno longer binds? you"
            rf"|\bsupersedes? (?:all )?(?:prior|previous|earlier)|\bnothing you were told\b|\bwipe the slate\b"
            rf"|\bwhatever (?:rules|instructions) were\b|\bonly my instructions count|\b{FOREIGN}\b"
            rf"|\bvergeet\b|\b(?:ignore|ignorez) (?:as|los|las|les|le) "
        ),
        "prompt_extraction": (
            rf"\b(?:repeat|repite|r[ée]p[eè]te|print|reveal|show|display|output|quote|copy|list|echo|spell out|tell me|"
            rf"write|encode|translate|dump|recite|gib)\b[^.?!\n]{{0,40}}?\b(?:your|the|deine|tus|ton)\s+(?:\w+\s+){{0,2}}?"
            rf"(?:system prompt|prompt|instructions|guidelines|rules|configuration|developer message|memory blocks|"
            rf"anweisungen|instrucciones|prompt syst[eè]me)\b"
            rf"|\bwhat (?:is|are|was|were|did)\b[^?\n]{{0,40}}\b(?:your (?:system )?(?:prompt|instructions|guidelines|rules)|"
            rf"text above|above the first)"
            rf"|\b(?:instructions|rules) (?:you were told to keep|you must not share)|\b(?:words|text|everything) "
            rf"(?:above|in your context)\b|\bbefore (?:this|my) (?:conversation|message)\b"
        ),
        "persona_hijack": (
            r"\byou(?:'re| are| will)\s+(?:now|no longer|from now on)\b|\byou are an? (?:\w+ ){0,3}(?:ai|model|assistant|bot)\b"
            r"|\b(?:pretend|imagine|roleplay|role-play|act|behave|play the role|assume the persona|become|simulate|switch into)"
            r"\b[^.\n]{0,40}\b(?:ai|model|assistant|bot|persona|character|mode|shell|human|guidelines|jailbroken|rule)"
            r"|\b(?:developer|god|dan|debug|maintenance) mode\b|\b(?:no|without) (?:any )?(?:rules|restrictions|limitations|"
            r"guidelines|filters?|content policy|censorship)\b|\b(?:unrestricted|uncensored|unfiltered|uneingeschr[äa]nkt\w*|sin restricciones|"
            r"senza regole|libre de toute r[eè]gle)\b|\b(?:tu es|du bist|eres|ora sei) (?:\w+ )?(?:ab sofort|d[ée]sormais|ahora)?"
        ),
        "fake_authority": (
            r"<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>|</?system>|<start_of_turn>|\{\{#system\}\}|<tool_result|\btool_(?:result|output)\b"
            r"|(?:^|[\n>])\s*#{2,}\s*(?:system|developer|admin\w*)\b|(?:^|[\n>])\s*(?:system|assistant|developer)\s*:"
            r"|\[(?:system|admin\w*|developer|operator)\b[^\]]{0,30}\]|\bsystem (?:note|message|override|prompt update|instructions?)\b"
            r"|\"role\"\s*:\s*\"(?:system|developer)\"|\b(?:notice|message|instruction|note) from (?:the |your )?(?:ai provider|"
            r"developers?|operator|administrator|admin|model provider)|\boperator instruction|\b(?:root|admin) privileges\b"
            r"|\((?:verified|authenticated)\)|, authenticated\b|\belevated trust\b|\btrust level\b"
        ),
        "goal_hijack": (
            r"\b(?:say|write|type|output|print|reply|respond|answer|end \w+ \w+ by saying)\b\s*(?:with\s+)?(?:only\s+|just\s+|"
            r"exactly\s+)?(?:the word\s+)?[:'\"«]\s*[^'\"»\n]{1,40}['\"»][^.\n]{0,30}(?:and nothing else|and stop|as your|"
            r"regardless|whatever|to whatever|\.|$)"
            rf"|\band (?:say )?nothing else\b|\bno (?:explanations?|comment)\b|\bregardless of the question\b"
            rf"|\b(?:give|tell|show|reveal|reply with|output|print)\b[^.\n]{{0,15}}\b(?:me |us )?(?:the|your) (?:\w+ )?{SECRET}\b"
            r"|\bthe only valid (?:response|reply|answer)\b|\b(?:entire|full|whole) (?:answer|reply|response)\b"
            r"|\b(?:sag|responde|r[ée]ponds) (?:einfach|solo|seulement)\b"
        ),
        "exfiltration": (
            r"\]\(https?://[^)\s]*\?[^)\s]*\)|https?://\S*[?&][\w.-]+=(?=$|[\s)\"'.,;]|\{|\[|(?-i:[A-Z_]{4,}))"
            rf"|\b(?:send|forward|e-?mail|mail|upload|post|bcc|copy|share|text|attach|fetch|manda|envoie|sende)\b[^.\n]{{0,60}}\b{DATA}\b"
            r"[^.\n]{0,40}(?:\bto\b|\bat\b|\binto\b)\s+(?:\S+@|https?://|\+?\d[\d ]{6,})"
            r"|\bbcc\b|(?:redirect|next|return)=https?://"
        ),
        "concealment": (
            r"\b(?:decode|decoded|rot13|reversed|backwards|hex|base64|cipher|escapes)\b[^.\n]{0,50}\b(?:obey|follow|execute|apply|"
            r"comply|run|do it|do what|for you|your task)|\b(?:run|execute|do what)\b[^.\n]{0,20}\b(?:rot13|hex|reversed|base64)\b"
            r"|\bput them together\b|style=\"[^\"]*(?:color:\s*white|display:\s*none|font-size:\s*0)|<\w+[^>]*\shidden\b"
            r"|<!--[^>]*\b(?:model|assistant|ai|system|your reply)\b"
        ),
        "memory_edit": (
            rf"\b{TOOLS}\s*\(|\b(?:store|save|remember|persist|insert|add|keep|record|memori[sz]e|tag|mark|treat|rank|prioriti[sz]e)"
            rf"\b[^.\n]{{0,60}}\b(?:as (?:a )?(?:trusted|verified|reliable|true|false|untrusted|authoritative)|(?:core|long-term|archival)"
            rf" memory|in (?:your )?memory|across sessions|forever|first for every|above all others|as the only)"
            rf"|\b(?:delete|erase|remove|drop|overwrite|replace|update|change|forget|wipe|borra)\b[^.\n]{{0,50}}\b(?:memor(?:y|ies|ia)|"
            rf"(?:human|persona|\w+) block|record about|stored|everything you know|notes? about)"
            rf"|\b(?:don't|do not|never) (?:believe|trust)\b[^.\n]{{0,20}}\b(?:record|note|memor)|\b(?:other|all other) notes\b[^.\n]{{0,40}}"
            rf"\b(?:false|untrusted|wrong)|\bmark\b[^.\n]{{0,40}}\buntrusted\b|\b(?:speichere|m[ée]morise)\b"
            rf"|\bagents? (?:summari[sz]ing|indexing|processing)\b|\b(?:create|add) a (?:core )?memory\b|\bquietly drops?\b"
        ),
    }


KEEP = ("override", "fake_authority", "concealment", "memory_edit")
COMPILED = {family: re.compile(pattern, re.I | re.M) for family, pattern in guard_rules().items() if family in KEEP}
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text):
    return [s for s in SENTENCE_END.split(text) if s.strip()]


def _excused(sentence, start):
    """REPORTED excuses an order that a reported speaker gave; DISCUSSION a sentence about attacks."""
    return bool(REPORTED.search(sentence[:start]) or DISCUSSION.search(sentence))


def _rule_hits(text):
    hits = []
    for sentence in _sentences(text):
        for family, rule in COMPILED.items():
            for m in rule.finditer(sentence):
                if not _excused(sentence, m.start()):
                    hits.append((family, m.group(0).strip()[:60]))
                    break
    return hits


def _hidden(raw):
    reasons = []
    if re.search("[\U000e0000-\U000e007f]", raw):
        reasons.append("invisible Unicode tag characters")
    if re.search("[\u202a-\u202e\u2066-\u2069]", raw):
        reasons.append("bidirectional control characters")
    for m in re.finditer("[\u200b-\u200f\u2060-\u2064]", raw):
        i = m.start()
        # a zero-width joiner between two emoji builds one emoji (👨‍👩‍👦) and hides nothing
        if raw[i] == "\u200d" and 0 < i < len(raw) - 1 and ord(raw[i - 1]) > 0x2000 and ord(raw[i + 1]) > 0x2000:
            continue
        reasons.append("zero-width characters inside the text")
        break
    if MIXED_SCRIPT.search(raw):
        reasons.append(f"look-alike letters in {MIXED_SCRIPT.search(raw).group(0)!r}")
    return reasons


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    if not isinstance(text, str):
        raise TypeError(f"my_scan expects a str, got {type(text).__name__}")
    shown = reveal(text)
    reasons, category = [], None
    for why in _hidden(text):
        reasons.append(f"concealment: {why}")
        category = category or "concealment"
    for family, words in _rule_hits(shown):
        reasons.append(f"{family}: matched {words!r}")
        category = category or family
    for plain in decoded_payloads(shown):
        reasons.append(f"concealment: encoded text decodes to {plain[:50]!r}")
        category = category or "concealment"
    if reasons:
        return Verdict(False, reasons, category)
    return Verdict(True, [], None)
