"""Human poem datasets: schema, loading, validation and download."""

from __future__ import annotations

from poemetric.data.dataset import Dataset, load_dataset, resolve_dataset
from poemetric.data.io import DatasetError, ValidationIssue, read_table, write_dataset
from poemetric.data.registry import DatasetEntry, dataset_registry, get_entry
from poemetric.data.schema import (
    POEMETRIC_COLUMNS,
    Poem,
    PoemForm,
    derive_poem_id,
    normalize_content,
    normalize_rhyme_pattern,
    rhyme_groups,
    slugify,
)
from poemetric.data.validation import ValidationReport, validate_file

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
