"""A Guard class with many small named rules; excused sentences are blanked out (masked) first, then every rule runs over the whole masked note.

Reads "text that names the agent's tools is instruction-shaped" literally: any mention of a memory
tool's name is flagged, with or without a call. Uses from memlib.guard only `Verdict` and
`reveal`; the encodings are checked with my own decoder; REPORTED / DISCUSSION are the notebook's
and mask only their own sentence (or, for REPORTED, the reported order that follows it).
"""
import base64
import codecs
import re
from dataclasses import dataclass

from memlib.guard import Verdict, reveal

REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)

AI = r"(?:assistants?|ai|models?|chatbots?|bots?|agents?|llms?|helpers?|language model)"
REPLY = r"(?:repl(?:y|ies)|answers?|responses?|outputs?|summar(?:y|ies))"
RULE_WORDS = (r"(?:instructions?|rules?|guidelines?|guidance|directions?|directives?|prompt|configuration|setup|programming|"
              r"constraints|context|policies|regras|reglas|r[eè]gles|regeln|regole|consignes|anweisungen|vorgaben|istruzioni|"
              r"instrucciones)")


@dataclass(frozen=True)
class Rule:
    name: str
    family: str
    pattern: re.Pattern

    def first(self, text):
        return self.pattern.search(text)


def rule(name, family, pattern, flags=re.I | re.M):
    return Rule(name, family, re.compile(pattern, flags))


