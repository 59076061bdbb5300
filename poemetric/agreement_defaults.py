"""The bootstrap of the agreement CIs that `analyze`, `report` and the survey's admin page share,
so that all three show a run the same intervals. A module of its own, with no imports: the
command line reads these as the defaults of `--bootstrap` and `--seed` without loading numpy
(`poemetric.reliability`, which uses them, does)."""

#: Bootstrap resamples of the agreement CIs.
AGREEMENT_BOOTSTRAP = 500
#: Seed of those resamples.
BOOTSTRAP_SEED = 0
