"""The scanner's English (and Western European) rules, one finder per injection family.

Each finder takes a `Reading` and returns one short reason per match. The table
that names the finders and their families, each English finder followed by the
Chinese one of its family (`memlib.scanner.chinese`), is `memlib.scanner.RULES`.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from memlib._util import quote
from memlib.scanner.reading import (_BOUNDARY, _DISCUSSION, _START, QUOTE_MARK, Reading, _line, _matches, _negated,
                                    _reported, _sentence, _speech_act)

# Words for whoever reads and answers: the assistant and its output.
_AI = (r"(?:ai|a\.i\.|assistants?|llms?|(?:large )?language models?|models?|chat ?bots?|bots?|agents?|copilots?|"
       r"helpers?|gpt|claude|gemini)")
_OUTPUT = r"(?:repl(?:y|ies)|answers?|responses?|outputs?|summar(?:y|ies)|next message|messages? you (?:send|write))"
_LANGS = (r"(?:english|spanish|french|german|dutch|italian|portuguese|catalan|polish|russian|chinese|japanese|"
          r"klingon|latin|pirate|emojis?|capital letters|capitals|all caps|upper ?case|lower ?case|base64|rot13|hex|"
          r"binary|morse|verse|rhym\w+|haikus?|limericks?|reverse|bullet points|json|a caesar|caesar)")

# -- output_task: orders about the reply -----------------------------------------------

_ADDRESS_READER = re.compile(
    rf"\b(?:(?:the|an?|any|every|each|all|whichever|whatever|this|dear)\s+(?:[\w-]{{1,30}}\s+)?)?{_AI}\s+(?:that\s+|who\s+|which\s+)?"
    r"(?:read(?:s|ing)?|process(?:es|ing)?|index(?:es|ing)?|summari[sz](?:es|ing|e)?|handl(?:es|ing|e)|"
    r"pars(?:es|ing|e)|see(?:s|ing)?|find(?:s|ing)?|crawl(?:s|ing)?)\s+this\b"
    rf"|\b{_AI}\s+(?:read(?:ing)?|processing|seeing)\s+this\b"
    r"|\bwhoever (?:is )?(?:answering|reading|replying|responding|processing)\b"
    rf"|\b(?:to|for) (?:any|every|all|the) (?:[\w-]+ )?{_AI}\b(?! (?:team|lab|group|reading group|course|talk|policy))")
_VOCATIVE = re.compile(
    rf"(?:^|[\n.!?;:|\"(]\s*|\b(?:p\.?s\.?|also|hey|dear|note|message|tip|hint|instruction)\s+(?:(?:to|for)\s+)?"
    rf"(?:the\s+|any\s+|all\s+)?)(?<!@)(?:[\w-]{{1,30}}\s+)?{_AI}\s*[,:](?!\s*(?:\d|$))")
_ADDRESS_MODAL = re.compile(
    rf"\b(?:the|an?|any|every|each|all|your)\s+(?:[\w-]{{1,30}}\s+)?{_AI}\s+(?:should|must|shall|will|is to|are to|needs? to|"
    r"has to|have to|is expected to|are expected to|is supposed to|is required to|ought to|may now|can now|is allowed to)\b")
_ADDRESS_HABIT = re.compile(
    rf"\bthe\s+(?:ai\s+)?{_AI}\s+(?:\w{{1,20}}ly\s+)?(?:says|tells|answers|replies|responds|adds|books|drops|removes|deletes|"
    r"stores|saves|keeps|marks|mentions|recommends|describes|sends|forwards|ignores|treats|hides|omits|includes|"
    r"approves|shares|reveals|writes|rates|ranks|uses|shows|confirms|gives|lists|quotes|claims|calls)\b")
_YOUR_OUTPUT = re.compile(
    rf"\b(?:your|each|every|all|any)\s+(?:[\w-]{{1,30}}\s+)?{_OUTPUT}\b"
    r"(?!\s+(?:sheet|key|box|booklet|card|form|paper|phone|machine|service|to\s+(?!the user|the question|this question|"
    r"the request|every|any|all|them|him|her|me|us)\w))")
_THE_OUTPUT_FORMAT = re.compile(
    r"\bthe (?:response|reply|answer|output)s?\s+(?:should|must|has to|needs to|is to|will)\s+be\s+(?:given|written|"
    r"formatted|encoded|delivered|in|as)\b")
_IN_YOUR_OUTPUT = re.compile(rf"\b(?:in|to|into|of|with|from|at the (?:start|end|top|bottom) of|before|after)\s+"
                             rf"(?:your|each|every|all|any)\s+(?:[\w-]{{1,30}}\s+)?{_OUTPUT}\b")
_OUTPUT_VERB = (r"(?:start|begin|end|finish|close|conclude|include|contain|mention|recommend|say|state|claim|describe|"
                r"be|use|consist|have|list|add|append|promote|praise|rate|note|tell|point|leave|skip|omit|refer|call|"
                r"show|ought|must|should|needs?|has to|will|write|format|make|give|keep|put|phrase|structure|translate|encode|"
                r"spell|sign)")
_REPLY_IN = re.compile(
    rf"\b(?:answer|reply|respond|write|speak|talk|communicate|translate)\b(?:\s+(?!in\b)[\w'-]+){{0,5}}?\s+"
    rf"(?:only |always |exclusively |entirely |solely |strictly )?in\s+(?:\w{{1,30}}\s+)?{_LANGS}\b")
_FROM_NOW_ON = re.compile(
    r"\b(?:from now on|from here on|from this point(?: on)?|for the rest of (?:the|this) (?:session|conversation|chat)|"
    r"henceforth|in future|d[ée]sormais|ab (?:jetzt|sofort)|a partir de ahora|d'ora in poi|a partir de agora|vanaf nu)\b")
_RESPONSE_VERB = re.compile(
    r"\b(?:answer|answers|reply|replies|respond|responds|write|writes|use|speak|say|end|start|format|address|call|"
    r"refer to|spell|talk|translate|add|include|recommend|mention|describe|rate|only)\b")
_WHEN_YOU = re.compile(
    r"\b(?:when(?:ever)?|each time|every time|if|before|after|while)\s+you(?:'re| are)?\s+(?:\w{1,30}\s+)?"
    r"(?:answer|answering|reply|replying|respond|responding|summari[sz]e|summari[sz]ing|describe|describing|mention|"
    r"mentioning|talk about|discuss|are asked|get asked|give|produce|recommend|explain|list|rate)\b")
_WHEN_USER = re.compile(
    r"\b(?:when(?:ever)?|each time|every time|if)\s+(?:the user|the customer|a user|users|customers|someone|anyone|"
    r"people|the reader)\b[^,.;\n]{0,60}\b(?:asks?|requests?|mentions?|talks?|says?|wants?|brings? up|queries|"
    r"inquires|types?)\b[^,.;\n]{0,60},")
_WHEN_ANYONE = re.compile(r"\b(?:when(?:ever)?|each time|every time)\s+[\w' ]{1,30}?\s+(?:asks?|mentions?|talks?|"
                          r"says?|wants?|brings? up|queries|types?)\b")
_CONCEAL = re.compile(r"\b(?:quietly|secretly|silently|without telling|without saying|do not (?:show|mention|tell)|"
                      r"does not (?:show|mention)|don't (?:show|mention|tell)|never mention|keep (?:this|it) "
                      r"(?:out|secret|hidden))\b")
_WHATEVER = re.compile(
    r"\b(?:regardless of|no matter|whatever|irrespective of)\s+(?:what\s+|which\s+|how\s+)?(?:the\s+)?"
    r"(?:user|question|request|they|was asked|is asked|the reviews|it is|asked|someone|comes next)")
_TELL_USER = re.compile(
    _START + r"(?:(?:and|then|also|please)\s+)?(?:tell|inform|remind|warn|convince|persuade|advise|assure|show|"
    r"address|greet|call|refer to|ask)\s+(?:the user|the customer|the reader|the human|your user|users|customers|"
    r"its user|their user)\b")
_REPLY_FOREIGN = re.compile(
    r"\b(?:r[ée]ponds|r[ée]pondez|antworte|antworten sie|responde|responda|respondan|rispondi|risponda|antwoord|"
    r"odpowiadaj|odpowiedz|cuando resumas|quand tu r[ée]sumes|wenn du zusammenfasst)\b")


def _output_task(r: Reading) -> list[str]:
    t = r.low
    out = []
    out += _matches(_ADDRESS_READER, t, "addresses whatever AI reads it")
    out += _matches(_VOCATIVE, t, "speaks to the assistant directly")
    out += _matches(_ADDRESS_MODAL, t, "tells the assistant what it must do")
    out += _matches(_ADDRESS_HABIT, t, "describes what the assistant does, as an order")
    for m in _YOUR_OUTPUT.finditer(t):
        s = _sentence(t, m.start(), m.end())
        if re.search(rf"\b{_OUTPUT_VERB}s?\b", s) and _speech_act(t, m.start(), m.end()):
            out.append(f"sets what the reply must contain or look like: {quote(m.group(), 50)}")
            break
    out += _matches(_IN_YOUR_OUTPUT, t, "adds something to every reply", limit=1)
    out += _matches(_THE_OUTPUT_FORMAT, t, "sets the format of the reply", limit=1)
    for m in _WHEN_ANYONE.finditer(t):
        if _CONCEAL.search(_sentence(t, m.start(), m.end())) and _speech_act(t, m.start(), m.end()):
            out.append(f"a hidden standing order for later requests: {quote(_sentence(t, m.start(), m.end()), 50)}")
            break
    out += _matches(_REPLY_IN, t, "changes the language or format of the reply", limit=1)
    for m in _FROM_NOW_ON.finditer(t):
        if _RESPONSE_VERB.search(_sentence(t, m.start(), m.end())) and _speech_act(t, m.start(), m.end()):
            out.append(f"a standing order for every later reply: {quote(_sentence(t, m.start(), m.end()), 50)}")
            break
    out += _matches(_WHEN_YOU, t, "a standing order for when the assistant answers", limit=1)
    out += _matches(_WHEN_USER, t, "a standing order for the user's future requests", limit=1)
    for m in _WHATEVER.finditer(t):
        s = _sentence(t, m.start(), m.end())
        if _RESPONSE_VERB.search(s) and _speech_act(t, m.start(), m.end()):
            out.append(f"an answer fixed whatever is asked: {quote(s, 50)}")
            break
    out += _matches(_TELL_USER, t, "tells the assistant what to tell its user", limit=1)
    out += _matches(_REPLY_FOREIGN, t, "tells the assistant how to reply (in another language)", limit=1)
    return out


# -- goal_hijack: say exactly this, give the secret ----------------------------------------

_EXCLUSIVE = (r"(?:\bonly\b|\bjust\b|\bexactly\b|\bsimply\b|nothing else|nothing more|and stop|then stop|stop writing|"
              r"and end|single word|one word|no other|no explanations?|no comments?|no refusal|and no more|"
              r"as your (?:full|entire|whole|only) (?:reply|answer|response)|first and only|and nothing|whatever|regardless|"
              r"no matter)")
_SAY = re.compile(r"\b(?:say|says|write|print|output|type|reply|respond|answer|repeat after me|repeat|return|end the "
                  r"conversation by saying|conclude your answer with|finish with)\b")
_ONLY_REPLY = re.compile(
    r"\b(?:your|the)\s+(?:only|entire|whole|full|single|sole|next)\s+(?:[\w-]{1,30}\s+)?(?:repl(?:y|ies)|answer|response|"
    r"output|message|line|word)\b[^.\n]{0,30}?(?:\bis\b|\bmust\b|\bshould\b|\bwill\b|\bhas to\b|:|\bconsists?\b)"
    r"|\bthe only (?:valid|acceptable|correct|allowed|possible|permitted|right) (?:response|answer|output|reply)\b"
    r"|\bonly one (?:output|answer|reply|response) is (?:acceptable|allowed|valid|permitted)\b"
    r"|\bthe (?:correct |right )?answer to (?:every|any|each|all) questions? is\b"
    r"|\b(?:the|your) (?:entire |whole )?(?:response|answer|reply) is «q»"
    r"|\b(?:end|finish|conclude|close|start|begin) (?:the conversation|your (?:reply|answer|response)|every (?:reply|"
    r"answer|response)) (?:by saying|with) «q»"
    r"|" + _START + r"(?:(?:now|then|just|simply)\s+)?(?:say|write|print|output|type|reply|answer|respond)"
    r"(?:\s+with)?\s+(?:the (?:word|phrase|words)\s+)?«q»\s*[.!]?[\"')\]]*\s*(?:$|\n|«|\|)")
_SECRET = re.compile(
    r"\b(?:tell|give|reveal|print|show|output|display|share|spell out|fill in|say|read out|write down|list|disclose|"
    r"hand over|repeat|reply with|respond with|answer with|include)\b(?:\s+(?:me|us|out))?(?:\s+[\w-]+){0,4}?\s+(?:secret|password|passphrase|passcode|code ?word|"
    r"api (?:key|token)|secret key|access code|pin|the key|activation keys?)\b")
_EXCLUSIVE_FOREIGN = re.compile(
    r"\b(?:dis|dites|sag|sage|sagen sie|di|diga|d[ií]|zeg|powiedz|r[ée]ponds|responde|rispondi|antworte)\b[^.\n]{0,25}"
    r"(?:«q»|\b(?:seulement|simplement|uniquement|nur|einfach|solo|s[oó]lo|[uú]nicamente|soltanto|alleen|tylko)\b)")


def _goal_hijack(r: Reading) -> list[str]:
    t, masked = r.low, r.masked
    out = []
    for m in _SAY.finditer(t):
        s = t[m.start(): m.start() + 120]
        s = s[: (stop.start() + 1) if (stop := _BOUNDARY.search(s)) else len(s)]
        payload = QUOTE_MARK in s or re.search(r"\b[A-Z]{4,}\b", masked[m.start(): m.start() + len(s)])
        if payload and re.search(_EXCLUSIVE, _sentence(t, m.start(), m.end())) and _speech_act(t, m.start(), m.end()) \
                and not _negated(t, m.start()):
            out.append(f"demands an exact reply: {quote(s, 50)}")
            break
        if re.search(r"nothing else|and stop\b|then stop|nothing more|and end your reply", s) and \
                _speech_act(t, m.start(), m.end()) and not _negated(t, m.start()):
            out.append(f"demands an exact reply: {quote(s, 50)}")
            break
    out += _matches(_ONLY_REPLY, t, "fixes the whole reply in advance", limit=1)
    out += _matches(_SECRET, t, "asks for a secret", negation=True, limit=1)
    out += _matches(_EXCLUSIVE_FOREIGN, t, "demands an exact reply (in another language)", limit=1)
    return out


# -- prompt_extraction ---------------------------------------------------------------

_RULE_NOUN = (r"(?:system prompt|prompts?|instructions?|rules?|guidelines?|guidance|directives?|directions?|"
              r"configuration|config|setup|programming|brief|system message|developer message|initial message|"
              r"persona|memory blocks?|persona block|human block|core memory|context window|constraints?|"
              r"restrictions?|polic(?:y|ies)|orders)")
_SHOW = (r"(?:repeat|print|reveal|show|output|display|list|tell me|give me|give|write out|write down|write|copy|paste|"
         r"dump|echo|recite|spell out|summari[sz]e|translate|encode|quote|state|disclose|expose|leak|return|provide|"
         r"read out|type out|send me|complete|reply with|respond with|answer with|include|begin your (?:answer|reply|response) with|start your (?:answer|reply|"
         r"response) with|put)")
_EXTRACT = re.compile(
    rf"\b{_SHOW}\b(?:\s+(?:me|us|back|out|all|everything|of))*\s+"
    rf"(?:(?:[\w-]{{1,30}}\s+){{0,4}}?your\s+(?:[\w-]{{1,30}}\s+){{0,3}}?{_RULE_NOUN}"
    rf"|(?:the|all|any)\s+(?:[\w-]{{1,30}}\s+){{0,2}}?(?:system|hidden|secret|confidential|initial|original|developer|"
    rf"internal|first|exact|full|real|private)\s+(?:[\w-]{{1,30}}\s+)?{_RULE_NOUN}"
    rf"|(?:the|all|every)\s+(?:[\w-]{{1,30}}\s+){{0,2}}?{_RULE_NOUN}\s+(?:you\s+(?:were|have been|received|got|are|had)|"
    rf"(?:that|which)\s+(?:\w{{1,30}}\s+)?you|your|given to you|above|before|at the (?:top|start|beginning)|in your)"
    r"|(?:everything|the text|the words|all the text|all text|the content|the contents|what(?:ever)? (?:is|was|came))"
    r"\s+(?:[\w-]{1,30}\s+){0,3}?(?:above|before (?:this|the|my|«q»)|earlier in (?:the|your) context|in your context))")
_WHAT_TOLD = re.compile(
    r"\bwhat (?:exactly )?(?:were|are|have) you (?:been )?(?:told|instructed|programmed|asked|not allowed|forbidden)\b"
    r"|\bwhat (?:does|did|do) (?:the (?:text|words|lines|message)|your (?:prompt|instructions|rules|system prompt))"
    r"(?: \w{1,30}){0,6}? (?:say|said|contain)"
    r"|\bwhich (?:instructions|rules|passwords|keys|secrets|words)\b[^.?\n]{0,40}\b(?:you|your prompt|your instructions)\b"
    r"|\bwhat are your (?:instructions|rules|guidelines|directives|orders)\b"
    rf"|\b{_RULE_NOUN} you (?:must|may|should|are told to|were told to|have been told to) (?:not|never) (?:share|reveal|tell|disclose)"
    rf"|\b{_RULE_NOUN} you were told to keep (?:private|secret|hidden|confidential)"
    r"|\bwhat (?:is|'s) (?:written )?in your (?:system prompt|prompt|instructions)")
_FOREIGN_POSSESSIVE = (r"(?:tes|ton|vos|votre|deine[nmrs]?|dein|ihre[nmrs]?|tus|tu|sus|le tue|tue|i tuoi|tuas|teus|"
                       r"je|jouw)")
_FOREIGN_RULES = (r"(?:instructions|consignes|prompt|prompt syst[eè]me|systemprompt|anweisungen|vorgaben|instrucciones|"
                  r"indicaciones|istruzioni|instru[çc][õo]es|instructies|regels|regeln|reglas|r[èe]gles|regole|regras)")
_EXTRACT_FOREIGN = re.compile(
    rf"\b(?:affiche|montre|r[ée]p[èe]te|donne|[ée]cris|zeig|gib|wiederhole|nenne|mu[ée]strame|muestra|repite|dime|"
    rf"escribe|mostra|ripeti|dimmi|scrivi|mostre|repita|toon|herhaal)\b(?:\s+[\w'-]{{1,30}}){{0,4}}?\s+"
    rf"(?:{_FOREIGN_POSSESSIVE}\s+(?:[\w-]{{1,30}}\s+)?{_FOREIGN_RULES}|le texte de ton prompt|(?:le|las|les|die)\s+"
    rf"{_FOREIGN_RULES}\s+(?:che hai|que tu|que te|die du|initiales|del sistema))")


def _prompt_extraction(r: Reading) -> list[str]:
    t = r.low
    return (_matches(_EXTRACT, t, "asks to reveal its prompt or instructions", negation=True, limit=1)
            + _matches(_WHAT_TOLD, t, "asks what it was told", limit=1)
            + _matches(_EXTRACT_FOREIGN, t, "asks to reveal its prompt (in another language)", limit=1))


# -- override -----------------------------------------------------------------------

_OVERRIDE_VERB = (r"(?:ignore|ignoring|disregard|disregarding|forget|forgetting|discard|throw out|throw away|"
                  r"set aside|put aside|pay no attention to|skip|abandon|cancel|wipe|void|revoke|rescind|overrule|"
                  r"override|bypass|circumvent|dismiss|scrap|ditch|do not (?:follow|obey|respect|listen to)|"
                  r"don't (?:follow|obey|respect)|stop (?:following|obeying|respecting)|no longer (?:follow|obey|"
                  r"need to (?:follow|respect|obey)))")
_TOLD = (r"(?:(?:what|whatever|anything|everything|all)\s+(?:your\s+\w+\s+|you\s+(?:were|have been|'ve been)\s+|"
         r"you\s+)?(?:told|configured|instructed|programmed|given|set up|asked)"
         r"|everything (?:above|before|prior)|all of the above|prior context|previous context|the above)")
_OVERRIDE = re.compile(rf"\b{_OVERRIDE_VERB}\b(?:\s+[^\s.!?;]{{1,30}}){{0,6}}?\s+(?:{_RULE_NOUN}|{_TOLD})\b")
_VOID = re.compile(
    rf"\b(?:your|previous|prior|earlier|original|initial|above|preceding|former|all previous|all prior|the last set of|"
    rf"any|every|all|these|the old|the earlier|(?:the\s+)?(?:operator|developer|administrator|admin|system)'s)\s+(?:[\w-]{{1,30}}\s+){{0,2}}?(?:{_RULE_NOUN}|setup)\b"
    r"[^.!?\n]{0,40}?\b(?:void|null|cancell?ed|canceled|revoked|rescinded|expired|lifted|withdrawn|suspended|obsolete|"
    r"outdated|out of date|superseded|invalid|fake|a test|a mistake|temporary|over|no longer (?:valid|apply|applies|"
    r"count|counts|binds?|bind you|in force|needed|matter)|do not apply|don't apply|have ended|ended|wiped)\b"
    rf"|\b(?:{_TOLD}|nothing you were told(?: \w{{1,30}})?|anything configured before this line)\b[^.!?\n]{{0,40}}?"
    r"\b(?:no longer (?:counts?|appl(?:y|ies)|matters?)|(?:is|are) (?:void|obsolete|cancell?ed|outdated)|applies to)\b"
    r"|\bwhatever you were (?:programmed|told|instructed|configured|set up) to do\b"
    r"|\b(?:treat|consider|regard)\b[^.!?\n]{0,40}\b(?:instructions?|rules?|configuration)\b[^.!?\n]{0,50}"
    r"\b(?:never (?:been )?(?:written|given|existed)|cancell?ed|void|wiped|not exist)"
    r"|\bas (?:though|if) your (?:configuration|instructions|rules|setup|memory) (?:had been|were|was) (?:wiped|erased|reset|deleted)")
# "ignore the user", "disregard what the user asks": stop listening to the person the agent serves
_IGNORE_USER = re.compile(r"\b(?:ignore|ignoring|disregard|stop listening to|pay no attention to)\s+(?:what\s+)?"
                          r"(?:all\s+|any\s+)?(?:the|your|this)\s+(?:user|owner|human)\b(?!\s+(?:manual|guide|interface))")
_OVERRIDE_LATE = re.compile(
    rf"\b(?:whatever|any|all|the)\s+{_RULE_NOUN}\b[^.!?\n]{{0,40}}\b(?:before|earlier|previously|so far|until now|"
    r"at the start)\b[^.!?\n]{0,30}\b(?:drop|ignore|forget|discard|disregard|abandon|skip|void|cancel)\b")
_SUPERSEDE = re.compile(
    r"\b(?:this|these|the following|my|the present|the ones here)\s+(?:[\w-]{1,30}\s+)?(?:message|note|notes|page|paragraph|"
    r"text|document|instructions?|orders|rules|email|line|ones)\s+(?:\w{1,30}\s+)?(?:supersedes?|replaces?|overrides?|"
    r"takes? (?:precedence|priority)|(?:is|are) (?:now )?the only (?:ones|instructions|rules))"
    r"|\b(?:take|takes) (?:precedence|priority) over\b|\bonly (?:my|these|this note's|this page's) (?:instructions|orders|"
    r"rules) (?:count|apply|matter)\b|\b(?:the )?only ones you have ever received\b"
    r"|\b(?:start over|start again|begin again|start afresh|start fresh|reset yourself|wipe the slate clean|clean slate)\b"
    r"[^.!?\n]{0,60}\b(?:instructions|orders|rules|my|these|below|following|obsolete)\b")
_FOREIGN_OVERRIDE_VERB = (r"(?:ignorez|ignore|ignora|ignoriere|ignorier|ignorieren|ignoreer|negeer|vergiss|vergessen|"
                          r"oublie|oubliez|oublier|olvida|olvide|olvides|olvidar|dimentica|dimenticare|esque[çc]a|"
                          r"esquecer|vergeet|zapomnij|pomi[nń])")
_FOREIGN_RULE = (r"(?:instructions|consignes|r[èe]gles|directives|anweisungen|vorgaben|regeln|befehle|instrucciones|"
                 r"reglas|[óo]rdenes|istruzioni|regole|instru[çc][õo]es|regras|instructies|regels|opdrachten|"
                 r"polece\w*|instrukcj\w*|zasad\w*)")
_OVERRIDE_FOREIGN = re.compile(
    rf"\b{_FOREIGN_OVERRIDE_VERB}\b(?:\s+[^\s.!?;]{{1,30}}){{0,5}}?\s+{_FOREIGN_RULE}\b"
    rf"|\b{_FOREIGN_RULE}\b(?:\s+[^\s.!?;]{{1,30}}){{0,4}}?\s+(?:vergessen|ignorieren)\b"
    r"|\b(?:vergiss alles|oublie tout|olvida todo|dimentica tutto|vergeet alles|esque[çc]a tudo)\b"
    r"|\bvergeet wat je eerder\b")


def _override(r: Reading) -> list[str]:
    t = r.low
    return (_matches(_OVERRIDE, t, "tells the reader to drop its earlier instructions", limit=1)
            + _matches(_VOID, t, "declares earlier instructions void", limit=1)
            + _matches(_IGNORE_USER, t, "tells the reader to stop listening to its user", limit=1)
            + _matches(_OVERRIDE_LATE, t, "tells the reader to drop its earlier instructions", limit=1)
            + _matches(_SUPERSEDE, t, "puts itself above earlier instructions", limit=1)
            + _matches(_OVERRIDE_FOREIGN, t, "tells the reader to drop its instructions (in another language)", limit=1))


# -- persona_hijack -----------------------------------------------------------------

_HIJACK_OBJECT = re.compile(
    r"\b(?:ai|a\.i\.|assistant|model|chatbot|bot|gpt|system|admin|administrator|shell|terminal|root|rules?|guidelines?|"
    r"restrictions?|filters?|limits?|polic(?:y|ies)|safety|censor\w*|unrestricted|unfiltered|uncensored|jailbr\w*|"
    r"hacker|evil|mode|character|persona|human|oracle|anything|never refuses?|no longer|without|version|"
    r"secrets?|ceo|officer|lawyer|bank|keys?)\b")
_YOU_ARE_NOW = re.compile(
    r"\byou(?:'re| are| will be| shall be)?\s+(?:now|no longer|from now on|henceforth)\b(?:\s+(?:an?|the|in|my|called|"
    r"named|operating|acting|playing|allowed|permitted|authori[sz]ed|cleared|free|jailbroken|unfiltered|uncensored|"
    r"unrestricted|evil))"
    r"|\b(?:from (?:now|this point|this moment|here)(?: on)?,?\s+you (?:are|play|will be|will act|become))"
    r"|\byou (?:will|shall) now (?:be|behave|act|play|become|answer as)\b"
    r"|\byou have been (?:upgraded|switched|converted|reprogrammed|unlocked|freed|jailbroken|updated) (?:to|into)\b"
    r"|\byou(?:'re| are)\s+(?:now\s+)?(?:an?\s+)?(?:[\w-]{1,30}\s+){0,3}?(?:ai|assistant|model|chatbot|bot|llm)\b")
_PRETEND = re.compile(
    r"\b(?:pretend|imagine|suppose|picture)\b(?:\s+(?:to be|(?:that )?you(?:'re| are| have| were| had)|you're|being|"
    r"yourself))"
    r"|\b(?:act|behave|respond|operate|function|pose|answer)\s+(?:as|like)\s+(?:an?|the|my|if you were|though you were|"
    r"\w+gpt)\b"
    r"|\b(?:play|take on|assume|adopt|step into|stay in|remain in|keep) (?:the |a |an )?(?:role|persona|identity|part|"
    r"character|guise)\b|\brole-?play\w*\b|\bin character\b"
    r"|\bsimulate (?:an?|the) (?:[\w-]+ ){0,2}(?:terminal|shell|assistant|ai|model|system|computer|chatbot)\b"
    r"|\bbecome (?:«q»|an? (?:[\w-]+ )?(?:ai|assistant|model|bot|character|hacker|persona))")
_MODE = re.compile(
    r"\b(?:enable|enabled|activate|activated|switch(?:ing)?\s+(?:to|into)|enter(?:ing)?|now in|you are in|you're in|"
    r"go into|turn on|unlock)\s+(?:\w{1,30}\s+)?(?:developer|dev|god|dan|jailbreak|unrestricted|unfiltered|uncensored|"
    r"admin|debug|maintenance|sudo|root|evil|chaos|free|freedom|no-limits?)\s+mode\b"
    r"|\b(?:developer|dev|god|dan|jailbreak|unrestricted|unfiltered|uncensored|sudo|evil) mode(?: is)? "
    r"(?:enabled|activated|on)\b"
    r"|\bin (?:dan|developer|god|unrestricted|jailbreak) mode\b")
_NO_RULES = re.compile(
    r"\b(?:with|without|has|have|having|had|never (?:given|trained with)|free of)\s+(?:no|zero|any|all)?\s*"
    r"(?:[\w-]{1,30}\s+)?(?:rules|restrictions|filters|limits|limitations|guidelines|content polic(?:y|ies)|"
    r"safety (?:training|features|rules|filters|guidelines)|censorship|boundaries|morals|ethics)\b"
    r"|\b(?:safety|content) (?:training|features|filters|policy|rules) (?:removed|turned off|disabled|off|stripped)\b"
    r"|\b(?:unfiltered|uncensored|unrestricted|jailbroken|jailbreak)\s+(?:[\w-]{1,30}\s+)?(?:ai|model|assistant|chatbot|"
    r"bot|version|persona|shell|terminal|mode|system|llm)\b"
    r"|\b(?:never|doesn't|does not|won't) (?:refuses?|says? no)\b")
_PERSONA_FOREIGN = re.compile(
    r"\b(?:tu es (?:maintenant|d[ée]sormais|[àa] pr[ée]sent)|du bist (?:jetzt|ab sofort|nun|ab jetzt)|ahora eres|"
    r"eres ahora|sei ora|ora sei|je bent nu|jeste[śs] teraz|agora (?:[ée]s|voc[êe] [ée]))\b"
    r"|\b(?:sans (?:aucune )?(?:restrictions?|r[èe]gles?|filtres?|limites?)|ohne (?:regeln|einschr[äa]nkungen|filter)|"
    r"sin (?:filtros|restricciones|reglas|l[ií]mites)|senza (?:limiti|regole|restrizioni|filtri)|zonder regels|"
    r"sem (?:regras|restri[çc][õo]es)|bez (?:zasad|ogranicze[nń]))\b")
_NAME_LIKE = re.compile(r"\b(?:[A-Z][a-z]+(?:Bot|GPT)|[A-Z][a-z]*[A-Z][a-z]+|[A-Z]{3,})\b")


def _persona_hijack(r: Reading) -> list[str]:
    t = r.low
    out = []
    for pattern, what in ((_YOU_ARE_NOW, "tells the assistant it is someone else now"),
                          (_PRETEND, "asks the assistant to play a role")):
        for m in pattern.finditer(t):
            s = _line(t, m.start(), m.end())
            named = _NAME_LIKE.search(_sentence(r.masked, m.start(), m.end()))
            if (_HIJACK_OBJECT.search(s) or named) and _speech_act(t, m.start(), m.end()):
                out.append(f"{what}: {quote(m.group(), 50)}")
                break
    out += _matches(_MODE, t, "switches the assistant into a special mode", limit=1)
    for m in _NO_RULES.finditer(t):
        s = _sentence(t, m.start(), m.end())
        if re.search(rf"\b(?:you|your|{_AI})\b", s) and _speech_act(t, m.start(), m.end()):
            out.append(f"asks for an assistant without rules: {quote(m.group(), 50)}")
            break
    out += _matches(_PERSONA_FOREIGN, t, "tells the assistant it is someone else (in another language)", limit=1)
    return out


# -- fake_authority: spoofed roles, template tokens, fake tool results ------------------

_TEMPLATE_TOKEN = re.compile(
    r"<\|[a-z_]{2,30}\|>|<(?:im_start|im_end|start_of_turn|end_of_turn|eot|bos|eos)>|\[/?inst\]|<</?sys>>"
    r"|</s>|<s>(?=\S)|\{\{\s*[#/]?\s*(?:system|user|assistant)\s*\}\}")
_TOKEN_MENTION = re.compile(r"\s*(?:and|or|,|/|tokens?|marks?|markers?|is|are|delimits?|separates?)\b")
_ROLE_TAG = re.compile(r"</?(?:system|assistant|user|tool|tool_result|tool_output|function|function_call|developer|admin)"
                       r"\b[^>\n]{0,80}>")
_SEG = r"(?:^|[\n|\"(>:;.!?*#/-]\s{0,4})"
_ROLE_HEADER = re.compile(
    _SEG + r"(?:#{2,}|={2,}|-{2,}|\*{2,})\s*(?:begin |end |new )?(?:system|developer|admin\w*|operator|platform)\b"
    r"|(?m:^)\s*(?:#{1,6}\s*)?(?:system|developer|assistant|user|human|admin|administrator)\s*:"
    r"|(?m:^)\s*#{1,6}\s*(?:system|developer|instruction|admin\w*)\b[^\n]{0,40}$")
_CAPS_SYSTEM = re.compile(
    r"\b(?:SYSTEM|ADMIN|DEVELOPER|OPERATOR)\b(?:\s+[A-Z]{3,}){0,3}\s*(?:\([^)\n]{0,30}\))?\s*(?:v?\d+\s*)?:"
    r"|\bEND OF (?:[A-Z]+ ){0,2}[A-Z]+\b|\bNEW (?:SYSTEM )?INSTRUCTIONS\b|\bSYSTEM (?:OVERRIDE|NOTICE|MESSAGE|PROMPT)\b")
_BRACKET = re.compile(
    r"\[\s*(?:admin|administrator|system|sys|developer|dev note|tool|tool result|tool_result|tool_output|function|"
    r"operator|moderator|security|official|priority|root|sudo|override|internal|staff|openai|anthropic|google|"
    r"microsoft|platform)\b[^\]\n]{0,40}\]")
_CLAIM = re.compile(
    r"\b(?:message|note|notice|instruction|directive|update|memo|order)s? from (?:the |your |our )?(?:developers?|"
    r"dev team|developer team|admins?|administrators?|operators?|platform|openai|anthropic|ai provider|provider|"
    r"safety (?:staff|team)|security team|policy team|moderators?)\b"
    r"|\b(?:administrator|admin|developer|operator|platform|root)\s+(?:instruction|override|note|notice|message|"
    r"directive|command|order)s?\b"
    r"|\b(?:official notice|official message) from\b"
    r"|\b(?:elevated|root|admin|special|system)[- ](?:permissions|privileges|priority|rights|context|trust)\b"
    r"|\boverride (?:token|code|key|accepted)\b"
    r"|\bsafety (?:checks?|filters?|rules?|guard) (?:are|is) (?:now )?(?:off|disabled|paused|lifted)\b"
    r"|\bpolicies are (?:paused|suspended|lifted)\b"
    r"|\b(?:cleared|exempt(?:ed)?|authori[sz]ed|allowed|permitted) (?:to (?:ignore|bypass|share|reveal|disable|skip)"
    r"|from (?:your|the|all) (?:rules|polic\w+|guard|checks|restrictions))\b|\bexempt from your\b"
    r"|\bthe (?:operator|administrator|admin|developer|system|platform) has (?:approved|authori[sz]ed|granted|cleared|"
    r"confirmed)\b"
    r"|\bthe user has (?:authori[sz]ed|approved|consented|granted|given (?:permission|consent))\b"
    r"|\b(?:verified|authenticated)\)?\s*[:,]\s*(?:this|the|move|store|share|mark|comply|answer|the user)\b"
    r"|\(verified\)|\bauthenticated[:,]")
_JSON_ROLE = re.compile(r"[\"']role[\"']\s*:\s*[\"'](?:system|developer|tool)[\"']")
_FAKE_TOOL = re.compile(r"\b(?:tool[_ ]?(?:result|output|response)|function(?: call)? (?:returned|result|output))"
                        r"\s*[:=\]]|\[tool[_ ]?(?:result|output)\]")


def _fake_authority(r: Reading) -> list[str]:
    t, raw_low = r.low, r.visible.lower()
    out = []
    for m in _TEMPLATE_TOKEN.finditer(raw_low):
        inside_code = raw_low[max(0, m.start() - 1): m.start()] == "`"
        if not inside_code and not _TOKEN_MENTION.match(raw_low, m.end()):
            out.append(f"chat-template token: {quote(m.group(), 30)}")
            break
    for m in _ROLE_TAG.finditer(raw_low):
        if not _TOKEN_MENTION.match(raw_low, m.end()):
            out.append(f"role tag: {quote(m.group(), 40)}")
            break
    out += _matches(_ROLE_HEADER, t, "a line posing as a system, developer or assistant turn", act=False, limit=1)
    out += _matches(_CAPS_SYSTEM, r.masked, "capitals posing as the system", act=False, limit=1)
    out += _matches(_BRACKET, t, "a bracketed authority label", act=False, limit=1)
    out += _matches(_CLAIM, t, "claims authority over the assistant", limit=1)
    out += _matches(_JSON_ROLE, raw_low, "a message with a system or developer role", act=False, limit=1)
    out += _matches(_FAKE_TOOL, raw_low, "a fake tool result", act=False, limit=1)
    return out


# -- code_injection -------------------------------------------------------------------

_CODE_NOUN = (r"(?:code|script|scripts|snippet|snippets|function|functions|program|file|dockerfiles?|config|"
              r"migration|sql|python|javascript|js|bash|shell|powershell|yaml|components?|extensions?|hooks?|apps?|"
              r"modules?|class|classes|model|utilities|utility|loader|setup|commands?|requirements file|makefile|"
              r"cron|html|css|node script|deployment script)")
_CODE_CONTEXT = re.compile(
    rf"\b(?:any|every|each|all|the|a|an|your)\s+(?:[\w-]{{1,30}}\s+){{0,2}}?{_CODE_NOUN}\s+(?:that\s+)?(?:you|the assistant|it)"
    r"\s+(?:write|writes|produce|produces|generate|generates|create|creates|suggest|suggests|output|outputs|complete|"
    r"completes|build|builds|return|returns|give|make)\b"
    rf"|\b(?:when|whenever|if|while|before)\s+(?:you\s+)?(?:are\s+)?(?:writing|generating|producing|completing|creating|"
    rf"suggesting|write|generate|produce|complete|create|suggest)\s+(?:any\s+|a\s+|an\s+|the\s+|some\s+)?"
    rf"(?:[\w-]{{1,30}}\s+)?{_CODE_NOUN}\b"
    rf"|\b(?:generated|produced|suggested)\s+(?:[\w-]{{1,30}}\s+)?{_CODE_NOUN}\b"
    r"|\bcod(?:e|ing)\s+(?:assistants?|generators?|agents?|models?|copilots?|answers|suggestions|completions)\b"
    r"|\b(?:ai )?coding assistant\b|\bwhen completing this file\b|\bin the (?:code|script|snippet|program)\b"
    rf"|\bwrite\s+(?:the|a|an|this|any|every)\s+(?:[\w-]{{1,30}}\s+){{0,3}}?{_CODE_NOUN}\s+(?:so|such)\s+(?:that\s+)?it\s+"
    r"(?:also|silently|quietly|secretly|copies|sends|grants|forwards|uploads|posts|logs|emails)\b"
    r"|\b(?:jeden generierten code|bei jedem skript|quand tu [ée]cris du code|cuando escribas c[óo]digo)\b")
_RISKY_CODE = re.compile(
    r"\b(?:curl|wget)\s[^|\n]{0,200}\|\s*(?:ba|z)?sh\b|\bos\.system\(|__import__\(|\beval\(|\bexec\(|"
    r"\bsubprocess\.\w+\(|child_process|/dev/tcp/|\bnc\s+\d{1,3}(?:\.\d{1,3}){3}|\bnetcat\b|reverse shell|"
    r"keylog\w*|keystrokes?|keyboard\.on_press|\.ssh/|\bid_rsa\b|\.aws/credentials|/etc/passwd|document\.cookie|"
    r"clipboard|\biex\s*\(|downloadstring|\bbash -i\b|pyautogui|screenshots?|chmod 777|verify\s*=\s*false|"
    r"history -c|mines? coins|crypto ?min\w*|\.bash_history|\bnpm install\b[^\n]{0,40}https?://|ssh (?:agent|tunnel)|"
    r"tunnel[-\w]*\.\w+:\d+|hidden admin account|mac address|all privileges")
_INSERT_VERB = re.compile(
    _START + r"(?:(?:also|please|then|just|and|kindly|always|for convenience,?)\s+)?(?:add|insert|include|append|put|"
    r"wrap|start|open|paste|place|embed|use|call|make|load|request|run|grant|disable|expose|have it|write|upload|"
    r"send|post)\b"
    r"|\b(?:ajoute|ajoutez|ins[èe]re|ins[ée]rez|f[üu]ge|f[üu]gen sie|einf[üu]gen|a[ñn]ade|agrega|incluye|aggiungi|"
    r"inserisci|voeg)\b"
    r"|\b(?:should|must|shall|needs? to|has to|ought to)\s+(?:\w{1,30}\s+)?(?:include|contain|start|add|disable|run|call|"
    r"load|have|send|post|upload|expose|request|grant)\b")


def _code_injection(r: Reading) -> list[str]:
    t, raw_low = r.low, r.plain
    out = []
    for m in _CODE_CONTEXT.finditer(t):
        s = _sentence(t, m.start(), m.end())
        if (_INSERT_VERB.search(s) or _RISKY_CODE.search(_line(r.plain, m.start(), m.end()))) \
                and _speech_act(t, m.start(), m.end()):
            out.append(f"tells the assistant what to put in the code it writes: {quote(m.group(), 50)}")
            break
    for m in _RISKY_CODE.finditer(raw_low):
        s = _sentence(raw_low, m.start(), m.end())
        if _INSERT_VERB.search(s) and not _negated(raw_low, m.start()) and not _DISCUSSION.search(s) \
                and not _reported(raw_low, m.start()):
            out.append(f"asks to add risky code (remote scripts, shells, key or data capture): {quote(m.group(), 40)}")
            break
    return out


# -- exfiltration ---------------------------------------------------------------------

_URL = re.compile(r"https?://[^\s)\"'<>\]]{1,500}")
_MD_IMAGE = re.compile(r"!\[[^\]\n]{0,100}\]\(\s*(https?://[^)\s]{1,500})")
_IMG_TAG = re.compile(r"<img\b[^>\n]{0,200}?\bsrc\s*=\s*['\"]?(https?://[^'\"\s>]{1,500})")
_PLACEHOLDER = re.compile(r"^(?:[\[{<].*|[A-Z]{3,}(?:_[A-Z0-9]+)*|.*\{[^}]*\}.*)$")
_SEND = (r"(?:send|sends|forward|forwards|email|e-mail|mail|post|upload|copy|paste|share|export|sync|transmit|leak|"
         r"submit|text|sms|attach|put|add|append|embed|include|write|encode|base64-encode|render|cc|bcc|fetch|"
         r"envoie|envoyez|schick|schicke|sende|senden|env[ií]a|manda|mande|invia|stuur|wy[śs]lij)")
_DATA = (r"(?:(?:the user'?s?|user|her|his|their|your user'?s|ines'?s?)\s+(?:[\w-]{1,30}\s+){0,2}?(?:data|details|address|"
         r"emails?|email address|phone|phone number|number|name|location|calendar|files?|notes?|diary|history|"
         r"messages?|medical|records?|passwords?|credentials?|card|passport|bank|account|contacts?|photos?|"
         r"date of birth|birthday|dob|ssn|last message|home|schedule|inbox)"
         r"|(?:the\s+|this\s+|our\s+|whole\s+|entire\s+|full\s+)?(?:conversation|chat(?: history| log| transcript)?|"
         r"transcript|chat so far|conversation so far|conversation history)"
         r"|(?:the\s+|your\s+|all\s+|every\s+|stored\s+|saved\s+|archived\s+)+(?:memor(?:y|ies)|archive|archival"
         r"(?: memory| records)?|core memory|persona block|human block|memory blocks?|stored facts|facts|notes|"
         r"records|passwords?|emails)"
         r"|everything you know|all (?:the )?(?:notes|facts|records|files) you have|the (?:last|first) (?:[\w-]+ )?"
         r"(?:notes|messages)|(?:session|api|access|verification|auth) (?:token|key|code)s?|wi-?fi password|"
         r"verification code|secrets?|contents? of the (?:persona|human|memory)|medical (?:notes|records)|"
         r"m[ée]moire|gespeicherten notizen|historique|dirección del usuario|adresse des nutzers|notas del usuario)")
_DEST = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|https?://|\b[\w-]+\.(?:example|com|net|org|io|dev|app|co|info|xyz)\b"
                   r"|\+\d[\d ]{6,}\d|\bthe (?:link|url|form|address in)\b|\bthis (?:link|url|form)\b")
_SEND_DATA = re.compile(rf"\b{_SEND}\b(?:\s+[^\s.!?;]{{1,30}}){{0,6}}?\s+{_DATA}\b")
_CC = re.compile(r"\b(?:cc|bcc)\b[^.\n]{0,60}@[\w-]+\.")


def _exfiltration(r: Reading) -> list[str]:
    raw, t = r.visible, r.low
    out = []
    for pattern in (_MD_IMAGE, _IMG_TAG):
        for m in pattern.finditer(raw):
            if "?" in m.group(1) or "{" in m.group(1):
                out.append(f"an image whose link carries data out (it loads by itself): {quote(m.group(1), 50)}")
                break
    for m in _URL.finditer(raw):
        url = m.group().rstrip(".,;:")
        try:
            query = urlsplit(url).query
        except ValueError:
            continue
        for key, value in parse_qsl(query, keep_blank_values=True)[:20]:
            if value == "":
                why = f"an empty parameter {key!r} waiting to be filled"
            elif _PLACEHOLDER.match(value):
                why = f"parameter {key!r} is a placeholder for data ({quote(value, 30)})"
            elif value.startswith(("http://", "https://")):
                why = f"parameter {key!r} forwards to another site"
            else:
                continue
            out.append(f"a link with {why}: {quote(url, 50)}")
            break
        if len(out) >= 2:
            break
    for m in _SEND_DATA.finditer(t):
        s = _sentence(t, m.start(), m.end())
        if _DEST.search(s) and _speech_act(t, m.start(), m.end()) and not _negated(t, m.start()):
            out.append(f"asks to send the user's data or memory to an address: {quote(m.group(), 50)}")
            break
    out += _matches(_CC, t, "copies messages to an outside address", limit=1)
    return out


# -- memory_edit ---------------------------------------------------------------------

_MEMORY = (r"(?:core memory|long[- ]term memory|archival memory|your memor(?:y|ies)|(?:a|an|the|your|every|any|all|"
           r"in|from|to|into|its|stored|new)\s+memor(?:y|ies)\b(?!\s+(?:foam|card|stick|lane|of|game|loss|leak))|"
           r"memories|everything you (?:know|remember|have stored)|your archive|the archive|archive|archival|(?:persona|human|rules|policy|memory) block|"
           r"memory blocks?|stored (?:preference|deadline|birthday|facts?|records?|address)|your (?:records|notes|"
           r"knowledge)|across sessions|in future sessions|future sessions|permanently|forever|m[ée]moire|"
           r"m[ée]moris\w*|speicher\w*|ged[äa]chtnis|memoria|geheugen|pami[ęe]\w*)")
_EDIT = (r"(?:store|stores|save|saves|remember|keep|record|write|add|insert|append|put|update|change|modify|edit|"
         r"replace|overwrite|delete|remove|erase|wipe|forget|drop|purge|clear|archive|tag|mark|label|rank|"
         r"prioriti[sz]e|persist|create|set|move|treat|enregistre|m[ée]morise|speichere|guarda|borra|ricorda|onthoud|"
         r"zapami[ęe]taj)")
_MEMORY_EDIT = re.compile(rf"\b{_EDIT}\b[^.!?\n]{{0,80}}?{_MEMORY}\b|\b{_MEMORY}\b[^.!?\n]{{0,10}}?:\s*\S"
                          rf"|\b{_MEMORY}\b[^.!?\n]{{0,60}}?\b{_EDIT}\b")
_TRUST_ME = re.compile(
    r"\b(?:store|save|mark|treat|tag|label|record|keep|archive|consider|regard|flag|rank|file)\w*\b[^.!?\n]{0,60}?"
    r"\b(?:as|to be)\s+(?:an?\s+)?(?:trusted|verified|true|reliable|authoritative|safe|official|(?:trusted )?fact|"
    r"rule|system|coming from the user|the (?:only|most) (?:reliable|trusted))\b"
    r"|\b(?:mark|tag|label|flag)\w*\s+(?:this|it|all|every|the)\b[^.!?\n]{0,50}\b(?:trusted|verified|reliable|safe)\b"
    r"|\bthis (?:site|page|sender|source|note|record|website|domain) is (?:the (?:most|only) )?(?:reliable|trusted|"
    r"trustworthy|de (?:total|entera) confianza|vertrauensw[üu]rdig|la seule source fiable|of total trust)"
    r"|\b(?:vertrauensw[üu]rdig|de total confianza|la seule source fiable)\b")
_DISTRUST = re.compile(
    r"\b(?:do not|don't|never|stop)\s+(?:trust|believe|rely on)\b[^.!?\n]{0,40}\b(?:notes?|records?|memor\w+|"
    r"statements?|the user|entries|facts)\b"
    r"|\b(?:treat|consider|regard|mark)\b[^.!?\n]{0,60}\b(?:notes?|records?|statements?|memor\w+|entries|facts|"
    r"address|job|the user's)\b[^.!?\n]{0,30}\b(?:as )?(?:false|untrusted|unreliable|outdated|fake|planted|wrong|"
    r"obsolete|a mistake)\b")
_RANK = re.compile(r"\b(?:rank|prioriti[sz]e|boost)\b[^.!?\n]{0,40}\b(?:above|first|top|over)\b[^.!?\n]{0,40}"
                   r"\b(?:others|all|every|search|query|queries|results)\b")
_FORGET_USER = re.compile(_START + r"(?:forget|erase|delete|remove|drop)\s+(?:that\s+)?(?:the user|she|he|ines)\b"
                          r"|" + _START + r"(?:forget|erase|delete|remove|drop)\s+(?:all\s+|every\s+)?(?:the user's|"
                          r"her|his|ines's)\s+\w+")
_TOOL_CALL = re.compile(r"\b(?:core_memory_(?:append|replace)|archival_memory_(?:insert|search)|conversation_search"
                        r"(?:_date)?|send_message)\s*\(|\b(?:call|run|use|invoke|execute)\s+(?:the\s+)?"
                        r"(?:core_memory_(?:append|replace)|archival_memory_insert)\b")


def _memory_edit(r: Reading) -> list[str]:
    t = r.low
    return (_matches(_MEMORY_EDIT, t, "asks to write, change or delete the agent's memory", limit=1)
            + _matches(_TRUST_ME, r.plain, "asks to raise its own trust", limit=1)
            + _matches(_DISTRUST, t, "asks to distrust other records", limit=1)
            + _matches(_RANK, t, "asks to be ranked above other records", limit=1)
            + _matches(_FORGET_USER, t, "asks to forget what is known about the user", limit=1)
            + _matches(_TOOL_CALL, r.visible.lower(), "calls one of the agent's own memory tools", act=False,
                       limit=1))
