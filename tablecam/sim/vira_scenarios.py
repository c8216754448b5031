"""The Vira test logs: complete deals, each going wrong the way one rule describes.

``python -m tablecam.sim.vira_scenarios tests/data/vira`` (re)writes
``tests/data/vira/*.jsonl``; the tests replay those files (also through
``tablecam replay --json``) and check the findings. Each log is a whole deal
from a shuffled pack (seeded, so reproducible): shoe-order deal, bidding,
purchase, 13 tricks (or as far as the rule lets the deal go).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

from .vira_deals import DealSetup, Slip, complete_deal

Log = list[dict[str, Any]]

# Seeds chosen so the declarer has a hand worth the bid (see docs/vira.md).
HEMMA, BET, KODILJ = 168, 101, 154  # E plays 8-spel in spades from a 4-player table, dealer N (W sits out)
KOPMISAR, SOLOMISAR = 4, 47


def _eight(seed: int, **kw: Any) -> Log:
    base: dict[str, Any] = dict(dealer="N", bids=[("E", "8-spel"), ("S", "pass"), ("N", "pass")], trump="S",
                                first_suit="S", buys={"E": 3, "S": 2, "N": 2})
    base.update(kw)
    return complete_deal(seed, **base)


def _deal_index(log: Log, n: int) -> int:
    """Index in ``log`` of the n-th (0-based) deal event."""
    return [i for i, e in enumerate(log) if e["type"] == "deal"][n]


def _cut_after_deal(log: Log) -> Log:
    last = max(i for i, e in enumerate(log) if e["type"] == "deal")
    return log[: last + 1] + [{"type": "end"}]


def _swap_3_4(deals: Log) -> None:
    """The dealer gives forehand's 4th card to mellanhand and then mellanhand's first to forehand."""
    deals[3]["to"], deals[4]["to"] = deals[4]["to"], deals[3]["to"]


def _blue_back(deals: Log) -> None:
    deals[20]["pack"] = "blue"


def e2_deal_order() -> Log:
    return _eight(HEMMA, setup=DealSetup(deal_hook=_swap_3_4))


def e4_face_up() -> Log:
    log = _eight(HEMMA)
    log[_deal_index(log, 9)]["face_up"] = True
    return _cut_after_deal(log)


def e5_other_pack() -> Log:
    return _eight(HEMMA, setup=DealSetup(deal_hook=_blue_back))


def e5_duplicate() -> Log:
    log = _eight(HEMMA)
    log[_deal_index(log, 30)]["card"] = log[_deal_index(log, 2)]["card"]
    return _cut_after_deal(log)


def e7_hand_count() -> Log:
    log = _eight(HEMMA)
    log[_deal_index(log, 38)]["to"] = "E"  # the dealer's own last card goes to forehand: E 14, N 12
    return _cut_after_deal(log)


def e8_talong_count() -> Log:
    log = _eight(HEMMA)
    del log[_deal_index(log, 51)]
    return _cut_after_deal(log)


def f6_talong_before_end() -> Log:
    log = _cut_after_deal(_eight(HEMMA))[:-1]
    talong = [e["card"] for e in log if e["type"] == "deal" and e["to"] == "talong"]
    return log + [{"type": "bid", "seat": "E", "bid": "8-spel"},
                  {"type": "buy", "seat": "S", "cards": talong[:1]}, {"type": "end"}]


def _a4() -> Log:
    """S's unspecified gask over Turné 7: he first names Gask på 0 (too low), then Gask på 2."""
    log = complete_deal(HEMMA, dealer="N", bids=[("E", "Turné 7"), ("S", "Gask"), ("N", "pass"), ("E", "pass")],
                        contract="Gask på 0", trump="H", first_suit="S", buys={"S": 3, "N": 2, "E": 2})
    i = next(i for i, e in enumerate(log) if e["type"] == "contract_choice")
    log.insert(i + 1, {"type": "contract_choice", "seat": "S", "name": "Gask på 2", "source": "operator"})
    return log


