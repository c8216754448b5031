"""The match a deal belongs to (Pidroregler 1, 4, 6): score, offenders and dealer carried over.

A Pidro "spel" (game) is many deals ("omgångar") played to 62, and a match
is several games. What a deal needs from the deals before it:

* the score before it (Pidroregler 5, 6: "adderas ... till tidigare erhållna
  poäng"; the first side to 62 wins, both in one deal: the bidders);
* who has already been penalised in this match (Pidroregler 4: a repeated
  offence by the same player costs 62 instead of 14);
* who dealt last (Pidroregler 1: "Kortgivningen flyttas efter varje omgång
  ett steg till vänster"), so a wrong dealer is a ``dealer_not_rotated``
  finding (not checked on a board that restates the score, which is where a
  log picks the match up again).

The :class:`~tablecam.engine.Table` hands every Pidro board of one log (or
one live table) the same ``session`` dict, so this state carries over within
a log without the caller doing anything. A board event may restate it
(``score``, ``offenders``): a log that starts in the middle of a game, or
skips deals, says where the match stands, and that wins over what was
carried. A game that is won starts the next deal at 0-0 with a dealer drawn
by lot; the offenders stay for the whole match.
"""

from __future__ import annotations

from typing import Any

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import Finding
from .cards import SIDES


class MatchRules:
    """Reads the match state when a deal starts and writes it back when it is scored."""

    def _start_match_deal(self, board_event: Event, session: Any) -> list[Finding]:
        """Take over the match state (``session``, or the board event's own); findings for ``_pending``."""
        raw = board_event.raw or {}
        self.match_state: dict[str, Any] | None = session if isinstance(session, dict) else None
        state = self.match_state or {}
        self.score_before = self._score_from(raw.get("score") if "score" in raw else state.get("score"))
        src = raw.get("offenders") if "offenders" in raw else state.get("offenders")
        self.prior_offenders: set[str] = {str(x) for x in src} if isinstance(src, (list, tuple, set)) else set()
        out = []
        last = state.get("dealer")
        if isinstance(last, str) and last in "NESW" and board_event.get("dealer") is not None \
                and "score" not in raw and self.dealer != Seat(last).next():
            out.append(self.finding(
                kinds.DEALER_NOT_ROTATED, 1, f"{self.dealer} deals, but the deal passes one step to the "
                f"left after every deal: {Seat(last).next()} should deal after {last}.", board_event,
                seat=self.dealer, status="info", expected_seat=str(Seat(last).next())))
        if self.match_state is not None:
            self.match_state["dealer"] = str(self.dealer)
        return out

    @staticmethod
    def _score_from(src: Any) -> dict[str, int]:
        try:
            return {s: int((src or {}).get(s, 0)) for s in SIDES}
        except (TypeError, ValueError, AttributeError):
            return {"NS": 0, "EW": 0}

    def player(self, seat: Seat) -> str:
        """Who sits in ``seat`` (name from the board event, else the seat letter)."""
        return str(self.players.get(str(seat), seat))

    def _end_match_deal(self, after: dict[str, int], winner: str | None) -> None:
        """The deal is scored: the match goes on from ``after`` (a new game at 0-0 once one is won)."""
        if self.match_state is None:
            return
        self.match_state["score"] = dict(after)
        if winner is not None:  # the game ("spel") is over: the next deal starts a new one at 0-0
            self.match_state.setdefault("games", []).append({"winner": winner, "score": dict(after)})
            self.match_state["score"] = {"NS": 0, "EW": 0}
            self.match_state["dealer"] = None  # a new game draws its dealer by lot
        offenders = list(self.prior_offenders) if "offenders" not in self.match_state else \
            self.match_state["offenders"]
        self.match_state["offenders"] = offenders + [self.player(Seat(f.seat)) for f in self.offences]
