"""Money in Vira: pinnar between players and bets into the pulla (pool).

Two levels, because the rules have two:

* one deal (:func:`pay_contract`): the bid table's pinnar in the column of
  the trump suit (ofärg/misär, andra färg, högsta färg) go from each paying
  player to the declarer after hemgång, and the other way after bet or
  kodilj; the declarer lifts a bet from the pulla after hemgång and puts one
  (bet) or two (kodilj) into it otherwise;
* the end of the party (:func:`split_pool`, SM 2025 L.1-L.3): the pulla is
  shared equally, a remainder of pinnar goes to the biggest loser unless that
  would let him overtake someone.

>>> column("H", "D", False), column("D", "D", False), column("S", "D", False), column(None, "D", True)
(1, 2, 0, 0)
>>> outcome_from_tricks(needed=7, misar=False, taken=6), outcome_from_tricks(None, True, 0)
('bet', 'hemma')
>>> split_pool(16, {"N": -10, "E": 4, "S": 6})   # 16 = 5 each, 1 left to N (the biggest loser)
{'N': 6, 'E': 5, 'S': 5}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .table import Contract, ViraRules

@dataclass
class Forced:
    """An outcome imposed by an irregularity (G, H, J, C.14), with the section that imposed it."""

    event: int | None
    outcome: str  # hemma | bet | kodilj | lagd | neither | felekartering_declarer
    reason: str
    bets: dict[str, int] | None = None
    column: int | None = None
    played_on: bool = False  # H.2: both defenders chose to play on


COLOURS = {"S": "black", "C": "black", "H": "red", "D": "red"}
COLUMN_NAMES = ("ofärg/misär", "andra färg", "högsta färg")


def column(trump: str | None, first_suit: str | None, misar: bool) -> int:
    """Payment column: 2 = trump is högsta färg, 1 = the other suit of its colour
    (andra färg), 0 = ofärg, misär, or högsta färg unknown."""
    if misar or trump is None or first_suit is None:
        return 0
    if trump == first_suit:
        return 2
    if COLOURS.get(trump) == COLOURS.get(first_suit):
        return 1
    return 0


def outcome_from_tricks(needed: int | None, misar: bool, taken: int) -> str:
    """hemma / bet / kodilj from the declarer's tricks (D.10: as with the right number of cards)."""
    if misar or needed is None:
        return "hemma" if taken == 0 else ("bet" if taken == 1 else "kodilj")
    short = needed - taken
    return "hemma" if short <= 0 else ("bet" if short == 1 else "kodilj")


def best_possible(needed: int | None, misar: bool, taken: int, remaining: int, for_declarer: bool) -> str:
    """The most favourable outcome still possible for one side (J.2, J.6).

    ``taken``: the declarer's tricks before the offending trick; ``remaining``:
    tricks still to play from it on (the offending trick included).
    """
    if for_declarer:
        # declarer wins every remaining trick (trump game) or none (misär)
        return outcome_from_tricks(needed, misar, taken if misar else taken + remaining)
    return outcome_from_tricks(needed, misar, taken + remaining if misar else taken)


def pay_contract(rules: ViraRules, contract: Contract, declarer: str, payers: Iterable[str], outcome: str,
                 col: int, om: bool = False) -> tuple[dict[str, int], dict[str, int]]:
    """Pinnar (+ received) and bets (+ put into the pulla) for one played contract."""
    payers = list(payers)
    p = contract.pinnar[col] if col < len(contract.pinnar) else None
    p = p or 0
    pinnar = {s: 0 for s in [declarer, *payers]}
    bets: dict[str, int] = {}
    b = rules.bets
    if outcome == "hemma":
        for s in payers:
            pinnar[s] -= p
            pinnar[declarer] += p
        lift = b["hemgang"]
        if om:
            lift = rules.settings.om_hemgang_bets.counts.get(contract.name, lift)
        if lift:
            bets[declarer] = lift
    elif outcome in ("bet", "kodilj"):
        factor = rules.settings.kodilj_pinnar_factor if outcome == "kodilj" else 1
        for s in payers:
            pinnar[s] += p * factor
            pinnar[declarer] -= p * factor
        bets[declarer] = b[outcome]
    return pinnar, bets


def split_pool(pool: int, totals: dict[str, int]) -> dict[str, int]:
    """Share the pulla (in pinnar) at the end of the party (L.1-L.3).

    ``totals``: each player's result in pinnar before the share. Returns each
    player's share. The remainder goes to the biggest loser (L.2) unless he
    would overtake someone (drawing level is fine); then L.3: a remainder of 2
    goes one each to the biggest and second-biggest loser, a remainder of 1
    between two equal biggest losers goes to the winner. A remainder of 3 (four
    players) is not in the text: one each to the three biggest losers.

    >>> split_pool(17, {"N": -20, "E": -19, "S": 30})  # 5 each, rest 2, N would pass E
    {'N': 6, 'E': 6, 'S': 5}
    >>> split_pool(16, {"N": -20, "E": -20, "S": 30})  # rest 1, N and E equal: the winner S
    {'N': 5, 'E': 5, 'S': 6}
    >>> split_pool(17, {"N": -30, "E": -19, "S": 30})  # rest 2 to N, who stays last
    {'N': 7, 'E': 5, 'S': 5}
    """
    seats = list(totals)
    if not seats:
        return {}
    share, rest = divmod(pool, len(seats))
    out = {s: share for s in seats}
    if rest == 0:
        return out
    after = {s: totals[s] + share for s in seats}
    order = sorted(seats, key=lambda s: (after[s], seats.index(s)))  # biggest loser first
    loser, others = order[0], order[1:]
    if after[loser] + rest <= min(after[s] for s in others):
        out[loser] += rest
    elif rest == 2:
        out[order[0]] += 1
        out[order[1]] += 1
    elif rest == 1:
        out[order[-1]] += 1
    else:
        for s in order[:rest]:
            out[s] += 1
    return out


def party_result(deals: Iterable[dict], seats: Iterable[str], bet_value: int = 8) -> dict[str, dict[str, int]]:
    """Final standings of a party from the deals' ``score`` findings (as dicts).

    Each player's pinnar, minus ``bet_value`` per bet he put into the pulla
    (plus per bet he lifted), plus his share of the pulla (L.1-L.3).
    """
    seats = list(seats)
    pinnar = {s: 0 for s in seats}
    bets = {s: 0 for s in seats}
    for d in deals:
        for s, v in (d.get("pinnar") or {}).items():
            pinnar[s] = pinnar.get(s, 0) + int(v)
        for s, v in (d.get("bets") or {}).items():
            bets[s] = bets.get(s, 0) + int(v)
    pool = bet_value * sum(bets.values())
    before = {s: pinnar[s] - bet_value * bets[s] for s in pinnar}
    share = split_pool(pool, before)
    return {s: {"pinnar": pinnar[s], "bets": bets[s], "share": share.get(s, 0),
                "total": before[s] + share.get(s, 0)} for s in before}
