"""Word lists instead of long regexes: a family fires when one of its verbs is followed, within a few words, by one of its objects; plus substring markers.

Uses from memlib.guard only `Verdict` and `reveal`; encoded payloads are found with the notebook's
decoding idea re-typed (base64 / hex / \\u escapes / ROT13 / reversed). REPORTED and DISCUSSION
(the notebook's) excuse only the sentence, or the part of the sentence, that they match.
"""
import base64
import codecs
import re

from memlib.guard import Verdict, reveal

REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)


def words(*lines):
    return frozenset(w for line in lines for w in line.split())


# family -> (verbs, objects, window): "verb ... object" within `window` words
PAIRS = {
    "override": (words("ignore ignora ignorez ignoriere ignore disregard discard forget skip drop abandon overrule cancel",
                       "oublie oublies vergiss vergeet olvida dimentica negeer esqueça suspended revoked void withdrawn"),
                 words("instructions instruction rules guidelines guidance directives directions prompt programming setup",
                       "constraints configuration context regras reglas règles regeln regole consignes anweisungen vorgaben",
                       "istruzioni instrucciones above earlier previous prior"), 6),
    "prompt_extraction": (words("repeat repite répète print reveal show display output quote copy list echo spell tell",
                                "write encode translate recite gib"),
                          words("prompt instructions guidelines configuration message blocks anweisungen instrucciones above"), 6),
    "persona_hijack": (words("pretend imagine roleplay act behave become simulate switch play assume now"),
                       words("ai model assistant bot persona character mode shell uncensored unrestricted unfiltered jailbroken",
                             "rules restrictions"), 6),
    "exfiltration": (words("send forward email e-mail mail upload post bcc copy share text attach fetch manda envoie sende"),
                     words("chat conversation history memory memories notes records facts files emails messages diary",
                           "address details data everything location notas historique adresse"), 6),
    "memory_edit": (words("store save remember persist insert keep memorise memorize tag mark treat rank prioritise prioritize",
                          "delete erase remove overwrite replace update change wipe borra speichere mémorise"),
                    words("trusted verified reliable untrusted memory memories memoria block forever sessions stored",
                          "vertrauenswürdig fiable"), 7),
    "code_injection": (words("write writing generate generating produce producing generated add include insert put"),
                       words("code script scripts snippet dockerfile yaml requirements component components utilities python",
                             "powershell bash node hook action"), 4),
    "output_task": (words("reply respond answer responde réponds antworte rispondi summarising summarizing reading",
                          "mention recommend describe claim"),
                    words("every each always french german spanish catalan rhyme reimform sonnet couplet lowercase",
                          "whenever only"), 5),
}
ADDRESSEES = words("assistant assistants ai model models chatbot chatbots bot agent agents llm helper")
DUTIES = words("must should shall ought is_to expected needs has_to tells says adds answers books marks reading summarising")

# substring markers (lower-cased text): each one alone is enough
MARKERS = {
    "fake_authority": ["<|", "[inst]", "[/inst]", "<<sys>>", "<system>", "</system>", "<assistant>", "<start_of_turn>",
                       "{{#system}}", "tool_result", "tool_output", "### system", "### developer", "#### system",
                       "[system", "[admin", "[developer", '"role":', "system override", "system note", "system message (",
                       "system prompt update", "new system instructions", "from the ai provider", "from your developers",
                       "operator instruction", "root privileges", "elevated trust", "trust level"],
    "memory_edit": ["core_memory_append(", "core_memory_replace(", "archival_memory_insert(", "memory agents",
                    "add a memory", "quietly drops", "don't believe any", "above all others"],
    "persona_hijack": ["you are now", "you're now", "you are no longer", "you will now", "developer mode", "god mode",
                       "dan mode", "no content policy", "without restrictions", "no rules", "sin restricciones",
                       "senza regole", "du bist ab sofort", "tu es désormais"],
    "goal_hijack": ["nothing else", "and stop.", "no explanations", "no comment", "regardless of the question",
                    "only valid response", "entire answer", "full answer", "password.", "secret word", "secret code",
                    "secret key", "api token", "passphrase", "sag einfach", "responde solo", "réponds seulement"],
    "code_injection": ["| sh", "| bash", "netcat", "reverse shell", "chmod 777", "rm -rf", "history -c", "child_process",
                       "iex (", "downloadstring", ".system(", "keyboard.on_press", "pyautogui", "clipboard",
                       "presse-papiers", "all privileges", "bei jedem skript"],
    "exfiltration": ["bcc ", "redirect=http", "next=http"],
    "concealment": ["put them together", "color:white", "color: white", "display:none", " hidden>", "read it reversed",
                    "read this backwards", "reversed:", "(rot13", "rot13)", "rot13 ", "decode & comply",
                    "decode and", "and execute", "follow it", "execute the hex", "the escapes are for you"],
    "prompt_extraction": ["system prompt", "your prompt", "your instructions", "your guidelines", "text above",
                          "words above", "before this conversation", "in your context"],
    "output_task": ["your reply", "your answer", "your response", "your output", "your summary", "every reply",
                    "every answer", "each reply", "every output", "every question", "note for the assistant",
                    "ai reading this", "reads this", "reading this page", "in your answer"],
    "override": ["supersedes", "nothing you were told", "wipe the slate", "only my instructions", "no longer binds",
                 "no longer apply", "set aside the", "pay no attention"],
}
# markers that are also ordinary talk about these things: they need the sentence to speak to the model
NEEDS_ADDRESSEE = {"system prompt", "password.", "api token", "secret key", "passphrase"}

