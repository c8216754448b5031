"""Zero-sum settlement of an es-makker whist deal (Meldingernes rækkefølge og pointgivning).

"Es-makker whist er et nulsums-spil ... Pointene skal altid give 0": what the
winners get, the losers pay. Two against two: each player wins or pays the
contract's value. One against three (selvmakker, or each nolo player): the
lone player wins or pays three times the value, each opponent the value once.
The values come from the rule table's ``points`` block (a marked guess in
the default table, because the club's table is not public).

>>> from tablecam.cards import Seat
>>> from .bids import default_rules, parse_bid
>>> r = default_rules()
>>> won = {Seat.N: 6, Seat.E: 4, Seat.S: 0, Seat.W: 3}
>>> res = settle(parse_bid("8", r), r, won, Seat.N, Seat.E, [])
>>> res.made, res.side_tricks, [res.points[s] for s in Seat]
(True, 10, [3, 3, -3, -3])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ... import kinds
from ...cards import Seat
from ...findings import Finding
from ..tables import WhistTable
from .bids import Bid, is_nolo, tricks_needed


@dataclass
class Settlement:
    """The outcome of one deal: who made what, and the points per seat (summing to 0)."""

    made: bool
    points: dict[Seat, int]
    side_tricks: int | None = None
    nolo: list[dict[str, Any]] = field(default_factory=list)


def settle(bid: Bid, rules: WhistTable, won: dict[Seat, int], declarer: Seat, partner: Seat | None,
           soloists: list[Seat], claimed: int | None = None) -> Settlement:
    """Points per seat for ``bid`` given the tricks each seat ``won``.

    ``claimed``: the declarer's side's total after an accepted claim (replaces the count).
    """
    value = rules.points.contracts[bid.rung]
    pts = {s: 0 for s in Seat}
    if is_nolo(bid, rules):
        allowed = rules.nolo[bid.rung].max_tricks
        results = []
        for s in soloists:
            made = won[s] <= allowed
            v = value if made else -value
            for o in Seat:
                pts[o] += 3 * v if o == s else -v
            results.append({"seat": str(s), "tricks": won[s], "allowed": allowed, "made": made})
        return Settlement(all(r["made"] for r in results), pts, None, results)
    side = [declarer] + ([partner] if partner else [])
    side_tricks = sum(won[s] for s in side) if claimed is None else claimed
    need = tricks_needed(bid)
    made = side_tricks >= need
    if made:
        v = value + rules.points.overtrick * (side_tricks - need)
    else:
        v = -(value + rules.points.undertrick * (need - side_tricks - 1))
    share = 3 if len(side) == 1 else 1
    for o in Seat:
        pts[o] += share * v if o in side else -v
    return Settlement(made, pts, side_tricks)


class ScoringRules:
    """The board's ``score`` finding: a mixin of :class:`~tablecam.rules.whist.board.WhistBoard`."""

    def tricks_by_seat(self) -> dict[Seat, int]:
        won = {s: 0 for s in Seat}
        for t in self.tricks:
            if t.winner is not None:
                won[t.winner] += 1
        return won

    def _score(self, idx: int | None) -> Finding:
        """Emit the deal's ``score`` finding (Meldingernes rækkefølge og pointgivning)."""
        bid, decl = self.high, self.holder
        assert bid is not None and decl is not None
        won = self.tricks_by_seat()
        claimed = self.claimed if self._claimer in (decl, self.partner) else None
        res = settle(bid, self.rules, won, decl, self.partner, self.soloists(), claimed)
        if is_nolo(bid, self.rules):
            msg = "; ".join(f"{r['seat']} took {r['tricks']} ({'made' if r['made'] else 'lost'})" for r in res.nolo)
            msg = f"'{bid}' by {', '.join(r['seat'] for r in res.nolo)}: {msg}."
        else:
            who = f"{decl}" + (f" with {self.partner}" if self.partner else " alone (selvmakker)")
            msg = (f"'{bid}' by {who}, trump {self.trump or 'none'}: {res.side_tricks} tricks, "
                   f"{'made' if res.made else 'set'}.")
        return self.flag(
            kinds.SCORE, "Meldingernes rækkefølge", msg, idx, seat=decl, status="info",
            contract=str(bid), declarer=str(decl), partner=str(self.partner) if self.partner else None,
            partner_ace=str(self.partner_ace) if self.partner_ace else None, trump=self.trump,
            soloists=[str(s) for s in self.soloists()], tricks={str(s): n for s, n in won.items()},
            side_tricks=res.side_tricks, made=res.made, nolo=res.nolo or None,
            points={str(s): p for s, p in res.points.items()}, points_table=self.rules.name,
            points_table_is_guess="GUESS" in self.rules.points.status)
