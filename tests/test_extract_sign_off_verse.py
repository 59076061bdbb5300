"""A poem's last line that opens as a chat sign-off does ("Please let me know", "Would you like",
"Feel free", "If you'd like") but asks for something other than more of the poem stays verse:
it was cut as a closing remark. The chat those words open is still removed.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import POEM

from poemetric.extraction import extract_poem

VERSE_ENDINGS = [
    "Please let me know your name.",
    "Let me know when you come home.",
    "Let me know your heart, my dear.",
    "Would you like to see the sea?",
    "Would you like to hear a song?",
    "Would you like me to stay?",
    "Would you like another cup of tea?",
    "Would you like more wine, my love?",
    "Would you like a different life?",
    "Feel free to wander where you will.",
    "Please feel free to sing along.",
    "If you'd like me to go, I'll go.",
    "If you would like another dawn, then wait.",
    "If you'd like, I can stay.",
    "Want me to try a darker road?",
]


@pytest.mark.parametrize("ending", VERSE_ENDINGS)
def test_a_last_verse_line_worded_like_a_sign_off_is_kept(ending: str) -> None:
    glued = POEM + "\n" + ending
    assert extract_poem(glued).poem == glued
    apart = POEM + "\n\n" + ending
    assert extract_poem(apart).poem == apart


CHAT = [
    "Let me know if you'd like any changes.",
    "Please let me know your thoughts.",
    "Let me know what you think!",
    "Let me know!",
    "Feel free to ask for another version.",
    "Please feel free to adjust it.",
    "Would you like me to write another one?",
    "Would you like me to revise the meter?",
    "Would you like me to include a title?",
    "Would you like me to incorporate more nature imagery?",
    "Would you like another?",
    "Would you like another version in tetrameter?",
    "Would you like a different rhyme scheme?",
    "Would you like any changes?",
    "Would you like more?",
    "Would you like more like this?",
    "Would you like a shorter version?",
    "Would you like to see a darker take on the same idea?",
    "Would you like to see another?",
    "Would you like to read it in free verse?",
    "If you'd like me to adjust the tone, just say.",
    "If you'd like a different ending, I can write one.",
    "If you'd like, I can make it more melancholy.",
    "Want me to try a darker take?",
    "Shall I write a lighter version?",
]


@pytest.mark.parametrize("chat", CHAT)
def test_the_sign_off_itself_is_still_removed(chat: str) -> None:
    for answer in (POEM + "\n" + chat, POEM + "\n\n" + chat):
        result = extract_poem(answer)
        assert result.poem == POEM, (answer, result.notes)
        assert any(note.startswith("removed closing remark") for note in result.notes)
