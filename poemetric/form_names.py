"""Spellings of the form names, in a module of its own with no imports: the form checker reads a
requested form through `normalize_form`, and the dataset loader reads a row's form the same way
(`Sonnets` is a sonnet in both) without loading the checker (about a second of imports)."""

#: Spellings of the known forms. "Ballade" is not here: it is the French fixed form, not a
#: spelling of "ballad" (poemetric.form.extra_forms).
FORM_ALIASES = {
    "ghazel": "ghazal",
    "sonnets": "sonnet",
    "ballads": "ballad",
    "limericks": "limerick",
    "villanelles": "villanelle",
    "sestinas": "sestina",
    "pantoums": "pantoum",
    "ghazals": "ghazal",
    "double-sestina": "double sestina",
    "ballades": "ballade",
}


def normalize_form(form: str) -> str:
    """`form` lower-cased with its spaces folded, a known spelling read as its form
    (`Sonnets` -> `sonnet`); any other name as it is, for the caller to accept or refuse."""
    key = " ".join(form.strip().lower().split())
    return FORM_ALIASES.get(key, key)
