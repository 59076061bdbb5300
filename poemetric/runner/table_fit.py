"""Fitting a summary table to the terminal: wrapped headers, all-zero count columns left out,
and the columns that still do not fit in a second table (run summaries, `merge`'s table)."""

from __future__ import annotations


def fitting_columns(
    columns: list[str], rows: list[list[str]], width: int, *, edge: bool = True
) -> tuple[dict[int, int | None], list[str]]:
    """Column index -> fixed width (None: rich's own) of the columns to show, and the names of
    those left out. Every column when the table fits in `width` as it is; else the headers wrap
    at spaces in columns as wide as their widest word or cell, and when even that is too wide,
    the count columns (all but the first) that are 0 in every row are left out. `edge`: the
    table has a border and padding at its edges (rich's `show_edge`, `pad_edge`), else neither.
    """

    def widest(i: int, header_words: bool) -> int:
        header = columns[i].split() if header_words else [columns[i]]
        return max([*map(len, header), *(len(row[i]) for row in rows)])

    def needed(indices: list[int], header_words: bool) -> int:
        # "│ " before each cell and " │" after the last one; " │ " between cells without edges.
        return (
            sum(widest(i, header_words) for i in indices) + 3 * len(indices) + (1 if edge else -3)
        )

    every = list(range(len(columns)))
    if needed(every, header_words=False) <= width:
        return dict.fromkeys(every), []
    zero = set()
    if needed(every, header_words=True) > width:
        zero = {i for i in every[1:] if rows and all(row[i] == "0" for row in rows)}
    shown = [i for i in every if i not in zero]
    return {i: widest(i, header_words=True) for i in shown}, [columns[i] for i in sorted(zero)]


def column_groups(
    shown: dict[int, int | None], width: int, *, edge: bool = True
) -> list[list[int]]:
    """The columns of `fitting_columns` split into tables that each fit in `width`, every one
    starting with the first column (the model): one table when they all fit. `edge` as in
    `fitting_columns`."""
    if any(w is None for w in shown.values()):
        return [list(shown)]
    groups: list[list[int]] = []
    for index in shown:
        group = groups[-1] if groups else []
        # "│ " before each cell and " │" after the last one, as in `fitting_columns` (without
        # edges: " │ " between cells only).
        if not groups or (
            len(group) > 1
            and sum(shown[i] or 0 for i in [*group, index]) + 3 * len(group) + 4 * edge > width
        ):
            groups.append([] if not groups else [next(iter(shown))])
        groups[-1].append(index)
    return groups
