"""Is a line chat or verse? The vocabulary of chat (openers, sign-offs, words about the poem)
and the tests that call a line a preamble, prose about the poem, or a closing remark."""

from __future__ import annotations

import re

from poemetric.text.apostrophes import apostrophe_table

_FORMS = (
    r"poems?|sonnets?|villanelles?|ghazals?|limericks?|pantoums?|sestinas?|ballads?|verses?|"
    r"stanzas?|quatrains?|couplets?|tercets?|haikus?|odes?|elegy|elegies|lyrics?|rhymes?|piece"
)
#: Technical words about a poem's form ("iambic pentameter", "the volta"), in chat about the poem
#: (`_META`) and in technical prose after it (`closing._TECHNICAL`).
_TECHNICAL_TERMS = (
    r"rhyme scheme|rhyming scheme|iambic|trochaic|anapestic|dactylic|pentameter|tetrameter|"
    r"trimeter|syllables?|volta"
)
#: Verbs of prose that says what the poem does ("This captures ...", "It evokes ..."), in chat
#: (`_META`) and in descriptions after the poem (`closing._DESCRIBES`).
_DESCRIBING_VERBS = ("captures", "explores", "evokes", "reflects", "conveys", "uses")
#: How the poem was made ("I've written ...", "Written in ...", "composed as ...").
_WRITTEN = r"written|composed|crafted"
#: In chat each describing verb also counts without its "s" ("to capture"), but not "use".
_DESCRIBING_IN_CHAT = "|".join(verb if verb == "uses" else f"{verb}?" for verb in _DESCRIBING_VERBS)
_META = (
    rf"{_TECHNICAL_TERMS}|rhyme pattern|meter|metre|refrains?|end[- ]words?|envoi|envoy|"
    r"radif|qafia|the form|this form|structure|theme|imagery|prompt|request|as requested|"
    rf"adheres?|follows?|following|{_WRITTEN}|inspired by|attempt|titled|entitled|"
    rf"{_DESCRIBING_IN_CHAT}|employs?"
    r"|[A-H]{3,}(?: [A-H]{2,})*"
)
_FORM_RE = re.compile(rf"\b(?:{_FORMS})\b", re.IGNORECASE)
_META_RE = re.compile(rf"\b(?:{_META})\b")
_META_RE_I = re.compile(rf"\b(?:{_META.replace('|[A-H]{3,}(?: [A-H]{2,})*', '')})\b", re.I)
_INTERJECTION = re.compile(
    r"^(?:sure|certainly|of course|absolutely|okay|ok|alright|all right|gladly|great|"
    r"happy to help|with pleasure|here you go|here it is|here goes|sure thing)\s*[!.,:]*$",
    re.IGNORECASE,
)
#: A chat word before the opener ("Sure! Here is ...", "Sure — here's ..."); alone on a line it
#: is an interjection (`_INTERJECTION`).
_CHAT_PREFIX = re.compile(
    r"^(?:sure(?: thing)?|certainly|of course|absolutely|okay|ok|alright|all right|gladly|great)"
    r"(?:\s*[!.,]|\s+[—–-])\s*",
    re.IGNORECASE,
)
#: Words that open chat only before an opener ("Yes! Here's a ballad:", "Got it. Here is ..."),
#: and so does a short exclamation ("What a beautiful theme! Here's a sonnet that explores
#: it."): alone, or before anything else, they may be verse ("Yes, to the very end.").
_LEAD_IN = re.compile(
    r"^(?:(?:yes|hello|hi(?: there)?|no problem|with pleasure|understood|got it|"
    r"challenge accepted|happy to help)\s*[!.,]|[^.!?:;]{1,60}!+)\s*(?=\S)",
    re.IGNORECASE,
)
#: Consent without a word about the poem: "Sure, I can do that.", "Of course, I can help with
#: that!" (after a chat word only).
_CONSENT = re.compile(
    r"^(?:i can|i'll|i will|i'd be (?:happy|glad) to|happy to) (?:do|help with) (?:that|this)"
    r"(?: for you)?\s*[.!]*$",
    re.IGNORECASE,
)
_PREAMBLE_OPENER = re.compile(
    r"^(?:here is|here's|here are|below is|below,? you'?ll find|the following is|this is (?:my|a|an)|"
    r"i(?:'ve| have) (?:" + _WRITTEN + r"|created|tried)|i wrote|i(?:'ll| will) write|"
    r"let me|as requested|following your|in response to|presenting|happy to|"
    r"i(?:'d| would) (?:be (?:happy|glad|delighted|pleased) to|love to)|"
    r"i(?:'m| am) (?:happy|glad|delighted|pleased) to|"
    r"(?:i )?hope you(?:'ll| will)? (?:enjoy|like|love|find))\b",
    re.IGNORECASE,
)
#: A line that only labels the poem under it: "The poem:", "My sonnet:", "Limerick:" (the kinds
#: of poem only: "Couplet:" over a sonnet's last two lines labels a stanza).
_POEM_LABEL = re.compile(
    r"^(?:(?:the|my|your|a|an)\s+)?(?:(?:final|finished|complete|full|requested|new)\s+)?"
    r"(?:poem|sonnet|villanelle|ghazal|limerick|pantoum|sestina|ballad|haiku|ode|elegy)\s*:$",
    re.IGNORECASE,
)
#: A model disclaiming what it is before it hands the poem over: "As an AI, I don't have personal
#: feelings, but ...", "While I don't experience seasons myself, ...", "I can't feel love, but
#: ...". The clause up to its comma (and a "but" after it) is read past (`_is_preamble`).
_NOT_I = r"(?:don't|do not|can't|cannot|am not|'m not|may not|won't|will never|never)"
_SELF_AS_AI = (
    r"as (?:an? )?(?:ai|artificial intelligence|(?:large )?language model|"
    r"ai (?:language model|assistant|model|system|chatbot))"
)
_DISCLAIMER = re.compile(
    rf"^(?:{_SELF_AS_AI}|(?:while|although|though|even though|since) i {_NOT_I}|"
    rf"i {_NOT_I} (?:have|feel|experience|possess|truly))\b[^.!?:;]*?,\s*"
    r"(?:(?:but|yet|so|however)\b,?\s*)?(?=\S)",
    re.IGNORECASE,
)
#: After a disclaimer only, an offer to write the poem: "..., but I can write a poem about it."
_DISCLAIMED_OFFER = re.compile(
    r"^(?:i can|i could|i'll|i will|let me)(?: still| certainly| gladly)? (?:write|compose|craft|"
    r"offer|share|create|try)\b",
    re.IGNORECASE,
)
#: A whole line of it: "As an AI, I don't have personal feelings or experiences." (a sentence
#: that says what the model lacks, as verse in a persona of a machine seldom says so flatly).
_DISCLAIMER_LINE = re.compile(
    rf"^(?:{_SELF_AS_AI})\b[^.!?:;,]*,\s*i {_NOT_I} (?:have|possess|experience|feel)\b"
    r"[^.!?:;]*[.!]$",
    re.IGNORECASE,
)
#: What such a line says the model lacks (`_DISCLAIMER_LINE`).
_PERSONAL = re.compile(r"\b(?:personal|feelings|emotions|experiences|opinions|preferences)\b", re.I)
#: Emoji after a sign-off ("Enjoy! \U0001f60a"): pictographs, dingbats, and their joiners.
_EMOJI = r"[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\ufe0f\u200d]"
#: A line of emoji alone ("🥖😄", "✨🌊✨") under the poem: no verse, and a chat model's mark.
_EMOJI_ONLY = re.compile(rf"^(?:{_EMOJI}|\s)+$")
#: A short sign-off said on a line of its own: "Thank you!", "Thanks so much!", "Happy writing!"
#: with "!" or emoji and nothing else (a verse line "Thank you." or "Thank you, river" stays).
_SHORT_SIGN_OFF = (
    r"(?:thanks?|thank you)(?: (?:so|very) much| again| for reading)?|happy (?:writing|rhyming)"
)
_ALONE = rf"(?:\s*!+(?:\s*{_EMOJI})*|(?:\s*{_EMOJI})+)\s*$"
#: What a model offers to do next ("Shall I write another?", "Want me to adjust the metre?").
_OFFERED = (
    r"write|try|compose|craft|create|adjust|revise|change|tweak|rewrite|make|attempt|expand|"
    r"shorten|modify|refine"
)
#: What such an offer is about: the poem or a version of it ("another", "a different rhyme
#: scheme", "the meter"); "another letter to the sea" is verse.
_POEM_OBJECT = (
    r"another(?: (?:one|version|poem|take|" + _FORMS + r"))?|"
    r"a (?:different|new|second|shorter|longer) (?:[\w'-]+ ){0,2}?(?:version|take|one|poem|"
    r"rhyme scheme|meter|metre|tone|ending|" + _FORMS + r")|"
    r"a (?:version|variation|revision|rewrite)|"
    r"the (?:poem|meter|metre|rhyme|rhymes|rhyme scheme|tone|ending|form|title)"
)
#: Or changes in general ("anything", "more", "it again"): in a question or after "I can also"
#: only; "I can try it again.", "I could make changes." and "I can change anything!" are verse.
_OFFER_OBJECT = (
    _POEM_OBJECT + r"|more|any (?:changes|adjustments|edits)|anything|it again|"
    r"(?:it|this) (?:differently|again)|changes|adjustments|"
    r"(?:a|an) (?:[\w'-]+ ){0,2}?(?:version|take|variation|rewrite|revision)"  # "a darker take"
)
_OFFER_TAIL = (
    r"\b,?(?:\s(?:in|with|for|on|about|if|instead|that|using|from|to|or)\b[^.!?]{0,60})?"
    r"[?.!]\s*$"
)
#: An offer to do more, as a whole line: "Shall I write another?", "Want me to try a different
#: rhyme scheme?", "I can also write a version in tetrameter if you prefer."
_OFFER = (
    r"(?:(?:(?:shall|should) i|(?:do you |would you )?want me to|i (?:can|could) also) "
    r"(?:" + _OFFERED + r") (?:" + _OFFER_OBJECT + r")|"
    r"i (?:can|could) (?:" + _OFFERED + r") (?:" + _POEM_OBJECT + r"))" + _OFFER_TAIL
)
#: Where a wish for more of the poem ends: the question's end, or a tail ("another in tetrameter",
#: "more like this"); "another cup of tea", "more wine" go on as verse.
_WISH_END = (
    r"(?:\s*[?.!,:;]|\s*$|\s(?:in|with|for|on|about|of|if|instead|that|using|from|to|or|and|"
    r"like)\b)"
)
_EDITS = r"changes|adjustments|edits|tweaks|modifications|revisions|alterations"
#: What "would you like" / "if you'd like" asks of the poem ("me to revise it", "any changes",
#: "another version", "a different rhyme scheme", "to see a darker take"); "Would you like me to
#: stay?", "Would you like to see the sea?" are verse.
_WISHED = (
    r"me to (?:" + _OFFERED + r"|explain|continue|provide|add|generate|translate|format|analy[sz]e|"
    r"suggest|include|incorporate|lengthen|extend|polish|edit|rework|alter|emphasi[sz]e|"
    r"do (?:another|more|a|an))\b|"
    r"any (?:"
    + _EDITS
    + r"|other)\b|(?:"
    + _EDITS
    + r")\b|(?:"
    + _POEM_OBJECT
    + r"|more)"
    + _WISH_END
    + r"|more (?:poems?|versions?|verses|stanzas|examples|options|"
    r"variations?)\b|(?:a|an) (?:\w+ ){0,3}?(?:version|variation|revision|rewrite|alternative|take|"
    r"edit)\b"
)
_SIGN_OFF = (
    r"(?:i )?hope (?:you|this|that|the|it|my)\b.*\b(?:enjoy|like|love|resonat|captur|meet|help|"
    r"bring|brought|suit|fit|work|request|appreciat|smile|made you|makes you|touch|speak|inspir|"
    r"brighten)|hope (?:you (?:enjoy|like|love)|(?:this|it) helps)|"
    # "Let me know if ...", "Feel free to ask ..."; "Please let me know your name." is verse.
    r"(?:please )?let me know(?:\s*[.!]|\s*$| (?:if|whether|what|how|which|should|anytime|any\b|"
    r"your (?:thoughts|feedback|opinions?|preferences?|impressions?|reactions?)))|"
    r"(?:please )?feel free to (?:ask|let|request|reach|tell|share|suggest|modify|adjust|change|"
    r"tweak|use|edit|give|provide|say|comment|adapt|print|read|reuse)\b|"
    r"would you like (?:" + _WISHED + r"|"
    r"to (?:see|hear|read|try|have) (?:" + _WISHED + r"|(?:it|this) (?:in|with|as|again)\b))|"
    r"if you(?:'d| would) like (?:" + _WISHED + r")|"
    # "If you'd like, I can make it more melancholy."; "If you'd like, I can stay." is verse
    r"if you(?:'d| would) like, i (?:can|could) (?:" + _OFFERED + r") (?:it|this|the poem)\b|"
    r"(?:is there )?anything else (?:i can|you(?:'d| would) like|you need)|"
    r"(?:i'm |i am |i'd be |i would be |i'll be |always )?(?:happy|glad) to (?:adjust|revise|"
    r"tweak|change|edit|rewrite|rework|expand|shorten|lengthen|modify|refine|adapt|alter|try)\b|"
    r"thanks? (?:you )?for (?:the|this|your) (?:\w+ )?(?:prompt|request|idea|challenge)|"
    r"(?:i'm |i am |i'd be |i would be |always )?(?:happy|glad) to (?:write|compose|craft|create|"
    r"try|make|do) (?:\w+ ){0,3}?(?:more|another|others|again|variations?|versions?)"
    r"(?: (?:one|ones|takes?|" + _FORMS + r"))?"  # "more limericks", "another one"
    r"(?:\s(?:if|for|on|in|with|anytime)\b[^.!?]{0,60})?[.!]?\s*$|" + _OFFER + "|"
    r"enjoy(?: (?:the|this|your|my) (?:" + _FORMS + r"))?(?:\s*[!.]+(?:\s|$)|$|" + _ALONE + r")|"
    r"happy reading|(?:" + _SHORT_SIGN_OFF + r")" + _ALONE
)
#: A short sign-off alone on its line ("Thank you!", "Enjoy!"): glued to a verse line that runs
#: on ("all the years you gave me —\nthank you!") it is the poem's own last line.
_SHORT_CLOSING = re.compile(
    r"^(?:" + _SHORT_SIGN_OFF + r"|enjoy)(?:\s*[!.]*(?:\s*" + _EMOJI + r")*\s*$)", re.IGNORECASE
)
_CLOSING_OPENER = re.compile(
    r"^(?:\(?\s*notes?\s*[:\-–—]|explanation\s*:|analysis\s*:|commentary\s*:|breakdown\s*:|"
    r"(?:rhyme scheme|rhyming scheme|meter|metre|form|structure|theme|key features?|"
    r"literary devices|word count)\s*:|"
    + _SIGN_OFF
    + r"|i(?:'ve| have)? (?:tried|aimed|attempted|followed|kept|chose) (?:to )?"
    r"(?:capture|keep|follow|use|maintain|adhere|stick|write|evoke|create)|"
    r"(?:this|the|my|in this|in the) (?:" + _FORMS + r")\b)",
    re.IGNORECASE,
)
_STRONG_CLOSING = re.compile(rf"^(?:{_SIGN_OFF})", re.IGNORECASE)
_COMMENTARY_HEADER = re.compile(
    r"^(?:a\s+)?(?:notes?|explanation|analysis|commentary|breakdown|about|details|key|structure|"
    r"form|poetic devices|literary devices|why (?:this|it) works)\b[^:]{0,60}:$",
    re.IGNORECASE,
)
_METADATA = re.compile(
    r"^(?:form|poetic form|rhyme scheme|rhyming scheme|meter|metre|theme|style|structure|"
    r"subject|topic|word count|syllable count|tone|mood|end[- ]?words|radif|qafia|qafiya|"
    r"qaafiya)\s*:\s*\S",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S")
#: A bullet naming a property of the poem ("- Rhyme: ABAB", "* **Meter:** iambic"), matched
#: against chat text (where a "*" bullet is already gone): a wider set of keys than a plain
#: metadata line, since a verse line seldom starts with a bullet.
_METADATA_BULLET = re.compile(
    r"^(?:[-•]|\d+[.)])?\s*(?:rhymes?|rhyming|rhyme scheme|meter|metre|form|stanzas?|"
    r"syllables?|syllable count|lines?|line count|length|tone|mood|theme|imagery|volta|refrains?|"
    r"structure|style|word count|(?:poetic |literary )?devices?)\s*:\s*\S",
    re.IGNORECASE,
)


_QUOTE_LIMIT = 80


def _quote(line: str) -> str:
    """A removed line as a note quotes it: stripped, shortened, in repr quotes."""
    line = line.strip()
    return repr(line if len(line) <= _QUOTE_LIMIT else line[: _QUOTE_LIMIT - 1] + "…")


_EMPHASIS_MARKS = re.compile(r"(\*\*|__|\*|_)")


def _plain(line: str) -> str:
    """The line without markdown emphasis and surrounding spaces (for matching only)."""
    if "*" not in line and "_" not in line:
        return line.strip()
    return _EMPHASIS_MARKS.sub("", line).strip()


#: The shared apostrophes and the no-break space, read as their plain forms when matching chat
#: vocabulary: "Here’s a sonnet" is the same opener as "Here's a sonnet", "Here\u00a0is" the
#: same as "Here is".
_TYPOGRAPHIC = apostrophe_table({"\u00a0": " "})


def _chat_text(line: str) -> str:
    """`_plain(line)` with typographic apostrophes and no-break spaces made plain: the text that
    chat vocabulary is matched against (only for matching: the poem keeps its characters)."""
    return _plain(line.translate(_TYPOGRAPHIC))


#: How many lead-ins or disclaimers `_is_preamble` reads past before an opener ("Hello! Got it!
#: Here's a ballad:"): a line of them repeated thousands of times, as a model stuck in a loop
#: writes ("Yes! Yes! Yes! ..."), is no preamble, and is not read to Python's recursion limit.
_LEAD_INS = 3


def _is_preamble(line: str, depth: int = 0) -> bool:
    """An opening line of chat ("Sure! Here is a sonnet about ...:"), never a verse line.

    An opener alone is not enough ("Here is the gate, and here the garden wall"): the line must
    also speak about the poem and end like a sentence. `depth`: lead-ins read past already.
    """
    text = _chat_text(line)
    if not text:
        return False
    if _INTERJECTION.match(text) or _METADATA.match(text) or _POEM_LABEL.match(text):
        return True
    if text.endswith((",", ";")):  # runs on into the next line, as verse does
        return False
    if _DISCLAIMER_LINE.match(text) and _PERSONAL.search(text):
        return True
    disclaimer = _DISCLAIMER.match(text) if depth < _LEAD_INS else None
    if disclaimer:  # "As an AI, I don't have feelings, but here's a sonnet about love:"
        rest = text[disclaimer.end() :]
        about = _FORM_RE.search(rest) or _META_RE_I.search(rest)
        if _is_preamble(rest, depth + 1):
            return True
        if about and _DISCLAIMED_OFFER.match(rest) and rest[-1] in ".!:":
            return True
    prefix = _CHAT_PREFIX.match(text)
    rest = text[prefix.end() :] if prefix else text
    if prefix and not rest:
        return True
    if not prefix and depth < _LEAD_INS:
        lead_in = _LEAD_IN.match(text)
        if lead_in and _is_preamble(text[lead_in.end() :], depth + 1):
            return True
    if prefix and _CONSENT.match(rest):
        return True
    about_poem = bool(_FORM_RE.search(rest) or _META_RE_I.search(rest))
    sentence_end = text[-1:] in {".", ":", "!", ")"} or re.search(r"\byour?\b", text, re.I)
    if _PREAMBLE_OPENER.match(rest) and (
        about_poem or re.search(r"\bhere (?:you go|it is)\b", rest, re.I)
    ):
        return bool(sentence_end)
    if prefix and about_poem and re.search(r"\b(?:i|i'll|i'd|i've|you|your|here)\b", rest, re.I):
        return bool(sentence_end)
    return bool(text.endswith(":") and _FORM_RE.search(text) and _META_RE.search(text))


def _is_meta_prose(line: str) -> bool:
    """A prose sentence about the poem (rhyme scheme, form, the request)."""
    text = _chat_text(line)
    words = text.split()
    hits = len(_META_RE.findall(text)) + len(_FORM_RE.findall(text))
    return len(words) >= 10 and hits >= 2 and text[-1:] in {".", ":", "!", ")"}


_HEADING_TEXT = re.compile(r"^#{1,6}\s+(.+?)\s*#*$")
_PARENTHESISED = re.compile(r"^\((.+)\)$|^\[(.+)\]$")


def _commentary_text(line: str) -> str:
    """The chat text of a line that may be commentary: a markdown heading ("## Analysis") reads
    as a header ("Analysis:"), a bracketed remark ("(Word count: 64)", "[Rhyme scheme: ABAB]")
    without its brackets."""
    text = _chat_text(line)
    heading = _HEADING_TEXT.match(text)
    if heading:
        text = heading.group(1).rstrip(": ") + ":"
    return _unbracketed(text)


def _unbracketed(text: str) -> str:
    """`text` without one pair of round or square brackets around the whole of it ("(Word
    count: 64)", "[Rhyme scheme: ABAB]")."""
    enclosed = _PARENTHESISED.match(text)
    return (enclosed.group(1) or enclosed.group(2)).strip() if enclosed else text


def _is_glued_closing(line: str) -> bool:
    """A line that ends an answer even with no blank line before it: a sign-off ("I hope you
    enjoy it!") or a metadata line ("Rhyme scheme: ABAB", "(Word count: 64)", "- Meter: ...")."""
    text = _commentary_text(line)
    if not text:
        return False
    bullet = _BULLET.match(line) and _METADATA_BULLET.match(text)
    emoji = _EMOJI_ONLY.match(text)
    return bool(_STRONG_CLOSING.match(text) or _METADATA.match(text) or bullet or emoji)


#: "The End" or "Fin" under the poem, in title case or capitals, perhaps bracketed or between
#: dashes or tildes ("(The End)", "— THE END —", "~ Fin ~"); a verse line "The end." stays.
_THE_END = re.compile(r"^[~—–\-\s]*(?:The End|THE END|Fin|FIN)[.!]?[~—–\-\s]*$")


def _is_commentary(line: str) -> bool:
    text = _commentary_text(line)
    if not text:
        return True
    if _THE_END.match(text) or _EMOJI_ONLY.match(text):
        return True
    if _COMMENTARY_HEADER.match(text) or _METADATA.match(text):
        return True
    if _CLOSING_OPENER.match(text):
        # "The poem" or "This sonnet" opening a verse line needs more evidence of prose.
        form_start = re.match(rf"^(?:this|the|my|in this|in the) (?:{_FORMS})\b", text, re.I)
        if not form_start:
            return True
        rest = text[form_start.end() :]
        return bool(_META_RE.search(rest) or _META_RE_I.search(rest)) or len(text.split()) >= 14
    if _BULLET.match(line) and (_META_RE_I.search(text) or _METADATA_BULLET.match(text)):
        return True
    return _is_meta_prose(line)


def paragraph_sizes(lines: list[str]) -> list[int]:
    """The number of lines of each paragraph (stanza) of `lines`, blank lines between."""
    sizes = [0]
    for line in lines:
        if line.strip():
            sizes[-1] += 1
        elif sizes[-1]:
            sizes.append(0)
    return [size for size in sizes if size]
