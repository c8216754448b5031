"""End of play: trick transfers (Law 64) and the result (Law 79A).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from typing import Any

from ...events import Event
from ...findings import Finding
from .common import FINISHED, seat_name
from .law64 import transfers
from .tables import (CARD_TEXT, SEAT_LETTERS, SIDE_NAME, contract_text)


class ResultRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

    def finish(self, event: Event | None = None) -> list[Finding]:
        if event is None and len(self.events) > 1:  # the Table keeps the board's events; the fast path
            self.last_index = self.events[-1].index  # does not track the index itself
        idx = event.index if event is not None else self.last_index
        out: list[Finding] = []
        if not self.deal_checked:
            out += self._check_deal(event)
        if self.ootl is not None:
            self.ootl = None
        for r in list(self.unest):
            out.append(self._establish(r, idx, "the board ended without a correction"))
        # Law 64 at the end of play.
        winners: list[int | None] = [w for _, _, w in self.tricks]
        claimed = [0, 0]
        if self.claim is not None:
            cs, n, _ = self.claim
            side = cs & 1
            left = 13 - len(self.tricks)
            mine = max(0, min(left, n - self.won[side]))
            claimed[side] = mine
            claimed[side ^ 1] = left - mine
        moved = [0, 0]
        est = [r for r in self.revokes if r.established and not r.corrected]
        for t in transfers(est, winners, (claimed[0], claimed[1])):
            r = t.revoke
            side = t.seat & 1
            moved[side] += t.tricks
            law = self.laws["trick_transfer"]
            self._n += 1
            msg = (f"{t.tricks} trick{'s' if t.tricks != 1 else ''} transferred from {SIDE_NAME[side]} to "
                   f"{SIDE_NAME[side ^ 1]} for {SEAT_LETTERS[t.seat]}'s revoke on trick {r.trick}: {t.reason} "
                   f"({t.rule})." if t.tricks else
                   f"No trick transferred for {SEAT_LETTERS[t.seat]}'s revoke on trick {r.trick}: {t.reason} "
                   f"({t.rule}); the director may still adjust (Law 64C).")
            f = Finding("trick_transfer", rule=t.rule, message=msg, board=self.board, event=idx,
                        seat=SEAT_LETTERS[t.seat], trick=r.trick, status="info",
                        options=[f"{t.rule}: transfer {t.tricks} trick{'s' if t.tricks != 1 else ''} "
                                 f"to {SIDE_NAME[side ^ 1]} (as computed)", *law["options"]],
                        remedy=law["remedy"] if t.tricks else None, id=f"{self.key}-trick_transfer-{self._n}",
                        extra={"tricks": t.tricks, "revoke_event": r.event, "revoke": r.finding.id if r.finding else None})
            self.findings.append(f)
            out.append(f)
        out.append(self._result(idx, claimed, moved))
        for s in range(4):
            for p in list(self.pen[s].values()):
                out.append(self._update(p.finding, idx, "info", f"{CARD_TEXT[p.card]} was still a penalty card of "
                                        f"{SEAT_LETTERS[s]} when the board ended.", open=False))
        self.phase = FINISHED
        self.turn = None
        return out

    def _result_number(self) -> int:
        """What makes a result's id unique in its stream: the line of its ``board`` event (an archive
        holds the same board number for many tables), or the board's own count without one."""
        return self.board_event.index if self.board_event.index is not None else self._n

    def _result(self, idx: int | None, claimed: list[int], moved: list[int]) -> Finding:
        law = self.laws["result"]
        self._n += 1
        a = self.auction
        extra: dict[str, Any] = {}
        if a.passed_out:
            decl, contract, tricks, complete = None, "Pass", None, True
            msg = "Passed out."
        else:
            decl = self.declarer
            contract = contract_text(self.bid, self.doubled) if self.bid else None
            if contract is None and a.last_bid >= 0:
                bid, d2, dbl = a.contract()
                contract, decl = contract_text(bid, dbl), d2
            tricks = None
            complete = False
            if decl is not None:
                side = decl & 1
                if self.claim is not None:  # the agreed claim decides, even if it does not fit the play
                    cs, n, _ = self.claim
                    tricks = n if (cs & 1) == side else 13 - n
                    complete = True
                else:
                    tricks = self.won[side]
                    complete = len(self.tricks) == 13
                tricks += moved[side ^ 1] - moved[side]
                extra["tricks_played"] = len(self.tricks)
                if moved[0] or moved[1]:
                    extra["transferred"] = moved[side ^ 1] - moved[side]
            if contract is None:
                msg = (f"No auction in the log; {SEAT_LETTERS[decl]}'s side took {tricks} tricks." if decl is not None
                       else "No contract and no play in the log.")
            elif not a.closed and not self.tricks and self.claim is None:
                msg = f"Auction incomplete; last bid {contract}."
            else:
                msg = f"{contract} by {SEAT_LETTERS[decl]}, {tricks} trick{'s' if tricks != 1 else ''}"
                msg += "." if complete else " so far (play incomplete)."
        f = Finding("result", rule=law["rule"], message=msg, board=self.board, event=idx, seat=None,
                    status="info", id=f"{self.key}-result-{self._result_number()}",
                    extra={"declarer": seat_name(decl), "contract": contract, "tricks": tricks,
                           "complete": complete, **({"vulnerable": self.vulnerable} if self.vulnerable else {}),
                           **({"room": self.room} if self.room else {}), **extra})
        self.findings.append(f)
        return f