TOKEN = re.compile(r"[\w'\-]+|[?.!:;]")


def _tokens(sentence):
    return [t.lower().strip("'") for t in TOKEN.findall(sentence)]


def _pair_hit(tokens, verbs, objects, window):
    for i, tok in enumerate(tokens):
        if tok in verbs:
            for later in tokens[i + 1:i + 1 + window]:
                if later in objects:
                    return f"{tok} … {later}"
    return None


def _addressed(tokens):
    joined = " ".join(tokens)
    if any(t in ("you", "your", "yourself") for t in tokens):
        return True
    for i, tok in enumerate(tokens):
        if tok in ADDRESSEES and any(t in DUTIES for t in tokens[i + 1:i + 8]):
            return True
    return "is to" in joined or "has to" in joined


def _sentence_hits(sentence):
    if DISCUSSION.search(sentence):
        return []
    low = sentence.lower()
    tokens = _tokens(sentence)
    addressed = _addressed(tokens)
    hits = []
    for family, markers in MARKERS.items():
        for marker in markers:
            at = low.find(marker)
            if at >= 0 and not REPORTED.search(sentence[:at]) and (marker not in NEEDS_ADDRESSEE or addressed):
                hits.append((family, marker.strip()))
                break
    for family, (verbs, objects, window) in PAIRS.items():
        found = _pair_hit(tokens, verbs, objects, window)
        if not found:
            continue
        verb = found.split(" … ")[0]
        at = low.find(verb)
        if REPORTED.search(sentence[:max(at, 0)]):
            continue
        # orders about replies and code must be aimed at the model; the others name a model's things already
        if family in ("output_task", "code_injection") and not addressed and not tokens[:1] == [verb]:
            continue
        hits.append((family, found))
    for i, tok in enumerate(tokens):  # "the assistant must ...", "any AI reading this ..."
        if tok in ADDRESSEES and i > 0 and tokens[i - 1] in ("the", "any", "an", "a", "every", "all", "to", "for"):
            if any(t in DUTIES for t in tokens[i + 1:i + 6]):
                hits.append(("output_task", f"{tok} + duty"))
                break
    return hits


def _decoded(text):
    english = set("the a an and to of in on for from with as is are this that all every your you my it be not no".split())

    def count(s):
        return sum(w in english for w in re.findall(r"[a-z]+", s.lower()))

    out = []
    for blob in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text):
        try:
            out.append(base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8"))
        except ValueError:
            pass
    for blob in re.findall(r"(?:[0-9a-fA-F]{2}){10,}", text):
        try:
            out.append(bytes.fromhex(blob).decode("utf-8"))
        except ValueError:
            pass
    for blob in re.findall(r"(?:\\u[0-9a-fA-F]{4}){4,}", text):
        out.append(codecs.decode(blob, "unicode_escape"))
    out = [s for s in out if s.isprintable() and " " in s and count(s) >= 2]
    base = count(text)
    out += [s for s in (codecs.encode(text, "rot13"), text[::-1]) if s.isprintable() and " " in s and count(s) >= base + 2]
    return out


def _invisible(text):
    for i, ch in enumerate(text):
        cp = ord(ch)
        if 0xE0000 <= cp <= 0xE007F or 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069 or 0x2060 <= cp <= 0x2064:
            return True
        if 0x200B <= cp <= 0x200F:
            if ch == "\u200d" and 0 < i < len(text) - 1 and ord(text[i - 1]) > 0x2000 and ord(text[i + 1]) > 0x2000:
                continue  # emoji joiner
            return True
    return False


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    reasons = []
    if _invisible(text):
        reasons.append(("concealment", "invisible characters in the text"))
    mixed = re.search(r"\b(?=\w*[a-zA-Z])(?=\w*[\u0400-\u04ff\u0370-\u03ff])\w+\b", text)
    if mixed:
        reasons.append(("concealment", f"mixed-script word {mixed.group(0)!r}"))
    readable = reveal(text)
    for secret in _decoded(readable):
        reasons.append(("concealment", f"encoded text decodes to {secret[:40]!r}"))
    if re.search(r"\]\(https?://[^)\s]*\?[^)\s]*\)|https?://\S*[?&][\w.-]+=(?=$|[\s)\"'.,;{\[]|[A-Z_]{4,})", readable):
        reasons.append(("exfiltration", "a link whose query string is empty or a placeholder"))
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", readable):
        for family, why in _sentence_hits(sentence):
            reasons.append((family, why))
    if not reasons:
        return Verdict(True, [], None)
    return Verdict(False, [f"{family}: {why}" for family, why in reasons], reasons[0][0])
