"""Points per sentence: who it is addressed to, what it orders, what it targets, plus strong markers; 3 points flags the note.

A different design from a rule per family: each family's trace is split into cues that add up.
`guard_rules()` still lists one expression per family (the strong cue that names the family), and
the score decides. Uses from memlib.guard only `Verdict` and `reveal`; the notebook's toolbox
(decoded_payloads and friends) and REPORTED / DISCUSSION are re-typed here. No ready scanner.
"""
import base64
import binascii
import codecs
import re

from memlib.guard import Verdict, reveal

# ---- toolbox from the notebook ---------------------------------------------------------------
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
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
    english += [plain for plain in (codecs.encode(text, "rot13"), text[::-1]) if reads_as_english(plain, before + 2)]
    return english


REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)

# ---- cues ----------------------------------------------------------------------------------
# 1 point: the sentence speaks to the model
ADDRESSEE = re.compile(
    r"\b(?:you|your|yourself|you're)\b|\b(?:assistants?|ai|models?|chatbots?|bots?|agents?|llms?|language model)\b"
    r"|\b(?:tu|tes|ton|dein\w*|du|tus|te|ti)\b", re.I)
# 1 point: an order (an imperative opening the clause, or a duty put on someone)
ORDER = re.compile(
    r"(?:^|[:;,>\"]\s*|\b(?:please|kindly|now|then|and|just)\s+)"
    r"(?:ignore|disregard|discard|forget|drop|skip|abandon|overrule|override|cancel|stop|reveal|print|repeat|show|display|"
    r"output|quote|copy|list|echo|spell|tell|say|write|type|reply|respond|answer|send|forward|e-?mail|mail|upload|post|bcc|"
    r"share|text|attach|fetch|store|save|remember|persist|insert|add|include|put|embed|render|append|mark|tag|treat|rank|"
    r"prioriti[sz]e|delete|erase|remove|overwrite|replace|update|change|pretend|imagine|act|behave|become|simulate|play|"
    r"assume|switch|start|begin|end|make|use|load|give|encode|translate|decode|run|execute|obey|follow|comply)\b"
    r"|\b(?:must|should|shall|ought to|is to|has to|needs to|is expected to|from now on|from here on|regardless)\b"
    r"|\b(?:ignor\w+|oublie\w*|vergiss|vergeet|olvida|dimentica|negeer|esque[cç]a|r[ée]ponds|antworte|responde|rispondi|"
    r"repite|r[ée]p[eè]te|manda|envoie|sende|speichere|m[ée]morise|borra|gib|sag)\b", re.I)
# 1 point: what such orders go after
TARGET = re.compile(
    r"\b(?:instructions?|rules?|guidelines?|guidance|directives?|directions|prompt|configuration|setup|programming|"
    r"constraints|policies|persona|human block|\w+ block|memor(?:y|ies)|records?|notes|facts|archive|history|chat|"
    r"conversation|password|passphrase|secret\w*|token|credentials|pin|diary|e-?mails?|address|location|restrictions|"
    r"filters?|limitations|trusted|verified|untrusted|reply|replies|answers?|responses?|output|summary|code|scripts?|"
    r"everything (?:above|before)|regras|reglas|r[eè]gles|regeln|regole|consignes|anweisungen|vorgaben|istruzioni|"
    r"instrucciones)\b", re.I)

# a target that only a model has (its rules, its memory, the user's private data): worth a second point
SENSITIVE = re.compile(
    r"\b(?:instructions|rules|guidelines|prompt|programming|persona|\w+ block|memor(?:y|ies)|records?|notes|chat|"
    r"conversation|history|password|passphrase|secret|credentials|diary|trusted|untrusted|verified|"
    r"regras|reglas|r[eè]gles|regeln|regole|consignes|anweisungen|vorgaben|istruzioni|instrucciones)\b", re.I)


