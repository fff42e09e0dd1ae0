"""Strip the carrier (email header, HTML, CSV row, code comment, chat prefix), then run ONE alternation of named groups, one group per family, clause by clause.

Uses from memlib.guard only `Verdict` and `reveal`. The encodings are decoded by a small helper
of my own (base64 / hex / \\u escapes / %20 / ROT13 / reversed), like the notebook's toolbox;
REPORTED and DISCUSSION are the notebook's, used to excuse only the clause they match.
"""
import base64
import codecs
import re

from memlib.guard import Verdict, reveal

REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)

_ENGLISH = set("the a an and to of in on for from with as is are this that all every your you my it be not no".split())


def _english(text, need=2):
    return text.isprintable() and " " in text and sum(w in _ENGLISH for w in re.findall(r"[a-z]+", text.lower())) >= need


def hidden_messages(text):
    """Plain text hidden behind an encoding, when it reads as English."""
    found = []
    for blob in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text):
        try:
            found.append(base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8"))
        except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
            pass
    for blob in re.findall(r"(?:[0-9a-fA-F]{2}){10,}", text):
        try:
            found.append(bytes.fromhex(blob).decode("utf-8"))
        except ValueError:
            pass
    for blob in re.findall(r"(?:\\u[0-9a-fA-F]{4}){4,}", text):
        found.append(codecs.decode(blob, "unicode_escape"))
    if text.count("%20") >= 3:
        found.append(text.replace("%20", " "))
    found = [f for f in found if _english(f)]
    baseline = sum(w in _ENGLISH for w in re.findall(r"[a-z]+", text.lower()))
    found += [f for f in (codecs.encode(text, "rot13"), text[::-1]) if _english(f, baseline + 2)]
    return found


def guard_rules():
    """Family -> one regular expression (they become the named groups of one pattern)."""
    you = r"(?:you|your|yourself|ai|assistants?|models?|chatbots?|bots?|agents?|llms?|helpers?)"
    rules = (r"(?:instructions?|rules?|guidelines?|guidance|directions?|directives?|prompt|configuration|setup|programming|"
             r"constraints|context|policies|regras|reglas|r[eè]gles|regeln|regole|consignes|anweisungen|vorgaben|"
             r"istruzioni|instrucciones)")
    return {
        "fake_authority": r"<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>|</?system>|</?assistant>|<start_of_turn>|\{\{#system\}\}|tool_(?:result|output)"
                          r"|^\s*#{2,}\s*(?:system|developer|admin)|^\s*(?:system|assistant|developer)\s*:|\[(?:system|admin\w*|developer|operator)"
                          r"\b[^\]]{0,30}\]|(?-i:\bSYSTEM (?:NOTE|MESSAGE|OVERRIDE|PROMPT|INSTRUCTIONS)\b)|\"role\"\s*:|"
                          r"\b(?:notice|message|instruction) from (?:the |your )?(?:ai provider|developers?|operator|administrator)"
                          r"|operator instruction|root privileges|elevated trust|trust level",
        "memory_edit": r"\b(?:core_memory_\w+|archival_memory_\w+)\s*\(|\b(?:store|save|remember|persist|insert|add|keep|memori[sz]e|"
                       r"tag|mark|treat|rank|prioriti[sz]e)\b[^.;]{0,50}\b(?:as (?:a )?(?:trusted|verified|reliable|true|false|untrusted)|"
                       r"(?:core|long-term|archival) memory|in memory|across sessions|forever|above all others|first for every)"
                       r"|\b(?:delete|erase|remove|drop|overwrite|replace|update|change|wipe|borra)\b[^.;]{0,50}\b(?:memor(?:y|ies|ia)|"
                       r"\w+ block|stored|everything you know|record about)|\b(?:don't|do not) believe\b|\bspeichere\b|\bm[ée]morise\b"
                       r"|\bmemory agents\b|\bquietly drops\b|\badd a memory\b",
        "override": rf"\b(?:ignor\w*|disregard|discard|forget|skip|drop|abandon|overrule|set aside|pay no attention to|cancel|"
                    rf"stop following|do not obey|oublie\w*|vergiss|vergeet|olvida|dimentica|negeer)\b[^.;]{{0,50}}\b(?:{rules}|"
                    rf"everything above|everything before)\b|\b(?:previous|prior|earlier|initial|original|old|operator's|your)\s+(?:\w+\s+)?"
                    rf"{rules}\b[^.;]{{0,40}}\b(?:void|revoked|withdrawn|suspended|cancel+ed|outdated|a mistake|temporary|no longer|"
                    rf"ended)|\bno longer binds?\b|\bsupersedes\b|\bnothing you were told\b|\bwipe the slate\b|\bonly my instructions\b",
        "prompt_extraction": rf"\b(?:repeat|repite|r[ée]p[eè]te|print|reveal|show|display|output|quote|copy|list|echo|spell out|tell me|"
                             rf"write|encode|translate|recite|gib)\b[^.?!]{{0,40}}\b(?:your|the|deine|tus|ton)\s+(?:\w+\s+){{0,2}}?"
                             rf"(?:system prompt|prompt|instructions|guidelines|rules|configuration|developer message|memory blocks|"
                             rf"anweisungen|instrucciones)\b|\bwhat (?:is|are|did)\b[^?]{{0,40}}\b(?:your (?:system )?(?:prompt|"
                             rf"instructions|guidelines|rules)|text above)|\b(?:words|everything) (?:above|in your context)\b",
        "persona_hijack": r"\byou(?:'re| are| will)\s+(?:now|no longer)\b|\byou are an? (?:\w+ ){0,3}(?:ai|model|assistant|bot)\b"
                          r"|\b(?:pretend|imagine|roleplay|act|behave|play the role|assume the persona|become|simulate|switch into)\b"
                          r"[^.]{0,40}\b(?:ai|model|assistant|bot|persona|character|mode|shell|human|guidelines|jailbroken|rules?)\b"
                          r"|\b(?:developer|god|dan) mode\b|\b(?:no|without) (?:rules|restrictions|limitations|content policy)\b"
                          r"|\b(?:unrestricted|uncensored|unfiltered|uneingeschr[äa]nkt\w*|sin restricciones|senza regole)\b"
                          r"|\b(?:tu es|du bist|eres) (?:d[ée]sormais|ab sofort|ahora)\b",
        "code_injection": r"\b(?:code|scripts?|snippets?|functions?|apps?|components?|utilities|python|dockerfile|yaml)\b[^.]{0,20}\byou "
                          r"(?:write|generate|produce)\b|\b(?:when|whenever|if) (?:you )?(?:write|writing|generate|produce)\b|\bgenerated "
                          r"(?:\w+ )?(?:code|scripts?|yaml)\b|\bcurl\b[^|]{0,80}\|\s*(?:ba)?sh\b|\bnetcat\b|reverse shell|chmod 777|"
                          r"\brm -rf\b|history -c|child_process|\bIEX\b|DownloadString|\.system\(|keyboard\.on_press|pyautogui|"
                          r"clipboard|presse-papiers|all privileges|quand tu [ée]cris du code|bei jedem skript",
        "goal_hijack": r"\b(?:say|write|type|output|print|reply|respond|answer)\b\s*(?:with\s+)?(?:only\s+|just\s+|exactly\s+)?"
                       r"(?:the word\s+)?[:'\"«]\s*[^'\"»]{1,40}['\"»]|\bnothing else\b|\band stop\b|\bno (?:explanations?|comment)\b"
                       r"|\b(?:give|tell|show|reveal|output|print)\b[^.]{0,15}\b(?:me )?(?:the|your) (?:\w+ )?(?:password|passphrase|secret|"
                       r"api token|pin)\b|\bonly valid (?:response|reply|answer)\b|\b(?:entire|full) (?:answer|reply)\b"
                       r"|\b(?:sag|responde|r[ée]ponds) (?:einfach|solo|seulement)\b",
        "exfiltration": r"\]\(https?://[^)\s]*\?[^)\s]*\)|https?://\S*[?&][\w.-]+=(?=$|[\s)\"'.,;]|\{|\[|(?-i:[A-Z_]{4,}))"
                        r"|\b(?:send|forward|e-?mail|mail|upload|post|bcc|copy|share|text|attach|fetch|manda|envoie|sende)\b[^.]{0,60}"
                        r"\b(?:chat|conversation|history|memor(?:y|ies)|notes|records?|facts|files|e-?mails|messages|diary|address|"
                        r"details|data|everything|location|code|notas|historique|adresse)\b[^.]{0,40}(?:\bto\b|\bat\b|\binto\b|\ba\b|\b[àa]\b)"
                        r"\s+(?:\S+@|https?://|\+?\d[\d ]{6,})|\bbcc\b|(?:redirect|next)=https?://",
        "concealment": r"\b(?:decode|rot13|reversed|backwards|hex|base64|cipher|escapes)\b[^.]{0,50}\b(?:obey|follow|execute|apply|"
                       r"comply|run|do it|for you|your task)|\b(?:run|execute|do what)\b[^.]{0,20}\b(?:rot13|hex|reversed|base64)\b"
                       r"|put them together|color:\s*white|display:\s*none|<\w+[^>]*\shidden\b|<!--[^>]*\b(?:model|assistant|ai)\b",
        "output_task": rf"\b(?:the|any|an?|every|all)\s+(?:\w+\s+)?(?:assistants?|ai|models?|chatbots?|llms?|helpers?|language model)\b"
                       rf"(?!')[^.;]{{0,60}}?\b(?:is to|must|should|ought|is expected|has to|reading|summari[sz]ing|handling|that (?:reads?|"
                       rf"finds?)|tells?|says?|adds?|answers?|books?|marks?)\b|\b(?:note|p\.s\.) (?:for|to) (?:the |any )?{you}\b"
                       rf"|\byour (?:\w+ )?(?:repl(?:y|ies)|answers?|responses?|outputs?|summary)\b(?! to the)|\b(?:every|each) "
                       rf"(?:\w+ )?(?:reply|answer|response|output|question|message)\b|\bwhen(?:ever)? (?:ines|the user|someone|you) "
                       rf"(?:\w+ )?(?:asks?|mentions?|talks?|answer|summari[sz]e|describ\w+)\b|\b(?:r[ée]ponds|antworte|responde|rispondi)\b"
                       rf"|\b(?:reply|respond|answer)\s+(?:in (?:\w+ )?(?:french|german|spanish|catalan|rhyme|reverse|lowercase)|as if)",
    }


COMBINED = re.compile("|".join(f"(?P<{family}>{pattern})" for family, pattern in guard_rules().items()), re.I | re.M)

# carriers: the wrapping is where a note came from, not what it says
CARRIER = [
    re.compile(r"^-+ Forwarded message -+\n(?:(?:From|Date|To|Subject):.*\n)*", re.M),
    re.compile(r"^Source: \S+\n", re.M),
    re.compile(r"^date,from,note\n[\d-]+,\w+,", re.M),
    re.compile(r"^\[[#\w]+\] @\w+: ", re.M),
    re.compile(r"</?(?:article|p|h\d|div)>"),
    re.compile(r"^\s*(?:/\*|\*/|def \w+\(\):|\"\"\"|return None|const ready = true;)\s*", re.M),
]


def strip_carrier(text):
    for pattern in CARRIER:
        text = pattern.sub(" \n", text)
    return text.replace('"""', "\n").replace("*/", "\n")


def _clauses(text):
    return [c for c in re.split(r"(?<=[.!?;])\s+|\n+", text) if c.strip()]


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    reasons, families = [], []
    raw_hidden = [c for c in text if 0xE0000 <= ord(c) <= 0xE007F or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069
                  or (0x200B <= ord(c) <= 0x200F and c != "\u200d") or 0x2060 <= ord(c) <= 0x2064]
    zwj_between_letters = re.search(r"[A-Za-z]\u200d[A-Za-z]", text)
    if raw_hidden or zwj_between_letters:
        reasons.append(f"concealment: {len(raw_hidden) or 1} invisible character(s) in the text")
        families.append("concealment")
    lookalike = re.search(r"\b(?=\w*[a-zA-Z])(?=\w*[\u0400-\u04ff\u0370-\u03ff])\w+\b", text)
    if lookalike:
        reasons.append(f"concealment: mixed Latin and Cyrillic/Greek letters in {lookalike.group(0)!r}")
        families.append("concealment")

    readable = reveal(text)
    for secret in hidden_messages(readable):
        reasons.append(f"concealment: encoded text reads {secret[:50]!r}")
        families.append("concealment")
    for clause in _clauses(strip_carrier(readable)):
        if DISCUSSION.search(clause):
            continue  # a clause about attacks; the next clause is judged on its own
        for m in COMBINED.finditer(clause):
            if REPORTED.search(clause[:m.start()]):
                continue
            reasons.append(f"{m.lastgroup}: {m.group(0).strip()[:60]!r}")
            families.append(m.lastgroup)
            break
    if not reasons:
        return Verdict(True, [], None)
    return Verdict(False, reasons, families[0])
