"""The box-to-card assignment solver against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.vision.assign import best_assignment


@st.composite
def _costs(draw):
    n = draw(st.integers(1, 5))
    m = draw(st.integers(n, 7))
    cells = draw(st.lists(st.sampled_from([0.0, -0.6, -0.72, -0.81, -0.89, -0.97, -1.0]), min_size=n * m,
                          max_size=n * m))
    return np.array(cells).reshape(n, m)


@settings(max_examples=200, deadline=None)
@given(_costs())
def test_best_assignment_is_as_sure_as_the_best_of_every_assignment(cost):
    """The solver's total equals the least total over every one-to-one
    assignment (confidences as negative costs, 0 for "nothing")."""
    n, m = cost.shape
    pick = best_assignment(cost)
    assert sorted(set(pick)) == sorted(pick) and all(0 <= j < m for j in pick)
    best = min(sum(cost[i, p[i]] for i in range(n)) for p in itertools.permutations(range(m), n))
    assert sum(cost[i, j] for i, j in enumerate(pick)) == pytest.approx(best)


def test_more_rows_than_columns_is_refused():
    with pytest.raises(ValueError):
        best_assignment(np.zeros((3, 2)))


def test_no_rows_no_pairs():
    assert best_assignment(np.zeros((0, 4))) == []
