"""Pull the poem out of a model's answer, conservatively, recording every removal.

Chat models wrap poems in chatter: "Sure! Here is a villanelle about ...:", a bold title, code
fences, stanza labels, "I hope you enjoy it!" and notes on the rhyme scheme. Reasoning models add
`<think>` blocks. The form checker and the judge need the poem alone, so this package removes
those parts, but only when a line is clearly not verse: a removal needs a chat marker (an opener
such as "Here is", a meta word such as "rhyme scheme" or "poem", a markdown construct). When in
doubt the text stays. Each removal is described in `ExtractedPoem.notes`; the raw response is kept
by the caller.

Shared by the generation stage (`poemetric.generation.extract` re-exports it) and `poemetric form
check`, which applies the same extraction to raw answers read from a file.

The package's modules: `reasoning` (separating `<think>` blocks, the reasoning field and
reasoning written after the poem), `classify` (telling chat lines from verse), `revisions`
(keeping the final version of a revised draft), `alternatives` (keeping the first of several
offered poems), `closing` (closing remarks after the poem), `signature` (a model's byline or
signature: "— ChatGPT"), `marks` (counts, scheme letters, labels and numbers on verse lines) and
`pipeline` (`extract_poem` and its other passes).
Import from `poemetric.extraction` itself.
"""

from __future__ import annotations

from poemetric.extraction.pipeline import ExtractedPoem, extract_poem
from poemetric.extraction.reasoning import split_reasoning

__all__ = ["ExtractedPoem", "extract_poem", "split_reasoning"]
