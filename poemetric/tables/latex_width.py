"""Printed widths of table cells in LaTeX's default font, for laying tables out on a page.

Widths are Computer Modern Roman's (cmr10 `.tfm` advance widths, in em) for printable ASCII;
LaTeX's special characters are measured as the escaped commands print them, and any other
character as a wide letter, with 3% to spare for kerns and the space after a full stop. An
average glyph width (4.6 pt) underestimated names in capitals (`DeepSeek-R1-Distill-Llama-70B`)
and overestimated numbers, so tables near the page width came out wider than the page.
"""

from __future__ import annotations

#: cmr10 advance widths in em, grouped: (em, characters).
_EM_WIDTHS: tuple[tuple[float, str], ...] = (
    (0.278, "!',.:;[]`il"),
    (0.306, "fj"),
    (0.333, "-"),
    (0.361, "I"),
    (0.389, "()t"),
    (0.392, "r"),
    (0.394, "s"),
    (0.444, "cez"),
    (0.472, "?"),
    (0.5, "*/0123456789ago"),
    (0.514, "J"),
    (0.528, "kqvxy"),
    (0.556, "Sbdhnpu"),
    (0.611, "Z"),
    (0.625, "L"),
    (0.653, "F"),
    (0.681, "EP"),
    (0.708, "B"),
    (0.722, "CTw"),
    (0.736, "R"),
    (0.75, "AHNUVXY"),
    (0.764, "D"),
    (0.778, "&+=@KOQ"),
    (0.785, "G"),
    (0.833, "#%m"),
    (0.917, "M"),
    (1.028, "W"),
    # as escaped: \$ \{ \} \textbackslash \textasciitilde \textasciicircum \_ (and '"', 0.5)
    (0.5, '"$\\^_{}~'),
    # \textless, \textgreater (math italic), \textbar (symbols)
    (0.778, "<>"),
    (0.278, "|"),
)
EM: dict[str, float] = {char: em for em, chars in _EM_WIDTHS for char in chars}
SPACE_EM = 0.333
#: Any other character (accented letters, Greek, dashes): as wide as a capital.
OTHER_EM = 0.75
#: Kerns and the wider space after a full stop add up to 2% (measured on 3,846 table cells).
SAFETY = 1.03
#: \small in an 11 pt document (the preview `tables.tex`); a 10 pt paper sets it at 9 pt.
TABLE_FONT_PT = 10.0


def text_width_pt(text: str, size_pt: float = TABLE_FONT_PT) -> float:
    """The printed width of `text` (unescaped) at `size_pt`, in points; never an underestimate
    for ASCII text in Computer Modern."""
    em = sum(SPACE_EM if c == " " else EM.get(c, OTHER_EM) for c in text)
    return em * size_pt * SAFETY
