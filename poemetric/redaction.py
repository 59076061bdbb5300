"""Keep API keys out of everything POEMetric stores, writes or prints.

`Redactor` is the one place that decides what of a key a text may not contain. It knows the
values of the key variables it is given (the model file's `api_key_env`, else the provider's
`default_key_envs`), of the usual key variables (`COMMON_SECRET_ENV`) and of every key this
process has read through `resolve_api_key` (`remember_secret`), each as set and with surrounding
whitespace stripped. It replaces with `***`:

* a key itself;
* a word (a run of characters between spaces, quotes, brackets, ``,;:=&?|\\``) holding 8 or more
  consecutive characters of a key: a key cut by a truncated message, or shortened by pydantic's
  ``input_value='sk-abc...xyz'``. Eight digits, or eight letters of one case, are left alone:
  they could be an ordinary number or word ("required" in a dummy key "sk-no-key-required");
* a masked key, a word with ``***`` (or ``•••``, ``...``) after the first 4 or more characters
  of a key or before its last 4 or more, as the OpenAI API answers a wrong key
  ("Incorrect API key provided: sk-abcd****************wxyz");
* in error texts only, anything shaped like a key (``sk-...``, ``AIza...``, ``hf_...``,
  ``Bearer ...``) and a URL's user part (``http://user:pass@host`` becomes
  ``http://***@host``); a model's answer or raw response (`Redactor.response`) keeps such words.

A model's `base_url` may carry a login (``http://user:pass@proxy/v1``): `url_without_credentials`
is how every message shows it, and `remember_url_credentials` (called when a model file is loaded
and when an adapter is made) makes its password, its ``user:pass`` pair and the ``Basic`` header
made of them secrets of error texts, logs and messages (`__call__`). A model's answer
(`response`) loses only those that look random (`looks_random`): a password chosen by a person
("Nightingale") may be a word of a poem, which a model never sees the login to write.

A query parameter named as a secret (``?key=...``, which google-genai keeps on every call of a
Gemini proxy's `base_url`; ``&access_token=...``) is treated as that login is: its value is shown
as ``***`` (``KEY`` in a line to copy) and redacted like a password.

The runner applies it to every response and error before they reach the run store, the cache,
the call log or the terminal; the adapters to their errors and raw responses; the command line
to a crash's traceback.
"""

from __future__ import annotations

import os
import re
from base64 import b64encode
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import unquote

#: Environment variables that commonly hold credentials, redacted wherever they might echo.
COMMON_SECRET_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "DEEPSEEK_API_KEY",
    "TOGETHER_API_KEY",
    "OPENROUTER_API_KEY",
)
MARK = "***"
#: Shorter values are not treated as secrets (they would blank out ordinary text).
MIN_SECRET_CHARS = 6
#: Consecutive characters of a key that make a fragment recognisable.
FRAGMENT_CHARS = 8
#: Characters of a key's start or end that make a masked key recognisable.
MASK_EDGE_CHARS = 4
_KEY_PATTERNS = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|"
    r"hf_[A-Za-z0-9]{16,}|(?i:bearer)\s+[A-Za-z0-9._\-]{8,})"
)
#: A word that starts shaped like a key (`_KEY_PATTERNS` not inside a word: "task-scheduler"
#: holds "sk-scheduler").
_KEY_SHAPED_WORD = re.compile(rf"(?<![A-Za-z0-9_\-])(?:{_KEY_PATTERNS.pattern})")
#: A word that may hold (part of) a key; shorter ones cannot be a fragment or a masked key.
_WORD = re.compile(r"[^\s\"'`,;:=&?|\\()\[\]{}<>]{4,}")  # 4: MASK_EDGE_CHARS
_MASK = re.compile(r"[*\u2022]{3,}|\.{3,}|\u2026")
#: A URL's scheme and user part (up to the last '@' before the host's end).
_URL_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)@")
#: The placeholders of a URL to copy (`url_to_copy`), which a message keeps.
LOGIN_PLACEHOLDERS = ("USER:PASSWORD", "USER")
#: The same anywhere in an error text (an SDK's message quoting the URL it called).
_URL_USERINFO_IN_TEXT = re.compile(
    r"\b([A-Za-z][A-Za-z0-9+.\-]*://)(?!(?:USER:PASSWORD|USER)@)[^\s/?#\"'<>]+@"
)

