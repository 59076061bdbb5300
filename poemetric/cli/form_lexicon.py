"""`--lexicon FILE` of the `form` commands: a user's own pronunciations, read before CMUdict
(`poemetric.form.user_lexicon`; else `$POEMETRIC_LEXICON`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.options import error_exit
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.form.user_lexicon import UserLexicon

LexiconOption = typer.Option(
    None,
    "--lexicon",
    help="Pronunciations of your own, read before CMUdict: lines such as "
    "'KILDARE  K IH0 L D EH1 R' (CMUdict format, # comments). Default: the file named by "
    "$POEMETRIC_LEXICON, if set.",
)


def resolved_lexicon(option: Path | None, console: Console) -> UserLexicon | None:
    """The user lexicon of `--lexicon` (else `$POEMETRIC_LEXICON`; None: neither), said on
    `console` (which file, how many words); a malformed file is `error:` naming the file and
    each bad line (exit 2)."""
    from poemetric.form.user_lexicon import LexiconError, resolve

    try:
        lexicon = resolve(option)
    except LexiconError as error:
        raise error_exit(error) from None
    if lexicon is not None:
        console.print(
            f"user lexicon: {lexicon.source} ({counted(len(lexicon), 'word')}; checks record "
            f"+lexicon-{lexicon.digest})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    return lexicon


@contextmanager
def lexicon_in_use(option: Path | None, console: Console) -> Iterator[None]:
    """Check with the user lexicon of `--lexicon` (else `$POEMETRIC_LEXICON`) within the block
    (`resolved_lexicon`)."""
    from poemetric.form.user_lexicon import using

    with using(resolved_lexicon(option, console)):
        yield


def other_lexicon_note(count: int) -> str:
    """`form run`'s word on the verdicts it made again because they were stored with another
    user lexicon, or with none (or with one, and none is given now): "" when there were none."""
    if not count:
        return ""
    return (
        f"; {counted(count, 'stored check')} made with another user lexicon (or none) "
        "checked again (--lexicon, $POEMETRIC_LEXICON)"
    )
