"""Style matching (Potash, Romanov & Rumshisky, Sec. 4.1) as an LLM-judge protocol run through
the batch runner: `poemetric ghostwriting style-match`. Trials in `trials`, the strict answer
parser in `answer`, the stage in `stage`."""
