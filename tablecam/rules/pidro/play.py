"""The play (Pidroregler 4): only trumps are played; a player out of trumps drops out.

A mixin of :class:`~tablecam.rules.pidro.board.PidroBoard`. The bidder leads
(or, holding no trump, the next player on his left who does); each round is
won by the highest trump, and its point cards go to the winner's side,
except the two, which scores for the side that played it.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import Finding, bad_event
from ..tricks import Trick, trick_winner
from .cards import is_trump, point_value, side_of, suit_of, trump_rank


class PlayRules:
    """The ``play`` and ``retract`` handlers and the rounds."""

    def active(self) -> list[Seat]:
        """Seats still holding a trump (a player out of trumps drops out)."""
        return [s for s in Seat if any(is_trump(c, self.trump) for c in self.hands[s])]

    def _start_play(self, ev: Event) -> list[Finding]:
        out = self._close_bidding(ev)
        self.play_started = True
        if self.trump is None:
            # the bidder names the suit by leading it
            self.trump = suit_of(ev.card, None)
            out += self._check_discards(ev)
        limit = self.rules.deal.final_hand
        for s in Seat:
            kept = [c for c in self.hands[s] if c in self.dealt[s] and not is_trump(c, self.trump)]
            if s != self.dealer and kept:
                out.append(self.flag(
                    kinds.NON_TRUMP_KEPT, 3, f"{s} kept {', '.join(map(str, kept))} from the deal; only cards of the "
                    "suit played (with both pidros) are kept before the refill.", ev, seat=str(s),
                    status="pending", options=["lay the card(s) away", "let play go on"],
                    id=self.finding_id("kept", s), cards=[str(c) for c in kept]))
            n = sum(1 for c in self.hands[s] if is_trump(c, self.trump))
            if n > limit:
                out.append(self._offence(kinds.TOO_MANY_TRUMPS, 4, s, ev,
                                         f"{s} began play with {n} trumps in hand; a player with more than {limit} "
                                         f"must lay non-point trumps face up until {limit} remain.",
                                         self.finding_id("toomany", s)))
        # The bidder leads; if he holds no trump, the lead passes to the next
        # player on his left who does (Pidroregler 4), as in later rounds.
        leader = self.bidder or ev.seat
        holders = self.active()
        if holders and leader not in holders:
            leader = next((leader.next(i) for i in range(1, 4) if leader.next(i) in holders), leader)
        self.trick = Trick(leader, 1)
        self._trick_players = holders or list(Seat)
        return out

    def _expected_player(self) -> Seat | None:
        return self.trick.next_to_play(self._trick_players) if self.trick is not None else None

    def _on_play(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        if not self.play_started:
            out += self._start_play(ev)
        seat, card = ev.seat, ev.card
        t = self.trick
        assert t is not None
        expected = self._expected_player()
        if not t.cards and seat != t.leader:
            out.append(self.flag(kinds.LEAD_OUT_OF_TURN, 4, f"{seat} led to round {t.number} but {t.leader} was "
                                 "to lead.", ev, seat=str(seat), trick=t.number, status="info",
                                 expected_seat=str(t.leader)))
        elif t.cards and expected is not None and seat != expected:
            out.append(self.flag(kinds.PLAY_OUT_OF_TURN, 4, f"{seat} played before {expected}; cards should be "
                                 "played clockwise in turn.", ev, seat=str(seat), trick=t.number,
                                 status="info", expected_seat=str(expected)))
        if card in self.hands[seat]:
            self.hands[seat].remove(card)
        else:
            out.append(bad_event(f"{seat} played {card}, which is not in their hand; accepted as played.",
                                 ev.index, self.board))
        if not is_trump(card, self.trump):
            out.append(self._offence(kinds.NON_TRUMP_PLAYED, 4, seat, ev,
                                     f"{seat} played {card}, which is not a trump; only trumps are played.",
                                     self.finding_id("nontrump", seat, ev.index), card=card))
        if seat not in self._trick_players:
            self._trick_players.append(seat)
        t.add(seat, card, ev.index)
        if all(s in t.seats() for s in self._trick_players):
            self._complete_trick()
        return out

    def _complete_trick(self) -> None:
        t = self.trick
        assert t is not None
        trump = self.trump
        t.winner = trick_winner(t.cards, trump, suit_of=lambda c: suit_of(c, trump),
                                rank_of=lambda c: trump_rank(c, trump) if is_trump(c, trump) else -1) or t.leader
        for seat, card in t.cards:
            pts = point_value(card, trump, self.rules.points)
            if card.rank == "2":  # the two scores for the side that played it (it cannot be captured)
                self.points[side_of(seat)] += pts
            else:
                self.points[side_of(t.winner)] += pts
        self.tricks.append(t)
        left = self.active()
        if not left:
            self.trick = None
            return
        leader = t.winner
        for i in range(4):
            if leader.next(i) in left:
                leader = leader.next(i)
                break
        self.trick = Trick(leader, t.number + 1)
        self._trick_players = left

    def _on_retract(self, ev: Event) -> list[Finding]:
        t = self.trick
        if t is not None and t.remove(ev.seat, ev.card):
            self.hands[ev.seat].append(ev.card)
            return []
        return [bad_event(f"{ev.seat} took back {ev.card}, which is not in the current round; ignored.",
                          ev.index, self.board)]
