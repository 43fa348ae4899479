"""How a chart's set of frames is split among the frame workers (:mod:`webui.frames_pool`): the
positions nearest the slider's value first, split among the workers; then the rest in chunks."""

from __future__ import annotations

NEAR = 16
"""Positions of a chart's set computed first, the nearest to the slider's value (:func:`nearest`)."""


def nearest(grid: list, value, count: int = NEAR) -> list:
    """The ``count`` positions of ``grid`` (ascending) nearest to ``value`` by their place in it
    (as many on each side as the grid's ends allow), in grid order: where a drag from ``value``
    goes first, one step at a time."""
    import bisect

    if len(grid) <= count:
        return list(grid)
    i = bisect.bisect_left(grid, value)
    if i == len(grid) or (i > 0 and value - grid[i - 1] <= grid[i] - value):
        i -= 1  # the grid's position nearest to the value
    low = min(max(0, i - count // 2), len(grid) - count)
    return list(grid[low : low + count])


def split(positions: list, workers: int) -> list[list]:
    """``positions`` split among ``workers``, every worker's part spread over them (positions k,
    k + n, k + 2n...): a set costs its slowest part, and a grid's costly end (a frontier's many
    points at large ε) is shared."""
    return [positions[k::workers] for k in range(workers) if positions[k::workers]]


def chunks(positions: list, workers: int) -> list[list]:
    """``positions`` in chunks of about :data:`NEAR`, at least one per worker, each spread over
    them (positions k, k + m, k + 2m... for m chunks), so that every chunk costs about the same."""
    m = max(workers, -(-len(positions) // NEAR))
    return [positions[k::m] for k in range(m) if positions[k::m]]
