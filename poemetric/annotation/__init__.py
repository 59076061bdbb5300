"""Human annotation tasks that are not the expert survey: the line-level fluency / coherence
task of the ghostwriting evaluation (task data, printable sheets, import)."""