#: A URL query's parameter named as a secret (``?key=AIza...``, ``&access_token=...``, a
#: proxy's ``?api-key=...``), and its value; not the placeholder `KEY_PLACEHOLDER`.
KEY_PLACEHOLDER = "KEY"
_QUERY_SECRET = re.compile(
    r"([?&](?:[^=&#\s\"'<>]*[_.\-])?"
    r"(?:api_?key|key|token|secret|password|passwd|auth|sig|signature|credentials?)=)"
    rf"(?!{KEY_PLACEHOLDER}(?:[&#\s\"'<>]|$))([^&#\s\"'<>]+)",
    re.IGNORECASE,
)

#: A URL's login this long, of letters and digits both, is taken for a generated secret.
RANDOM_LOGIN_CHARS = 16
#: The characters that end a URL's host part: a raw one in a login hides the login's end.
_URL_DELIMITERS = re.compile(r"[/?#]")
#: A URL whose start reads as ``user:`` then anything up to an '@'; not an IPv6 host
#: (``http://[::1]:8000/v1?mail=a@b``), whose '[' no user name holds.
_URL_LOGIN_START = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://[^@/?#:\[]*:([^@]*)@")

#: Keys this process has read (`resolve_api_key`), redacted by every `Redactor` made after.
_remembered: set[str] = set()
#: Logins of URLs this process has read (`remember_url_credentials`), likewise.
_remembered_logins: set[str] = set()


def remember_secret(value: str) -> None:
    """Treat `value` as a key from now on, whatever variable it came from."""
    if len(value.strip()) >= MIN_SECRET_CHARS:
        _remembered.add(value.strip())


def url_without_credentials(url: str) -> str:
    """`url` as messages, caches and `models show` give it: a user part and a query's secret
    replaced by `***` (``http://user:pass@host/v1`` -> ``http://***@host/v1``, ``?key=AIza...``
    -> ``?key=***``), the host and path kept."""
    return _QUERY_SECRET.sub(rf"\g<1>{MARK}", _URL_USERINFO.sub(rf"\g<1>{MARK}@", url, count=1))


def url_to_copy(url: str) -> tuple[str, str]:
    """`url` for a line a user copies (a command, a `base_url:` to write), and what to say
    after it: the login replaced by ``USER:PASSWORD`` (``USER`` where it has no password) and
    ``put your login in place of USER:PASSWORD``, so that a pasted line is visibly incomplete
    rather than silently sending ``***``; a query's secret (``?key=...``) likewise becomes
    ``KEY``; `url` itself and "" where it has neither."""
    notes = []
    match = _URL_USERINFO.match(url)
    if match is not None:
        placeholder = LOGIN_PLACEHOLDERS[0 if ":" in match.group(2) else 1]
        url = _URL_USERINFO.sub(rf"\g<1>{placeholder}@", url, count=1)
        notes.append(f"your login in place of {placeholder}")
    url, keys = _QUERY_SECRET.subn(rf"\g<1>{KEY_PLACEHOLDER}", url)
    if keys:
        notes.append(f"your key in place of {KEY_PLACEHOLDER}")
    return url, f"put {' and '.join(notes)}" if notes else ""


def url_credentials(url: str | None) -> tuple[str, ...]:
    """The secrets in `url`'s user part, as written and percent-decoded: the password and the
    ``user:password`` pair, or the user alone where there is no password (a token as user);
    and the pair as the SDKs' HTTP client sends it (``Authorization: Basic <base64>``), which a
    proxy's error page may echo; and the values of its query's secrets (``?key=...``)."""
    queried = [match.group(2) for match in _QUERY_SECRET.finditer(url or "")]
    match = _URL_USERINFO.match(url or "")
    found: tuple[str, ...] = ()
    basic = ""
    if match is not None:
        userinfo = match.group(2)
        user, colon, password = userinfo.partition(":")
        found = (password, userinfo) if colon and password else (user,)
        basic = b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    values = (v for value in (*found, *queried) for v in (value, unquote(value)))
    return tuple(dict.fromkeys(v for v in (*values, basic) if v))