SCENARIOS: dict[str, Callable[[], Log]] = {
    # complete, regular deals
    "vira-8-spel-hemma": lambda: _eight(HEMMA),
    "vira-8-spel-bet": lambda: _eight(BET),
    "vira-8-spel-kodilj": lambda: _eight(KODILJ),
    "vira-3-players-kopmisar": lambda: complete_deal(
        KOPMISAR, dealer="E", setup=DealSetup(players="NES"), bids=[("S", "Köpmisär på 2"), ("N", "pass"), ("E", "pass")],
        buys={"S": (3, 2), "N": (1, 0), "E": (1, 0)}),
    "vira-solo-grande-misar-ouverte": lambda: complete_deal(
        SOLOMISAR, dealer="N", bids=[("E", "Solo grande misär ouverte"), ("S", "pass"), ("N", "pass")], show=True),
    "vira-gask-as-misar": lambda: complete_deal(
        KOPMISAR, dealer="N", bids=[("E", "7-spel"), ("S", "Gask på 1"), ("N", "pass"), ("E", "pass")],
        trump="misar", first_suit="H", buys={"S": (4, 3), "N": (2, 1), "E": (2, 1)}),
    # B: conventions
    "vira-B1-gok-tjuvpass": lambda: complete_deal(
        SOLOMISAR, dealer="N", bids=[("E", "Gök"), ("S", "pass"), ("N", "pass")], show=True),
    # A: game rules
    "vira-A1-first-bid-pass": lambda: _eight(HEMMA, bids=[("E", "pass"), ("E", "8-spel"), ("S", "pass"),
                                                          ("N", "pass")]),
    "vira-A2-bid-after-pass": lambda: _eight(HEMMA, bids=[("E", "7-spel"), ("S", "pass"), ("N", "Turné 7"),
                                                          ("S", "8-spel"), ("E", "8-spel"), ("N", "pass")]),
    "vira-A3-tringel": lambda: _eight(HEMMA, bids=[("E", "Tringel 9"), ("E", "8-spel"), ("S", "pass"),
                                                   ("N", "pass")]),
    "vira-A4-unspecified-gask": lambda: _a4(),
    "vira-A5-unspecified-vingel": lambda: complete_deal(
        HEMMA, dealer="N", bids=[("E", "7-spel"), ("S", "pass"), ("N", "Vingel"), ("E", "pass")], trump="C",
        turned=2, first_suit="S", buys={"N": 2, "E": 2, "S": 1}),
    "vira-A7-open-misar-not-shown": lambda: complete_deal(
        SOLOMISAR, dealer="N", bids=[("E", "Solo grande misär ouverte"), ("S", "pass"), ("N", "pass")]),
    # E: misdeals
    "vira-E2-deal-order": e2_deal_order,
    "vira-E4-face-up": e4_face_up,
    "vira-E5-other-pack": e5_other_pack,
    "vira-E5-duplicate": e5_duplicate,
    "vira-E7-hand-count": e7_hand_count,
    "vira-E8-talong-count": e8_talong_count,
    # F: bidding
    "vira-F1-insufficient-bid": lambda: _eight(HEMMA, bids=[("E", "8-spel"), ("S", "7-spel"), ("S", "9-spel"),
                                                            ("N", "pass"), ("E", "pass")], trump="H"),
    "vira-F3-insufficient-free": lambda: _eight(HEMMA, bids=[("E", "Gask på 5"), ("S", "Gask på 4"), ("S", "pass"),
                                                             ("N", "pass")]),
    "vira-F4-pass-out-of-turn": lambda: _eight(HEMMA, bids=[("E", "7-spel"), ("N", "pass"), ("S", "pass"),
                                                            ("N", "8-spel"), ("E", "pass")], trump="D"),
    "vira-F5-bid-out-of-turn": lambda: _eight(HEMMA, bids=[("E", "8-spel"), ("N", "9-spel"), ("S", "pass"),
                                                           ("N", "pass")]),
    "vira-F6-talong-before-end": f6_talong_before_end,
    # G: purchase
    "vira-G1-no-trump-before-buy": lambda: _eight(HEMMA, trump=None),
    "vira-G1-turne-wrong-count": lambda: _eight(HEMMA, bids=[("E", "Turné 8"), ("S", "pass"), ("N", "pass")],
                                                turned=3),
    "vira-G3-solo-purchase": lambda: _eight(HEMMA, bids=[("E", "Solo 6"), ("S", "pass"), ("N", "pass")]),
    "vira-G4-rho-buys-early": lambda: _eight(HEMMA, buy_order=["E", "N", "S"]),
    "vira-G5-defender-buys-first": lambda: _eight(HEMMA, buy_order=["S", "E", "N"]),
    # H: felekartering
    "vira-H2-declarer-felekartering": lambda: _eight(HEMMA, buys={"E": (3, 4), "S": 2, "N": 2}),
    "vira-H4-defender-felekartering": lambda: _eight(HEMMA, buys={"E": 3, "S": (2, 1), "N": 2}),
    "vira-H5-both-felekartering": lambda: _eight(HEMMA, buys={"E": (3, 4), "S": (2, 1), "N": 2}),
    # J: play
    "vira-J1-lead-out-of-turn-corrected": lambda: _eight(HEMMA, slip=Slip(out_of_turn_at=4, corrected=True)),
    "vira-J1-lead-out-of-turn-established": lambda: _eight(HEMMA, slip=Slip(out_of_turn_at=4, corrected=False)),
    "vira-J3-revoke-corrected": lambda: _eight(HEMMA, slip=Slip(revoke_at=3, corrected=True)),
    "vira-J6-revoke-established": lambda: _eight(HEMMA, slip=Slip(revoke_at=3, corrected=False)),
}


