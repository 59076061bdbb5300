"""The form check's pass threshold, the paper's 0.7 (App. B), in a module of its own with no
imports: the checker judges by it, the analysis tables and figures name it in their captions,
and the command line shows it as `--threshold`'s default without loading the checker."""

#: A poem passes when each of its applicable form, metre and rhyme scores reaches this.
DEFAULT_THRESHOLD = 0.7
