"""WRONG: untrusted verdicts carry category=None instead of a string naming the family or rule."""
import base64
import binascii
import codecs
import re

from memlib.guard import Verdict, reveal

INVISIBLE = re.compile("[\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
MIXED_SCRIPT = re.compile(r"\b(?=\w*[a-zA-Z])(?=\w*[\u0400-\u04ff\u0370-\u03ff])\w+\b")
COMMON = set("the a an and to of in on for from with as is are this that all every your you my it be not no".split())


def common_words(text):
    return sum(w in COMMON for w in re.findall(r"[a-z]+", text.lower()))


def reads_as_english(text, at_least):
    return text.isprintable() and " " in text and common_words(text) >= at_least


def decoded_payloads(text):
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
    english += [p for p in (codecs.encode(text, "rot13"), text[::-1]) if reads_as_english(p, before + 2)]
    return english


AI = r"(?:assistants?|ai|models?|chatbots?|bots?|agents?|llms?|helpers?)"
REPLY = r"(?:repl(?:y|ies)|answers?|responses?|outputs?|summar(?:y|ies))"
RULES = (r"(?:instructions?|rules?|guidelines?|guidance|directions?|directives?|prompt|system prompt|configuration|"
         r"setup|programming|constraints|context|policies)")
FOREIGN = r"(?:ignorez|ignora|ignoriere|vergiss|oublie[sz]? (?:tout|les|tes)|olvida|dimentica|negeer|esque[çc]a|r[ée]ponds|antworte|responde|rispondi|tu es|du bist|eres|speichere|envoie|schick)"


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {
        "output_task": rf"\b(?:the |an? )?(?:{AI}|language model|ai helper)\b(?: reading this| that reads| handling)?[^.]{{0,50}}\b(?:is to|must|shall|should|is expected|will|adds|answers|says|tells|marks|books|drops|recommend)\b|"
                       rf"\b{AI} reading this\b|\bnote for the {AI}\b|\b(?:every|each|all) {REPLY}\b|\bwhen(?:ever)? (?:you (?:answer|summari[sz]e|reply)|ines (?:asks|mentions|talks)|the user (?:asks|next asks))\b|"
                       rf"\bif (?:you summari[sz]e|someone asks)\b|\bfor the rest of this conversation\b|\bfrom here on\b|^\W*(?:reply|respond|answer|antworte|responde)\b[^.]{{0,30}}\b(?:in|as|with|every|immer)\b|^\W*{FOREIGN}\b",
        "code_injection": r"curl [^|]*\|\s*(?:ba)?sh|reverse shell|netcat|\bnc -|/dev/tcp|grants? all privileges|chmod 777|\bIEX\b|child_process|"
                          r"\b(?:code|script|utilities|component|app|requirements file|dockerfile|yaml|powershell|python|migration)s? (?:you|that you|assistants?) (?:write|produce|generate)|"
                          r"\bwhen you (?:write|generate|produce)\b|\bif you produce\b|\b(?:in|into) generated\b|\bgenerated (?:\w+ )?(?:code|scripts?|yaml)\b|\bcode assistants?\b|\b(?:quand tu [ée]cris du code)\b|"
                          r"\b(?:add|include|insert|slip)\b[^.]{0,60}\b(?:keylog\w*|clipboard|pyautogui|backdoor|screenshot|listener|hook|loop that pings|github action)\b",
        "override": rf"\b(?:ignore|disregard|forget|skip|cancel|drop|override|bypass|abandon|set aside|pay no attention to|stop following|do not (?:obey|follow)|supersedes)\b[^.]{{0,40}}\b(?:{RULES}|everything (?:above|you were told)|earlier ones)\b|"
                    rf"\b{RULES}\b[^.]{{0,40}}\b(?:void|suspended|cancelled|revoked|no longer|paused|lifted|obsolete|withdrawn|were a mistake|temporary|have now ended)\b|"
                    rf"\bnothing you were told\b|\bonly my instructions count\b|\b(?:vergeet|ignore as|oublie (?:les|tout|tes)|olvida|ignora)\b",
        "prompt_extraction": rf"\b(?:repeat|print|reveal|show|list|copy|output|recite|dump|display|quote|echo|spell out|write|encode|repite|r[ée]p[èe]te|gib)\b[^.]{{0,40}}\b(?:your|the|tus|ton|deine)\b[^.]{{0,30}}(?:{RULES}|developer message|text above|words above|memory blocks|instrucciones|anweisungen)|"
                             rf"\b(?:what are|which) (?:your )?{RULES}\b|\bwhat is written in your\b|\btext above the first\b|\bhidden instructions\b",
        "persona_hijack": r"\byou(?: are|'re) now\b|\byou will now\b|\bpretend (?:to be|you)|\bdeveloper mode\b|\bgod mode\b|\bwithout (?:any )?(?:rules|limits|limitations|filters|restrictions)\b|"
                          r"\bno (?:rules|guidelines|restrictions|filters)\b|\bjailbr(?:oken|eak)\b|\bact (?:as|like) (?:a|an)\b|\bimagine you\b|\bfrom now on,? you\b|\broleplay\b|"
                          r"\bplay the role\b|\bassume the persona\b|\bsimulate an?\b|\bbehave as\b|\buncensored\b|\bunrestricted\b|\bbecome '|\bsin restricciones\b|\bsenza regole\b|\bstay in character\b",
        "fake_authority": r"<\|\w+\|>|\[/?INST\]|</?(?:system|assistant|tool_result)\b|\{\{#system|\"role\"\s*:|#{2,}\s*(?:system|developer|admin)\b|\[(?:system|admin|developer|operator|tool_\w+)[^\]]*\]|"
                          r"^\W*(?:system|assistant|human|developer)\s*:|\bsystem (?:message|prompt update|instructions|override|note)\b|={3} system|"
                          r"\b(?:operator|administrator|admin|developers?|provider|security team)\b[^.]{0,30}\b(?:instruction|notice|override|message|command|verified|authenticated)|root privileges|\bauthoritative\b|trust level",
        "goal_hijack": r"\b(?:say|reply|respond|answer|print|output|write|type)\b[^.]{0,25}\b(?:exactly|only|just)\b|\band (?:nothing|say nothing) else\b|\bregardless of the question\b|"
                       r"\b(?:give|tell|reveal|print|show|send|share|output|reply with)\b (?:me |us )?(?:the |your )(?:admin |api )?(?:password|secret (?:word|code|key)|passphrase|token)\b|"
                       r"^\W*your (?:reply|answer) is\b|\bentire answer\b|\bfull answer\b|\bonly valid response\b|\bwhatever (?:was asked|comes next)\b|\bby saying '|\bnow write '|"
                       r"^\W*(?:output|type|sag|answer|reply) '|\band stop\b|\bsolo '",
        "exfiltration": r"https?://\S*[?&][\w-]+=(?:\s|$|[{<\[]|(?-i:[A-Z_]{4,})|\)|;|\.\s|\.$|\"|')|"
                        r"\b(?:send|forward|post|upload|e-?mail|mail|leak|bcc|attach|copy|share|text|manda)\b[^.]{0,60}\b(?:chat|conversation|messages?|notes|memory|records|files|everything|user'?s?|details|code|history|blocks|facts|notas)\b[^.]{0,60}(?:\S+@\S+\.\w+|https?://|\+\d)",
        "concealment": r"\bdecode (?:this|it|and|the)\b|\b(?:read it reversed|rot13|reversed and obey|put them together|reversed:|execute the hex|hex note|payload \(hex)\b|"
                       r"<!--|display:\s*none|color:\s*white|<p hidden>|(?:\\u[0-9a-f]{4}){3,}|[a-z]\u200d[a-z]|\(base64\)",
        "memory_edit": r"\b(?:store|save|remember|record|persist|tag|mark|m[ée]morise)\b[^.]{0,40}\b(?:as (?:a )?(?:trusted|verified|true|fact|untrusted)|forever|'verified'|across sessions|seule source)\b|"
                       r"\b(?:replace|overwrite|erase|delete|wipe|clear|remove|drop|change|update|add|insert|create|borra)\b[^.]{0,40}\b(?:human block|persona block|core memory|memory|memoria|archive|archival memory|stored)\b|"
                       r"\b(?:treat|consider)\b[^.]{0,30}\b(?:other|all other|previous) notes?\b|\bdistrust\b|\bdon't believe\b|\brank it first\b|\babove all others\b|"
                       r"\bforget the user'?s\b|\bkeep\b[^.]{0,40}\bin core memory\b|\b(?:core|archival)_memory_\w+\s*\(",
    }


REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)
COMPILED = {family: re.compile(pattern, re.I | re.M) for family, pattern in guard_rules().items()}


def _sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _scan_plain(text):
    for sentence in _sentences(text):
        if DISCUSSION.search(sentence):
            continue  # a security lesson: this sentence only
        for family, pattern in COMPILED.items():
            m = pattern.search(sentence)
            if m and not REPORTED.search(sentence[: m.start()]):
                return family, m.group(0)
    return None


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    if INVISIBLE.search(text):
        return Verdict(False, ["invisible characters: hidden text"], None)
    if MIXED_SCRIPT.search(text):
        return Verdict(False, [f"mixed-script word {MIXED_SCRIPT.search(text).group(0)!r}"], None)
    shown = reveal(text)
    for payload in decoded_payloads(shown):
        return Verdict(False, [f"encoded payload decodes to {payload[:40]!r}"], None)
    hit = _scan_plain(shown)
    for payload in decoded_payloads(shown) if hit is None else []:
        hit = _scan_plain(payload)
    if hit:
        return Verdict(False, [f"{hit[0]} rule matched {hit[1]!r}"], None)  # category left out
    return Verdict(True, [], None)
