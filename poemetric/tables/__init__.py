"""Result tables as CSV, LaTeX (booktabs) and Markdown: readable headers (`headers`), how one cell
prints (`cells`), the Markdown (`markdown`) and LaTeX (`latex`, `latex_layout`, `latex_width`)
writers and `write.write_table`. Shared: the analysis, the probes and the report print their
tables with them. Nothing is imported here, so that `markdown` loads without pandas."""
