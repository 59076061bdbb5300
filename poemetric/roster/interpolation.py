"""`${VAR}` interpolation of a model file's fields (`INTERPOLATED_FIELDS`), which refuses a
variable that names a secret: an interpolated value is stored with every result and shown in
messages, where an API key must never be (it belongs in `api_key_env`)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from poemetric.data.yaml_fields import line_of
from poemetric.redaction import shaped_like_key
from poemetric.roster.base import RosterFileError

INTERPOLATED_FIELDS = ("model", "display_name", "base_url")
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


#: Variable names that hold secrets: never interpolated into a stored field.
_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTHORIZATION", re.IGNORECASE
)
#: In `base_url` also a password's or a login's short name, where a value would become the
#: URL's login: the whole name (`PASS`, `AUTH`), or its last '_'-separated part (`PROXY_PASS`,
#: `PROXY_PWD`, `PROXY_LOGIN`). A first or middle part names a host or a model
#: (`LOGIN_NODE`, `AUTH_HOST`, `PASS_THROUGH_MODEL`), and the shell's `PWD`, `OLDPWD` and
#: `LOGIN` are a directory and a user name: all replaced.
_URL_SECRET_NAME = re.compile(
    r"^(?:PASS|PW|AUTH|CRED|CREDS|USERINFO)$|_(?:PASS|PWD|PW|AUTH|CRED|CREDS|LOGIN|USERINFO)$",
    re.IGNORECASE,
)


def _names_secret(variable: str, field: str) -> bool:
    return bool(
        _SECRET_NAME.search(variable) or (field == "base_url" and _URL_SECRET_NAME.search(variable))
    )


def interpolate(path: Path, data: dict[str, Any], node: yaml.Node | None) -> dict[str, Any]:
    """`data` with each `${VAR}` (or `${VAR:-default}`) of `INTERPOLATED_FIELDS` replaced by the
    environment's value; a variable that names a secret, an unset one without a default, or
    `${...}` in another field is a `RosterFileError` naming the file and line of `node`."""
    result = dict(data)
    for field in INTERPOLATED_FIELDS:
        value = result.get(field)
        if not isinstance(value, str):
            continue

        def substitute(match: re.Match[str], field: str = field) -> str:
            variable, default = match.group(1), match.group(2)
            if _names_secret(variable, field):
                raise RosterFileError(
                    f"{path}:{line_of(node, (field,))}: {field}: ${{{variable}}} names a "
                    "secret; name it in api_key_env instead (write `api_key_env: "
                    f"{variable}`: its value is sent as the API key and never stored), and "
                    f"take it out of {field}: an interpolated value is stored with every "
                    "result and shown in messages",
                    f"{field}: ${{{variable}}} names a secret (use api_key_env)",
                )
            found = os.environ.get(variable)
            if found:
                return found
            if default is not None:
                return default
            raise RosterFileError(
                f"{path}:{line_of(node, (field,))}: {field}: environment variable {variable} is "
                "not set and has no default (write ${" + variable + ":-default})",
                f"unset variable {variable}",
            )

        result[field] = _ENV_RE.sub(substitute, value)
    for field, value in data.items():
        if field not in INTERPOLATED_FIELDS and isinstance(value, str) and _ENV_RE.search(value):
            name = unsigiled(value)
            hint = (  # `api_key_env: ${MY_KEY}`: the name is what it takes
                f" (api_key_env takes the variable's name itself: write `api_key_env: {name}`)"
                if field == "api_key_env" and is_variable_name(name)
                else ""
            )
            raise RosterFileError(
                f"{path}:{line_of(node, (field,))}: {field}: ${{...}} is only replaced in "
                f"{', '.join(INTERPOLATED_FIELDS)}{hint}",
                f"{field}: ${{...}} is only replaced in {', '.join(INTERPOLATED_FIELDS)}"
                + (f" (drop the '$': {name})" if hint else ""),
            )
    return result


def is_variable_name(value: str) -> bool:
    """An environment variable's name, not a key: keys have '-', are long runs of letters and
    digits without '_' (hex keys), or start as keys do (`hf_...`, `AIza...`, which may hold '_')."""
    name = bool(_ENV_NAME_RE.match(value)) and (len(value) < 32 or "_" in value)
    return name and not shaped_like_key(value)


def unsigiled(value: str) -> str:
    """`value` without a shell reference's `$` or `${...}` (itself when it has none)."""
    if value.startswith("${") and value.endswith("}"):
        return value[2:-1]
    return value[1:] if value.startswith("$") else value
