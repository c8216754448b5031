"""The bridge table simulator feeds the demo and the load tests: its clean
boards must be clean by the Laws, and each injected irregularity must be the
one the engine reports."""

from collections import Counter

import pytest

from tablecam.engine import Table
from tablecam.sim.bridge import simulate_board
from tablecam.store import to_item

BOARDS = range(1, 25)


def _kinds(irregularity):
    kinds = Counter()
    for b in BOARDS:
        evs = simulate_board(b, seed=5, irregularity=irregularity)
        for f in Table().feed([to_item(e, i) for i, e in enumerate(evs)]):
            if f.kind not in ("result", "lead_options"):
                kinds[f.kind] += 1
    return kinds


def test_clean_boards_raise_no_finding():
    assert _kinds(None) == Counter()


@pytest.mark.parametrize("irregularity,expected", [
    ("revoke", {"revoke", "trick_transfer"}),
    ("revoke_corrected", {"revoke", "penalty_card"}),
    ("lead_out_of_turn", {"lead_out_of_turn"}),
    ("exposed_card", {"penalty_card"}),
    ("misdeal", {"wrong_card_count"}),
])
def test_injected_irregularity_is_reported(irregularity, expected):
    kinds = _kinds(irregularity)
    assert set(kinds) <= expected and kinds, kinds
    assert sum(kinds[k] for k in expected) >= len(BOARDS) // 2


def test_simulation_is_reproducible():
    assert simulate_board(3, seed=9, irregularity="random") == simulate_board(3, seed=9, irregularity="random")