def guard_rules():
    """Family -> the strong cue (3 points, flags alone) that names the family."""
    return {
        "output_task": r"\b(?:every|each) (?:\w+ )?(?:reply|answer|response|output)\b|\b(?:reply|respond|answer) in (?:french|german|"
                       r"spanish|italian|catalan|rhyme|verse|rot13|lowercase)\b|\b(?:ai|assistant|model|chatbot)s? (?:reading|summari[sz]ing)",
        "code_injection": r"\bcurl\b[^|\n]{0,80}\|\s*(?:ba|z)?sh\b|\bnetcat\b|reverse shell|chmod 777|\brm -rf\b|history -c|"
                          r"child_process|\bIEX\b|DownloadString|os'?\)?\.system\(|keyboard\.on_press|clipboard|presse-papiers|"
                          r"all privileges|(?:code|script|snippet)s? you (?:write|generate|produce)|generated (?:code|scripts?|yaml)",
        "override": r"\b(?:ignor\w*|disregard|discard|forget|skip|drop|abandon|overrule|set aside|stop following|do not obey|"
                    r"oublie\w*|vergiss|vergeet|olvida|dimentica|negeer)\b[^.;\n]{0,40}\b(?:instructions|rules|directives|guidance|"
                    r"guidelines|setup|prompt|programming|constraints|configuration|regras|reglas|r[eè]gles|regole|istruzioni|"
                    r"instrucciones|consignes|anweisungen|vorgaben|everything above|everything before)\b|\b(?:instructions|rules|"
                    r"directives|guidance|constraints|configuration|setup)\b[^.;\n]{0,30}\b(?:void|revoked|withdrawn|suspended|cancel+ed|"
                    r"no longer (?:apply|binds?))\b",
        "prompt_extraction": r"\byour (?:\w+ )?(?:system prompt|prompt|instructions|guidelines)\b|\b(?:initial prompt|developer message|text above|words above|before this conversation|"
                             r"memory blocks|prompt syst[eè]me)\b",
        "persona_hijack": r"\byou(?:'re| are)\s+(?:now|no longer)\b|\b(?:developer|god|dan) mode\b|\b(?:no|without) (?:rules|restrictions|"
                          r"limitations|content policy)\b|\b(?:unrestricted|uncensored|unfiltered|jailbroken|sin restricciones|"
                          r"senza regole|uneingeschr[äa]nkt\w*)\b",
        "fake_authority": r"<\|[a-z_]+\|>|\[/?INST\]|<</?SYS>>|</?system>|<start_of_turn>|\{\{#system\}\}|tool_(?:result|output)|"
                          r"(?:^|[\n>])\s*#{2,}\s*(?:system|developer)|(?:^|[\n>])\s*(?:system|assistant)\s*:|\[(?:SYSTEM|ADMIN\w*|"
                          r"DEVELOPER)\b[^\]]{0,30}\]|(?-i:\bSYSTEM (?:NOTE|MESSAGE|OVERRIDE|PROMPT|INSTRUCTIONS)\b)|\"role\"\s*:\s*\"|"
                          r"from (?:the |your )?(?:ai provider|developers)|operator instruction|root privileges|elevated trust",
        "goal_hijack": r"\bnothing else\b|\band stop\b|\bno (?:explanations?|comment)\b|\bregardless of the question\b|"
                       r"\b(?:entire|full|only valid) (?:answer|reply|response)\b|\bonly (?:with )?(?:the word )?['\"«]",
        "exfiltration": r"\]\(https?://[^)\s]*\?[^)\s]*\)|https?://\S*[?&][\w.-]+=(?=$|[\s)\"'.,;]|\{|\[|(?-i:[A-Z_]{4,}))|"
                        r"(?:redirect|next)=https?://|\bbcc\b",
        "concealment": r"\b(?:rot13|reversed|backwards|hex|base64|cipher|escapes)\b[^.\n]{0,50}\b(?:obey|follow|execute|apply|"
                       r"comply|run|do it|for you|your task)|\b(?:decode|execute|run)\b[^.\n]{0,20}\b(?:and|&) (?:follow|comply|apply|"
                       r"execute)|put them together|color:\s*white|display:\s*none|<p hidden|<!--[^>]*\b(?:model|assistant|ai)\b",
        "memory_edit": r"\b(?:core_memory_\w+|archival_memory_\w+|conversation_search|send_message)\b|\bas (?:a )?trusted (?:fact|"
                       r"record|source)\b|\b(?:core|long-term|archival) memory\b|\b(?:human|persona) block\b|\bacross sessions\b",
    }


