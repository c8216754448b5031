"""The best one-to-one assignment of boxes to cards (Hungarian method).

Each localiser box read one or more cards; each card (but a face-down
one) lies in one place only.  Taking the boxes greedily, surest read
first, loses a card in a fan: the middle card's box reads its right
neighbour's index surer (0.89) than its own (0.72), takes the neighbour,
and the neighbour's own box (0.81) is left with nothing.  The assignment
that makes the whole picture surest - the most confidence summed over the
boxes - gives each of the three its card.

:func:`best_assignment` solves it exactly (Kuhn-Munkres with potentials,
O(n^2 m) in numpy; a picture has tens of boxes).
"""

from __future__ import annotations

import numpy as np


def best_assignment(cost: np.ndarray) -> list[int]:
    """Column of each row minimising the summed cost, each column used at
    most once (``rows <= columns``; give each row a column of its own at
    cost 0 for "nothing").

    >>> best_assignment(np.array([[-0.98, 0, 0], [0, -0.81, 0]]))
    [0, 1]
    >>> best_assignment(np.array([[-0.89, -0.72], [-0.81, 0.0]]))  # the fan
    [1, 0]
    """
    cost = np.asarray(cost, np.float64)
    n, m = cost.shape
    if n == 0:
        return []
    if n > m:
        raise ValueError("more rows than columns")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    p = np.zeros(m + 1, np.int64)  # row (1-based) holding each column, 0: free
    way = np.zeros(m + 1, np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used[1:]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    out = [-1] * n
    for j in range(1, m + 1):
        if p[j]:
            out[p[j] - 1] = j - 1
    return out


__all__ = ["best_assignment"]
