"""The model roster: one YAML file per model in `generators/` (or `judges/`), plus named groups.

A new model is one new file, never a code edit. Besides the bundled folder, users can add their own
folders through `POEMETRIC_GENERATORS_DIR` / `POEMETRIC_JUDGES_DIR` (several folders separated by
the OS path separator, `:` on Linux). Later folders win: a user file named like a bundled one
replaces it, so a local tweak (say, another tensor-parallel size) needs no edit of the checkout.

Each folder may hold a `groups.yaml` mapping group names to members (model names or other group
names). A model file can also join groups through its own `groups:` field.

String values of `model`, `display_name` and `base_url` may use `${VAR}` or `${VAR:-default}`,
replaced from the environment when the file is loaded (used by `judges/local-openai.yaml`).
Interpolation is limited to these fields so that a secret can never end up inside a spec that is
stored with the results; keys are named by `api_key_env` and read by the providers.

A model file that cannot be used (invalid YAML or fields, an unset `${VAR}`, a provider that is
not installed, an `options:` key its provider does not read) does not stop the roster: it is
listed as unusable, with its reason, and only a command that selects its model fails; `poemetric
models` lists a model whose third-party provider cannot be loaded (a broken entry point) with
them. Errors of the roster as a whole (two files of one model in one folder, a broken
`groups.yaml`, a missing folder) still stop every command.

The package's modules, each with one job: `base` (the kinds, the error, name suggestions),
`yaml_reader` (YAML with line numbers, no duplicate keys), `model_file` (one model file),
`field_errors` (a model file's invalid fields, in YAML's words), `loading` (the folders and every
model in them), `groups` (named groups and `all`) and `selection` (choosing models; the rows of
`poemetric models`). Import from `poemetric.roster`.
"""

from __future__ import annotations

from poemetric.roster.base import (
    ALL_GROUP,
    RosterError,
    RosterFileError,
    RosterKind,
    UnknownModelError,
    UnusableModelError,
)
from poemetric.roster.groups import GROUPS_FILE, groups_with_notes, left_out_joins, load_groups
from poemetric.roster.interpolation import INTERPOLATED_FIELDS
from poemetric.roster.loading import (
    ENV_DIRS,
    Roster,
    RosterEntry,
    UnusableModel,
    load_catalog,
    load_entries,
    load_roster,
    roster_directories,
)
from poemetric.roster.model_file import JUDGE_ONLY_FIELDS, PROVIDER_ONLY_FIELDS, load_model_file
from poemetric.roster.selection import (
    ModelRow,
    display_name_hint,
    get_model,
    list_models,
    list_unusable,
    price_unknown,
    searched,
    select_models,
)

__all__ = [
    "ALL_GROUP",
    "ENV_DIRS",
    "GROUPS_FILE",
    "INTERPOLATED_FIELDS",
    "JUDGE_ONLY_FIELDS",
    "PROVIDER_ONLY_FIELDS",
    "ModelRow",
    "Roster",
    "RosterEntry",
    "RosterError",
    "RosterFileError",
    "RosterKind",
    "UnknownModelError",
    "UnusableModel",
    "UnusableModelError",
    "display_name_hint",
    "get_model",
    "groups_with_notes",
    "left_out_joins",
    "list_models",
    "list_unusable",
    "load_catalog",
    "load_entries",
    "load_groups",
    "load_model_file",
    "load_roster",
    "price_unknown",
    "roster_directories",
    "searched",
    "select_models",
]
