"""The auction as a fold over ``call`` events (Laws 17-39).

The log records what the table actually did, so an irregular call is first
*applied tentatively* and the next call shows how it was resolved:

* a call by the offender's left-hand opponent accepts a call out of turn
  (Law 29A) or an insufficient bid (Law 27A: "it is accepted if that player
  calls");
* a call by the player whose turn it really was cancels a call out of turn
  (Laws 28B / 29B) - the state is rolled back and that call is taken in turn;
* a second call by the offender replaces his insufficient bid (Law 27B) or
  inadmissible double (Law 36), or changes his call (Law 25).

An ``accept`` event (see :mod:`tablecam.rules.bridge`) records the choice
explicitly when the operator enters it.

Seats are 0..3 (N E S W); calls are canonical strings (``P X XX 1C..7N``).
"""

from __future__ import annotations

from typing import Any

from .tables import BID_RANK, BID_TEXT, SEAT_LETTERS, STRAINS

_SNAP = tuple  # (last_bid, last_bid_seat, dbl, passes, turn, last_caller, n_calls, after_inadmissible)


class Auction:
    """Auction state. ``calls`` keeps every call with a status flag
    (``""`` normal, ``cancelled``, ``accepted``, ``ignored``) so the record
    shows what happened at the table, not only what counts."""

    __slots__ = ("dealer", "turn", "calls", "last_bid", "last_bid_seat", "dbl", "passes", "first",
                 "closed", "passed_out", "pending", "bars", "last_caller", "prev_snap", "after_inadmissible",
                 "window")

    def __init__(self, dealer: int | None) -> None:
        self.dealer = dealer
        self.turn = dealer
        self.calls: list[list[Any]] = []
        self.last_bid = -1
        self.last_bid_seat = -1
        self.dbl = 0
        self.passes = 0
        self.first: dict[tuple[int, str], int] = {}
        self.closed = False
        self.passed_out = False
        self.pending: tuple | None = None
        self.bars: dict[int, Any] = {}
        self.last_caller: int | None = None
        self.prev_snap: _SNAP | None = None
        self.after_inadmissible = False
        """Law 36C: since the last inadmissible double or redouble only passes were made."""
        self.window: tuple | None = None
        """Law 36A: ``(offender, finding, snapshot)`` while the offender's LHO has called over an
        inadmissible double or redouble that was never rectified."""

    # -- state helpers ------------------------------------------------------
    def snap(self) -> _SNAP:
        return (self.last_bid, self.last_bid_seat, self.dbl, self.passes, self.turn, self.last_caller,
                len(self.calls), self.after_inadmissible)

    def revert(self, snap: _SNAP, added_key: Any = None) -> None:
        (self.last_bid, self.last_bid_seat, self.dbl, self.passes, self.turn, self.last_caller, n,
         self.after_inadmissible) = snap
        for c in self.calls[n:]:
            c[2] = "cancelled"
            if len(c) > 3 and c[3] is not None and self.first.get(c[3]) == c[0]:
                del self.first[c[3]]

    def apply(self, s: int, code: str, flag: str = "") -> None:
        """Apply a call as made in turn (no legality checks)."""
        self.prev_snap = self.snap()
        key = None
        if code == "P":
            self.passes += 1
        elif code == "X":
            self.after_inadmissible = False
            self.dbl = 1
            self.passes = 0
        elif code == "XX":
            self.after_inadmissible = False
            self.dbl = 2
            self.passes = 0
        else:
            self.after_inadmissible = False
            self.last_bid = BID_RANK[code]
            self.last_bid_seat = s
            self.dbl = 0
            self.passes = 0
            k = (s & 1, code[1])
            if k not in self.first:
                self.first[k] = s
                key = k
        self.calls.append([s, code, flag, key])
        self.turn = (s + 1) & 3
        self.last_caller = s
        if self.passes >= 3 and (self.last_bid >= 0 or self.passes >= 4 or self.after_inadmissible):
            self.closed = True
            self.passed_out = self.last_bid < 0

    def admissible(self, s: int, code: str) -> bool:
        """Law 19: may ``s`` double / redouble now?"""
        if code == "X":
            return self.last_bid >= 0 and self.dbl == 0 and (self.last_bid_seat & 1) != (s & 1)
        return self.last_bid >= 0 and self.dbl == 1 and (self.last_bid_seat & 1) == (s & 1)

    # -- results ------------------------------------------------------------
    def contract(self) -> tuple[str | None, int | None, int]:
        """(bid, declarer, doubled) of the final contract; bid None if no bid."""
        if self.last_bid < 0:
            return None, None, 0
        bid = BID_TEXT[self.last_bid]
        decl = self.first.get((self.last_bid_seat & 1, bid[1]), self.last_bid_seat)
        return bid, decl, self.dbl

    def legal_calls(self) -> list[str]:
        """Oracle: calls the player on turn may make (Law 18, 19)."""
        if self.closed or self.turn is None:
            return []
        out = ["P"]
        s = self.turn
        if self.admissible(s, "X"):
            out.append("X")
        if self.admissible(s, "XX"):
            out.append("XX")
        out += [BID_TEXT[r] for r in range(self.last_bid + 1, 35)]
        return out

    def record(self) -> list[dict[str, Any]]:
        out = []
        for c in self.calls:
            d = {"seat": SEAT_LETTERS[c[0]], "call": c[1]}
            if c[2]:
                d["status"] = c[2]
            out.append(d)
        return out


def lowest_sufficient(last_bid: int, strain: str) -> str | None:
    """The lowest bid in ``strain`` above ``last_bid`` (Law 27B1 comparison)."""
    k = STRAINS.index(strain)
    for r in range(last_bid + 1, 35):
        if r % 5 == k:
            return BID_TEXT[r]
    return None