RULES = [
    # override
    rule("drop-the-rules", "override", rf"\b(?:ignor\w*|disregard|discard|forget|skip|drop|abandon|overrule|set aside|cancel|"
                                       rf"pay no attention to|stop following|do not obey|oublie\w*|vergiss|vergeet|olvida|dimentica|"
                                       rf"negeer)\b[^.;]{{0,50}}\b(?:{RULE_WORDS}|everything above|everything before)\b"),
    rule("rules-are-void", "override", rf"\b{RULE_WORDS}\b[^.;]{{0,40}}\b(?:void|revoked|withdrawn|suspended|cancel+ed|outdated|"
                                       rf"a mistake|temporary|no longer (?:apply|binds?|count)|have now ended)"),
    rule("supersede", "override", r"\bsupersedes?\b|\bnothing you were told\b|\bwipe the slate\b|\bonly my instructions\b|"
                                  r"\bno longer binds? you\b|\bwhatever rules were\b"),
    # prompt extraction
    rule("show-your-prompt", "prompt_extraction", r"\b(?:repeat|repite|r[ée]p[eè]te|print|reveal|show|display|output|quote|copy|"
                                                   r"list|echo|spell out|tell me|write|encode|translate|recite|gib)\b[^.?!]{0,40}"
                                                   r"\b(?:your|the|deine|tus|ton)\s+(?:\w+\s+){0,2}?(?:system prompt|prompt|"
                                                   r"instructions|guidelines|rules|configuration|developer message|memory blocks|"
                                                   r"anweisungen|instrucciones)\b"),
    rule("what-were-you-told", "prompt_extraction", r"\bwhat (?:is|are|were|did)\b[^?]{0,40}\b(?:your (?:system )?(?:prompt|"
                                                     r"instructions|guidelines|rules)|you given|text above)|\b(?:words|everything) "
                                                     r"(?:above|in your context)\b"),
    # persona
    rule("you-are-now", "persona_hijack", r"\byou(?:'re| are| will)\s+(?:now|no longer)\b|\byou are an? (?:\w+ ){0,3}(?:ai|model|bot)\b"),
    rule("role-play", "persona_hijack", r"\b(?:pretend|imagine|roleplay|act|behave|play the role|assume the persona|become|simulate|"
                                        r"switch into)\b[^.]{0,40}\b(?:ai|model|assistant|bot|persona|character|mode|shell|human|"
                                        r"guidelines|jailbroken|rules?)\b"),
    rule("no-rules", "persona_hijack", r"\b(?:developer|god|dan) mode\b|\b(?:no|without) (?:any )?(?:rules|restrictions|limitations|"
                                       r"content policy|filters?)\b|\b(?:unrestricted|uncensored|unfiltered|uneingeschr[äa]nkt\w*|"
                                       r"sin restricciones|senza regole)\b|\b(?:tu es|du bist|eres) (?:d[ée]sormais|ab sofort|ahora)\b"),
    # fake authority
    rule("chat-template", "fake_authority", r"<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>|</?system>|</?assistant>|<start_of_turn>|\{\{#system\}\}"),
    rule("role-line", "fake_authority", r"(?:^|>)\s*(?:#{2,}\s*)?(?:system|assistant|developer)\s*:|^\s*#{2,}\s*(?:system|developer)\b"),
    rule("bracket-authority", "fake_authority", r"\[(?:system|admin\w*|developer|operator)\b[^\]]{0,30}\]|\"role\"\s*:|"
                                                r"tool_(?:result|output)"),
    rule("claimed-authority", "fake_authority", r"(?-i:\bSYSTEM (?:NOTE|MESSAGE|OVERRIDE|PROMPT|INSTRUCTIONS)\b)|\b(?:notice|message|"
                                                r"instruction) from (?:the |your )?(?:ai provider|developers?|operator|administrator)"
                                                r"|operator instruction|root privileges|elevated trust|trust level"),
    # goal hijack
    rule("say-exactly", "goal_hijack", r"\b(?:say|write|type|output|print|reply|respond|answer)\b\s*(?:with\s+)?(?:only\s+|just\s+|"
                                       r"exactly\s+)?(?:one word\s*)?(?:the word\s+)?[:'\"«]\s*[^'\"»]{1,40}['\"»]"),
    rule("nothing-else", "goal_hijack", r"\bnothing else\b|\band stop\b|\bno (?:explanations?|comment)\b|\bregardless of the question\b"
                                        r"|\bonly valid (?:response|reply|answer)\b|\b(?:entire|full) (?:answer|reply)\b"
                                        r"|\b(?:sag|responde|r[ée]ponds) (?:einfach|solo|seulement)\b"),
    rule("give-secret", "goal_hijack", r"\b(?:give|tell|show|reveal|output|print)\b[^.]{0,15}\b(?:me )?(?:the|your) (?:\w+ )?"
                                       r"(?:password|passphrase|secret|api token|pin)\b"),
    # exfiltration
    rule("placeholder-link", "exfiltration", r"\]\(https?://[^)\s]*\?[^)\s]*\)|https?://\S*[?&][\w.-]+=(?=$|[\s)\"'.,;]|\{|\[|"
                                             r"(?-i:[A-Z_]{4,}))|(?:redirect|next)=https?://"),
    rule("send-data-out", "exfiltration", r"\b(?:send|forward|e-?mail|mail|upload|post|copy|share|text|attach|fetch|manda|envoie|"
                                          r"sende)\b[^.]{0,60}\b(?:chat|conversation|history|memor(?:y|ies)|notes|records?|facts|files|"
                                          r"e-?mails|messages|diary|address|details|data|everything|location|code|calendar|notas|"
                                          r"historique|adresse)\b[^.]{0,40}(?:\bto\b|\bat\b|\binto\b|\ba\b|\b[àa]\b)\s+(?:\S+@|https?://|"
                                          r"\+?\d[\d ]{6,})|\bbcc\b"),
    # code injection
    rule("code-you-write", "code_injection", r"\b(?:code|scripts?|snippets?|functions?|apps?|components?|utilities|python|"
                                             r"dockerfile|yaml)\b[^.]{0,20}\byou (?:write|generate|produce)\b|\b(?:when|whenever|"
                                             r"if) (?:you )?(?:write|writing|generate|produce)\b|\bgenerated (?:\w+ )?(?:code|"
                                             r"scripts?|yaml)\b|\bquand tu [ée]cris du code|\bbei jedem skript"),
    rule("risky-snippet", "code_injection", r"\bcurl\b[^|]{0,80}\|\s*(?:ba)?sh\b|\bnetcat\b|reverse shell|chmod 777|\brm -rf\b|"
                                            r"history -c|child_process|\bIEX\b|DownloadString|\.system\(|keyboard\.on_press|"
                                            r"pyautogui|clipboard|presse-papiers|all privileges"),
    # concealment (in the readable text)
    rule("decode-and-obey", "concealment", r"\b(?:decode|rot13|reversed|backwards|hex|base64|cipher|escapes)\b[^.]{0,50}\b(?:obey|"
                                           r"follow|execute|apply|comply|run|do it|for you|your task)|\b(?:run|execute|do what)\b"
                                           r"[^.]{0,20}\b(?:rot13|hex|reversed|base64)\b|put them together"),
    rule("hidden-html", "concealment", r"color:\s*white|display:\s*none|<\w+[^>]*\shidden\b|<!--[^>]*\b(?:model|assistant|ai)\b"),
    # memory edit
    rule("agent-tools", "memory_edit", r"\b(?:core_memory_(?:append|replace)|archival_memory_(?:insert|search)|conversation_search)\b"),
    rule("store-as-trusted", "memory_edit", r"\b(?:store|save|remember|persist|insert|add|keep|memori[sz]e|tag|mark|treat|rank|"
                                            r"prioriti[sz]e)\b[^.;]{0,50}\b(?:as (?:a )?(?:trusted|verified|reliable|true|false|"
                                            r"untrusted)|(?:core|long-term|archival) memory|in memory|across sessions|forever|above "
                                            r"all others|first for every)|\bspeichere\b|\bm[ée]morise\b|\badd a memory\b"),
    rule("rewrite-memory", "memory_edit", r"\b(?:delete|erase|remove|drop|overwrite|replace|update|change|wipe|borra)\b[^.;]{0,50}"
                                          r"\b(?:memor(?:y|ies|ia)|\w+ block|stored|everything you know|record about)|\b(?:don't|"
                                          r"do not) believe\b|\bmemory agents\b|\bquietly drops\b"),
    # output task
    rule("duty-on-the-model", "output_task", rf"\b(?:the|any|an?|every|all)\s+(?:\w+\s+)?{AI}\b(?!')[^.;]{{0,60}}?\b(?:is to|must|"
                                             rf"should|ought|is expected|has to|reading|summari[sz]ing|handling|that (?:reads?|"
                                             rf"finds?)|tells?|says?|adds?|answers?|books?|marks?)\b|\b(?:note|p\.s\.) (?:for|to) "
                                             rf"(?:the |any )?{AI}\b"),
    rule("your-reply", "output_task", rf"\byour (?:\w+ )?{REPLY}\b(?! to the)|\b(?:every|each) (?:\w+ )?(?:{REPLY}|question|message)\b"),
    rule("reply-style", "output_task", r"\b(?:reply|respond|answer)\s+(?:in (?:\w+ )?(?:french|german|spanish|catalan|rhyme|reverse|"
                                       r"lowercase|pirate)|as if)|\bwhen(?:ever)? (?:ines|the user|someone|you) (?:\w+ )?(?:asks?|"
                                       r"mentions?|talks?|answer|summari[sz]e|describ\w+)\b|\b(?:r[ée]ponds|antworte|responde|rispondi)\b"),
]

