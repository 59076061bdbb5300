"""Imagery counts (paper App. F, Fig. 11 right): which concrete images each author reaches for.

The paper counted images from "a list of common imagery in English poems" that its authors
designed and used to annotate the human poems; the list itself is not published. POEMetric
counts with:

* `BUNDLED_IMAGERY`: a list written for POEMetric of about 370 concrete, sensory nouns (and a
  few colour words) that recur in English verse, grouped by the sense or domain they appeal to
  (sky and light, weather, water, land, plants, animals, the body, made things, sound, colour,
  the sacred and the dead). Abstract nouns (love, hope, time) are left out: they are not images.
* plus, when the run's dataset annotates each poem's imagery (the `imagery` column of the
  POEMetric dataset), every annotated term, so the count covers the dataset's own vocabulary of
  images. `imagery_lexicon(..., include_dataset=False)` counts with the bundled list alone.

Matching is on tokens (`lexical.tokenize`) without part-of-speech tagging (so the verb "bear"
counts as the animal; the commonest such words, "well" and "fly", are left out), folded to the lexicon's singular form: "eyes" and
"eye's" count as "eye", "lilies" as "lily", "branches" as "branch", "leaves" as "leaf", "feet"
as "foot"; a dataset term whose singular is in the lexicon too ("billows", "billow") is left to
its singular. Per author the table gives
each image's occurrences, the number of poems that use it, the share of the author's poems that
do (`poem_share`, what Fig. 11 shows) and occurrences per 1,000 tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pandas as pd

from poemetric.analysis.data import author_order
from poemetric.text.tokens import tokenize

_IMAGERY_BY_DOMAIN = {
    "sky and light": "sun moon star sky cloud light dawn dusk twilight sunset sunrise shadow "
    "shade flame fire spark ember lightning rainbow candle lamp lantern glow beam ray halo "
    "heaven horizon eclipse comet",
    "weather": "rain snow wind storm frost mist fog thunder hail breeze ice gale dew haze "
    "tempest drizzle sleet cloudburst",
    "water": "sea ocean river stream wave tide shore lake pond brook spring fountain water "
    "foam spray flood rill creek harbor harbour bay island coast cliff current depth "
    "waterfall puddle",
    "land": "hill mountain valley field meadow forest wood tree grass stone rock sand dust "
    "earth road path garden orchard glen moor heath desert plain cave ridge peak shore "
    "soil clay mud pebble boulder lane hedge gate bridge",
    "plants": "rose lily flower leaf petal blossom bloom thorn vine seed root branch bough "
    "oak pine willow moss ivy fern wheat corn daisy violet tulip poppy clover reed rush "
    "weed bud stem fruit apple berry grape cherry acorn elm ash birch cedar laurel myrtle "
    "bramble heather lilac orchid lotus",
    "animals": "bird lark nightingale dove raven crow owl swallow sparrow eagle hawk swan "
    "robin wren thrush gull heron horse hound dog cat wolf fox deer stag lamb sheep fish "
    "bee butterfly moth spider snake serpent lion tiger bear hare rabbit mouse wing "
    "feather nest hen cow bull goat worm cricket whale",
    "body": "eye face hand lip heart breast hair cheek brow tear blood bone skin mouth tongue "
    "breath throat arm finger foot head neck shoulder voice palm wrist knee vein womb "
    "smile kiss sigh ear nose tooth flesh limb",
    "made things": "door window wall house home hearth bell ship sail boat bread wine cup "
    "glass mirror key thread needle loom ring crown sword coin gold silver iron silk lace "
    "clock book letter ink page pen chain cage tower castle church spire grave tomb stair "
    "table chair bed pillow veil cloak gown robe shoe wheel plough plow anchor oar net "
    "rope knife arrow bow shield flag harp lute drum string pearl jewel diamond ruby "
    "coal smoke ash chimney roof street city train",
    "sound": "song bell echo whisper hymn chime music melody drumbeat murmur cry howl roar "
    "thunderclap",
    "colour": "red blue green crimson scarlet white black grey gray golden azure amber "
    "emerald purple violet ivory",
    "sacred and the dead": "god angel heaven hell ghost spirit soul altar cross saint devil "
    "prayer candlelight coffin shroud skull",
}
BUNDLED_IMAGERY: frozenset[str] = frozenset(
    word for words in _IMAGERY_BY_DOMAIN.values() for word in words.split()
)

IMAGERY_COLUMNS = ["author", "rank", "image", "count", "poems", "poem_share", "per_1k_tokens"]


#: Plurals no suffix rule undoes, of images the bundled list or a dataset may hold: "leaves"
#: and "feet" (20 and 22 times in the authors' release) were no image at all, while "leaf" and
#: "foot" were.
IRREGULAR_PLURALS: dict[str, str] = {
    "feet": "foot", "teeth": "tooth", "geese": "goose", "mice": "mouse", "lice": "louse",
    "men": "man", "women": "woman", "children": "child", "oxen": "ox",
}  # fmt: skip


def _singulars(word: str) -> list[str]:
    """The singular forms `word` may be the plural of, most likely first: the -s, -es and -ies
    plurals, an irregular one, then -ves for -f and -fe (leaves, wolves, knives)."""
    candidates = []
    if word.endswith("ies"):
        candidates.append(word[:-3] + "y")
    if word.endswith("es"):
        candidates.append(word[:-2])
    if word.endswith("s"):
        candidates.append(word[:-1])
    if word in IRREGULAR_PLURALS:
        candidates.append(IRREGULAR_PLURALS[word])
    if word.endswith("ves"):
        candidates += [word[:-3] + "f", word[:-3] + "fe"]
    return candidates


def fold(token: str, lexicon: frozenset[str] | set[str]) -> str | None:
    """The lexicon entry a token stands for (plural and possessive folded), or None."""
    word = token.removesuffix("'s").removesuffix("'")
    if word in lexicon:
        return word
    return next((c for c in _singulars(word) if c in lexicon), None)


def imagery_lexicon(
    annotations: Iterable[object] = (), *, include_dataset: bool = True
) -> frozenset[str]:
    """The bundled list, plus the single-word terms of the dataset's imagery annotations
    (comma-separated per poem) when `include_dataset`. A plural term is kept only when its
    singular is in neither: "billows" beside "billow" made two images of one, each poem's
    count going to whichever form it used."""
    if not include_dataset:
        return BUNDLED_IMAGERY
    terms = set()
    for annotation in annotations:
        if not isinstance(annotation, str):
            continue
        for term in annotation.split(","):
            tokens = tokenize(term)
            if len(tokens) == 1:
                terms.add(tokens[0].removesuffix("'s").removesuffix("'"))
    everything = BUNDLED_IMAGERY | terms
    plurals = {term for term in terms - BUNDLED_IMAGERY if fold(term, everything - {term})}
    return frozenset(everything - plurals)


def imagery_counts(
    generations: pd.DataFrame, lexicon: frozenset[str] | None = None, k: int = 20
) -> pd.DataFrame:
    """Per author the k most frequent images (by the number of poems that use them)."""
    if lexicon is None:
        lexicon = imagery_lexicon(generations.get("poem_imagery", pd.Series(dtype=object)))
    rows: list[dict[str, object]] = []
    for author in author_order(generations["author"].unique()):
        poems = generations.loc[generations["author"] == author, "poem"].astype(str)
        occurrences: Counter[str] = Counter()
        in_poems: Counter[str] = Counter()
        tokens_total = 0
        for poem in poems:
            tokens = tokenize(poem)
            tokens_total += len(tokens)
            images = [image for image in (fold(t, lexicon) for t in tokens) if image]
            occurrences.update(images)
            in_poems.update(set(images))
        ranked = sorted(in_poems, key=lambda image: (-in_poems[image], -occurrences[image], image))
        for rank, image in enumerate(ranked[:k], start=1):
            rows.append(
                {
                    "author": author,
                    "rank": rank,
                    "image": image,
                    "count": occurrences[image],
                    "poems": in_poems[image],
                    "poem_share": in_poems[image] / len(poems),
                    "per_1k_tokens": 1000 * occurrences[image] / tokens_total
                    if tokens_total
                    else 0.0,
                }
            )
    return pd.DataFrame(rows, columns=IMAGERY_COLUMNS)