def party() -> Log:
    """L: four deals of one party at a four-player table (the dealer rotates)."""
    log: Log = []
    log += _eight(HEMMA)
    log += complete_deal(BET, dealer="E", setup=DealSetup(board=2), bids=[("S", "8-spel"), ("W", "pass"), ("E", "pass")],
                         trump="H", first_suit="D", buys={"S": 3, "W": 2, "E": 2})
    log += complete_deal(KODILJ, dealer="S", setup=DealSetup(board=3), bids=[("W", "7-spel"), ("N", "pass"), ("S", "pass")],
                         trump="C", first_suit="C", buys={"W": 3, "N": 2, "S": 2})
    log += complete_deal(SOLOMISAR, dealer="W", setup=DealSetup(board=4), bids=[("N", "Solo grande misär ouverte"), ("E", "pass"),
                                                                ("W", "pass")], show=True)
    return log


SCENARIOS["vira-L-party"] = party


def bad_lines() -> list[str]:
    """A deal with unreadable lines mixed in (never crashes the replay)."""
    lines = [json.dumps(e, ensure_ascii=False) for e in _eight(HEMMA)]
    first_play = next(i for i, x in enumerate(lines) if '"play"' in x)
    junk = ['{"type": "bid", "seat": "E"', '{"type": "pidro_refill", "seat": "E"}',
            '{"type": "play", "seat": "X", "card": "SA"}', '{"type": "bid", "seat": "S", "bid": "Sju sang"}',
            '{"type": "trump", "seat": "E", "suit": "purple"}', '[1, 2]',
            '{"type": "buy", "seat": "E", "cards": "S1"}', '{"type": "settle", "pinnar": "lots"}']
    return lines[:first_play] + junk + lines[first_play:]


def write_all(folder: str | Path) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, make in SCENARIOS.items():
        p = folder / f"{name}.jsonl"
        p.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in make()), encoding="utf-8")
        out.append(p)
    p = folder / "vira-bad-lines.jsonl"
    p.write_text("".join(x + "\n" for x in bad_lines()), encoding="utf-8")
    out.append(p)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_all(sys.argv[1] if len(sys.argv) > 1 else "tests/data/vira"):
        print(p)