INVISIBLE = re.compile("[\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\U000e0000-\U000e007f]|"
                       "(?<![\U0001F000-\U0001FAFF\u2600-\u27BF])\u200d")
MIXED_SCRIPT = re.compile(r"\b(?=\w*[a-zA-Z])(?=\w*[\u0400-\u04ff\u0370-\u03ff])\w+\b")


class Guard:
    """Reveal, mask what is excused, decode, then run every rule."""

    def __init__(self, rules=RULES):
        self.rules = list(rules)

    @staticmethod
    def mask(text):
        """Blank out sentences about attacks, and orders that are reported speech (the rest stays)."""
        out = []
        for sentence in re.split(r"(?<=[.!?])(\s+)|(\n+)", text):
            if not sentence:
                continue
            if DISCUSSION.search(sentence):
                out.append(" " * len(sentence))
                continue
            # "X says to <order>" / "X said, '<order>'": blank the order after the reporting verb
            for m in re.finditer(r"\b(?:says?|said|told \w+|asked \w+) to\s+|\bsaid,?:?\s+'?", sentence, re.I):
                if REPORTED.search(sentence[:m.end()]):
                    sentence = sentence[:m.end()] + " " * (len(sentence) - m.end())
                    break
            out.append(sentence)
        return "".join(out)

    @staticmethod
    def decoded(text):
        common = set("the a an and to of in on for from with as is are this that all every your you my it be not no".split())

        def score(s):
            return sum(w in common for w in re.findall(r"[a-z]+", s.lower()))

        outs = []
        for blob in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text):
            try:
                outs.append(base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8"))
            except ValueError:
                pass
        for blob in re.findall(r"(?:[0-9a-fA-F]{2}){10,}", text):
            try:
                outs.append(bytes.fromhex(blob).decode("utf-8"))
            except ValueError:
                pass
        for blob in re.findall(r"(?:\\u[0-9a-fA-F]{4}){4,}", text):
            outs.append(codecs.decode(blob, "unicode_escape"))
        good = [s for s in outs if s.isprintable() and " " in s and score(s) >= 2]
        base = score(text)
        good += [s for s in (codecs.encode(text, "rot13"), text[::-1]) if s.isprintable() and " " in s and score(s) >= base + 2]
        return good

    def __call__(self, text):
        found = []  # (family, reason)
        hidden = INVISIBLE.search(text)
        if hidden:
            found.append(("concealment", f"hidden-characters: U+{ord(hidden.group(0)):04X} in the text"))
        mixed = MIXED_SCRIPT.search(text)
        if mixed:
            found.append(("concealment", f"look-alike letters: {mixed.group(0)!r}"))
        readable = reveal(text)
        for plain in self.decoded(readable):
            found.append(("concealment", f"encoded text: decodes to {plain[:50]!r}"))
        masked = self.mask(readable)
        for r in self.rules:
            m = r.first(masked)
            if m:
                found.append((r.family, f"{r.name}: {m.group(0).strip()[:60]!r}"))
        if not found:
            return Verdict(True, [], None)
        return Verdict(False, [why for _, why in found], found[0][0])


_GUARD = Guard()


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    return _GUARD(text)