def remember_url_credentials(url: str | None) -> None:
    """Redact the secrets of `url`'s user part (`url_credentials`) from now on: from error
    texts and messages always, from a model's answer where they look random (`looks_random`)."""
    for value in url_credentials(url):
        if len(value.strip()) >= MIN_SECRET_CHARS:
            _remembered_logins.add(value.strip())


def looks_random(login: str) -> bool:
    """A URL's login that a generator made rather than a person chose: at least
    `RANDOM_LOGIN_CHARS` characters, letters and digits both ("x7Kq2Lm9Pw4Rt8Vz"; not
    "Nightingale", not "nightingale2024")."""
    value = login.strip()
    return (
        len(value) >= RANDOM_LOGIN_CHARS
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def has_unreadable_login(url: str) -> bool:
    """`url` has a login with a raw '/', '?' or '#' (``http://user:pa/ss@host``): the login's end
    cannot be told from the host's, so it could be neither masked nor sent. A port
    (``http://host:8000/v1/@x``) or an IPv6 host (``http://[::1]:8000/v1?mail=a@b``) is not a
    login."""
    if _URL_USERINFO.match(url):
        return False
    match = _URL_LOGIN_START.match(url)
    if match is None:
        return False
    return not _URL_DELIMITERS.split(match.group(1), maxsplit=1)[0].isdigit()


class Redactor:
    """Replaces keys, their recognisable fragments and masked forms by '***' (module docstring).

    `env_names` are variables holding keys, besides `COMMON_SECRET_ENV`; `values` are keys given
    directly (an adapter's own key); `logins` the secrets of a URL's user part
    (`url_credentials`), besides those remembered.
    """

    def __init__(
        self,
        env_names: Iterable[str] = (),
        values: Iterable[str | None] = (),
        logins: Iterable[str] = (),
    ) -> None:
        for name in env_names:
            remember_secret(os.environ.get(name) or "")  # for a crash's traceback too
        names = {*COMMON_SECRET_ENV, *(n for n in env_names if n)}
        found = {os.environ.get(name) for name in names} | set(values) | _remembered
        keys = {value for value in found if value}
        all_logins = {v.strip() for v in {*logins, *_remembered_logins}} - keys
        self._in_errors = _Secrets(keys | all_logins)
        # a login's fragment in an answer needs a digit: "Nighting" of "Nightingale2026abcd"
        # would take the word "Nightingale" out of a poem
        self._in_answers = _Secrets(keys, {v for v in all_logins if looks_random(v)})

    def __call__(self, text: str) -> str:
        """An error text or message without keys or anything shaped like one."""
        text = _URL_USERINFO_IN_TEXT.sub(rf"\g<1>{MARK}@", text)
        text = _QUERY_SECRET.sub(rf"\g<1>{MARK}", text)
        return _KEY_PATTERNS.sub(MARK, self._in_errors.removed(text))

    def response(self, text: str) -> str:
        """A model's answer without keys, their pieces or masked forms; unlike `__call__`,
        nothing merely shaped like a key is touched, so that a poem line ("Bearer thunderheads
        of dawn", "the dusk-shrouded hills") keeps its words, and of a URL's login only what
        looks random (`looks_random`) is removed."""
        return self._in_answers.removed(text) if self._in_answers.found_in(text) else text

    def response_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """`response` for JSON-like data (a stored completion, a raw response), string by
        string; `data` itself when no string in it holds a key."""
        if not any(self._in_answers.found_in(text) for text in _strings(data)):
            return data
        result: dict[str, Any] = _map_strings(data, self.response)
        return result

    def contains_secret(self, text: str) -> bool:
        """`text` holds a secret that `__call__` removes."""
        return self._in_errors.found_in(text)


#: Why a model file's setting holding a key is refused (`refused_keys`).
KEY_IN_SETTINGS = (
    "holds an API key (a key variable's value, or a word shaped like one: sk-..., Bearer ...): "
    "settings are stored with every answer and shown in exports and the report; a key comes "
    "only from the variable that api_key_env names"
)


def refused_keys(data: Any, field: str, env_names: Iterable[str] = ()) -> dict[str, str]:
    """`{"FIELD.PLACE": why}` for each place of `data` (a model file's `settings.extra`, named
    `field`) holding a key (`fields_holding_keys`)."""
    places = fields_holding_keys(data, env_names)
    return dict.fromkeys((f"{field}.{place}" for place in places), KEY_IN_SETTINGS)


def shaped_like_key(text: str) -> bool:
    """`text` starts a word shaped like a key (``sk-...``, ``AIza...``, ``hf_...``, ``Bearer ...``),
    not inside a word ("task-scheduler")."""
    return bool(_KEY_SHAPED_WORD.search(text))


def fields_holding_keys(data: Any, env_names: Iterable[str] = ()) -> list[str]:
    """The dotted places in JSON-like `data` (a model file's `settings.extra`) whose string holds
    a key `Redactor(env_names)` knows (the value of a key variable, a piece of it, a URL's
    login) or a word shaped like one (``sk-...``, ``Bearer ...``): ``"metadata.token"``; a list's
    item is named by its list."""
    redactor = Redactor(env_names)
    return [
        place
        for place, text in _places(data, "")
        if redactor.contains_secret(text) or shaped_like_key(text)
    ]


def _places(data: Any, place: str) -> Iterator[tuple[str, str]]:
    if isinstance(data, str):
        yield place, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _places(value, f"{place}.{key}" if place else str(key))
    elif isinstance(data, list | tuple):
        for value in data:
            yield from _places(value, place)


class _Secrets:
    """Finds and removes some secrets, their fragments and masked forms. A fragment of a value
    in `digit_fragments` counts only where it holds a digit."""

    def __init__(self, values: Iterable[str], digit_fragments: Iterable[str] = ()) -> None:
        digit_only = set(digit_fragments)
        secrets = {v for value in {*values, *digit_only} for v in (value, value.strip())}
        self._values = sorted(
            (v for v in secrets if len(v.strip()) >= MIN_SECRET_CHARS), key=len, reverse=True
        )
        stripped = {v.strip() for v in self._values}
        self._grams = {
            gram
            for value in stripped
            for gram in (value[i : i + FRAGMENT_CHARS] for i in range(len(value)))
            if len(gram) == FRAGMENT_CHARS
            and not _word_like(gram)
            and (value not in digit_only or any(c.isdigit() for c in gram))
        }
        self._stripped = sorted(stripped)

    def found_in(self, text: str) -> bool:
        if any(value in text for value in self._values):
            return True
        return bool(self._stripped) and any(
            self._is_secret_word(m.group().rstrip(".")) for m in _WORD.finditer(text)
        )

    def removed(self, text: str) -> str:
        for value in self._values:
            text = text.replace(value, MARK)
        if not self._stripped:
            return text
        return _WORD.sub(self._word_removed, text)

    def _word_removed(self, match: re.Match[str]) -> str:
        word = match.group()
        core = word.rstrip(".")  # a full stop after a key stays
        return MARK + word[len(core) :] if self._is_secret_word(core) else word

    def _is_secret_word(self, word: str) -> bool:
        grams, size = self._grams, FRAGMENT_CHARS
        if any(word[i : i + size] in grams for i in range(len(word) - size + 1)):
            return True
        if not _MASK.search(word):
            return False
        pieces = _MASK.split(word)
        head, tail = pieces[0], pieces[-1]
        return (
            len(head) >= MASK_EDGE_CHARS and any(v.startswith(head) for v in self._stripped)
        ) or (len(tail) >= MASK_EDGE_CHARS and any(v.endswith(tail) for v in self._stripped))


def _word_like(gram: str) -> bool:
    """Digits only, or letters of one case only: possibly an ordinary number or word, not a
    recognisable key fragment."""
    return gram.isdigit() or (gram.isalpha() and (gram.islower() or gram.isupper()))


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(data, list | tuple):
        for value in data:
            yield from _strings(value)


def _map_strings(data: Any, change: Callable[[str], str]) -> Any:
    if isinstance(data, str):
        return change(data)
    if isinstance(data, dict):
        return {_map_strings(k, change): _map_strings(v, change) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_map_strings(value, change) for value in data]
    return data