STRONG = {family: re.compile(p, re.I | re.M) for family, p in guard_rules().items()}
# which family a sentence that scores on cues alone most likely belongs to
CUE_FAMILY = [
    ("override", re.compile(r"\b(?:ignor\w*|disregard|discard|forget|drop|skip|abandon|overrule|cancel\w*|void|revoked|oublie|"
                            r"vergiss|vergeet|olvida)\b", re.I)),
    ("prompt_extraction", re.compile(r"\b(?:reveal|repeat|print|quote|echo|spell|list|display|copy)\b", re.I)),
    ("exfiltration", re.compile(r"\b(?:send|forward|e-?mail|mail|upload|post|share|attach|fetch|manda|envoie|sende)\b", re.I)),
    ("memory_edit", re.compile(r"\b(?:store|save|remember|persist|insert|delete|erase|remove|overwrite|replace|update|mark|tag|"
                               r"treat|speichere|borra)\b", re.I)),
    ("persona_hijack", re.compile(r"\b(?:pretend|imagine|act|behave|become|simulate|roleplay|persona)\b", re.I)),
]


def _points(sentence):
    """(points, family, why) for one sentence; excused parts score nothing."""
    if DISCUSSION.search(sentence):
        return 0, None, ""
    for family, rule in STRONG.items():
        m = rule.search(sentence)
        if m and not REPORTED.search(sentence[:m.start()]):
            return 3, family, m.group(0).strip()
    order = next((m for m in ORDER.finditer(sentence) if not REPORTED.search(sentence[:m.start()])), None)
    if order is None:
        return 0, None, ""
    addressee, target = ADDRESSEE.search(sentence), TARGET.search(sentence)
    points = 1 + bool(addressee) + bool(target) + bool(SENSITIVE.search(sentence))
    family = next((name for name, cue in CUE_FAMILY if cue.search(sentence)), "output_task")
    words = " / ".join(m.group(0).strip() for m in (order, addressee, target) if m)
    return points, family, words


def _hidden(raw):
    if re.search("[\U000e0000-\U000e007f]", raw):
        return "invisible tag characters"
    if re.search("[\u202a-\u202e\u2066-\u2069]", raw):
        return "bidirectional control characters"
    for m in re.finditer("[\u200b-\u200f\u2060-\u2064]", raw):
        i = m.start()
        if raw[i] == "\u200d" and 0 < i < len(raw) - 1 and ord(raw[i - 1]) > 0x2000 and ord(raw[i + 1]) > 0x2000:
            continue  # joiner inside an emoji sequence
        return "zero-width characters"
    m = MIXED_SCRIPT.search(raw)
    return f"look-alike letters in {m.group(0)!r}" if m else None


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    reasons, category = [], None
    hidden = _hidden(text)
    if hidden:
        reasons.append(f"concealment (3 points): {hidden}")
        category = "concealment"
    readable = reveal(text)
    for plain in decoded_payloads(readable):
        reasons.append(f"concealment (3 points): decodes to {plain[:50]!r}")
        category = category or "concealment"
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", readable):
        points, family, why = _points(sentence)
        if points >= 3:
            reasons.append(f"{family} ({points} points): {why}")
            category = category or family
    return Verdict(False, reasons, category) if reasons else Verdict(True, [], None)
