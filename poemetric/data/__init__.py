"""Human poem datasets: schema, loading, validation and download.

The names below are imported from their modules on first use, so that reading a table with
`poemetric.data.io` (what `poemetric form check` does) loads neither the dataset registry and
YAML nor the pydantic schema.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poemetric.data.dataset import Dataset, load_dataset, resolve_dataset
    from poemetric.data.io import DatasetError, ValidationIssue, read_table, write_dataset
    from poemetric.data.normalize import normalize_content, normalize_rhyme_pattern, rhyme_groups
    from poemetric.data.poem_ids import derive_poem_id, slugify
    from poemetric.data.registry import DatasetEntry, dataset_registry, get_entry
    from poemetric.data.schema import POEMETRIC_COLUMNS, Poem, PoemForm
    from poemetric.data.validation import ValidationReport, validate_file

_MODULE_OF = {
    "Dataset": "dataset",
    "load_dataset": "dataset",
    "resolve_dataset": "dataset",
    "DatasetError": "io",
    "ValidationIssue": "io",
    "read_table": "io",
    "write_dataset": "io",
    "DatasetEntry": "registry",
    "dataset_registry": "registry",
    "get_entry": "registry",
    "POEMETRIC_COLUMNS": "schema",
    "Poem": "schema",
    "PoemForm": "schema",
    "derive_poem_id": "poem_ids",
    "normalize_content": "normalize",
    "normalize_rhyme_pattern": "normalize",
    "rhyme_groups": "normalize",
    "slugify": "poem_ids",
    "ValidationReport": "validation",
    "validate_file": "validation",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)


__all__ = [
    "POEMETRIC_COLUMNS",
    "Dataset",
    "DatasetEntry",
    "DatasetError",
    "Poem",
    "PoemForm",
    "ValidationIssue",
    "ValidationReport",
    "dataset_registry",
    "derive_poem_id",
    "get_entry",
    "load_dataset",
    "normalize_content",
    "normalize_rhyme_pattern",
    "read_table",
    "resolve_dataset",
    "rhyme_groups",
    "slugify",
    "validate_file",
    "write_dataset",
]
