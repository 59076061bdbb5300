"""Generation stage: one prompt per poem sent to every model, the poem extracted from the answer.

Entry points: `run_generation(store, specs, *, options) -> StageReport`
(`poemetric.generation.stage`) and `extract_poem` (`poemetric.generation.extract`). The batch
runner it uses is shared with the other stages and lives in `poemetric.runner`.
"""
