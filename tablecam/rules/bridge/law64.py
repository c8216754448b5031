"""Law 64: tricks transferred after an established revoke, decided at the end of play.

A pure function over the revokes and the trick winners, so it can be tested
(and reasoned about) apart from the fold.

* 64A1 - the offender won the revoke trick: that trick plus one more if the
  offending side won any later trick (2 at most);
* 64A2 - someone else won it: one trick if the offending side won the revoke
  trick or any later trick;
* 64B - no transfer when: (1) the offending side won no trick from the revoke
  trick on; (2) it is a later revoke in the same suit by the same player;
  (3) the revoke was a failure to play a faced card (dummy's, or a penalty
  card); (6) it was on trick 12; (7) both sides revoked on the board.
  64B4/B5 (attention drawn only on a later board / after the round) cannot be
  seen in one board's log.
* 64C - the director may still adjust: every transfer finding says so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Transfer:
    """One established revoke's outcome: ``tricks`` (0..2) and the paragraph applied."""

    revoke: object
    seat: int
    tricks: int
    rule: str
    reason: str


def transfers(revokes: list, winners: list[int | None], later_claimed: tuple[int, int] = (0, 0)) -> list[Transfer]:
    """Decide Law 64 for every established, uncorrected revoke.

    ``revokes`` are objects with ``seat``, ``trick`` (1-based), ``suit``,
    ``faced``; ``winners[i]`` is the seat that won trick ``i + 1`` (None if
    unknown); ``later_claimed`` are tricks per side (NS, EW) not played but
    awarded by a claim (they count as "later tricks won").

    >>> class R:  # a revoke by E (seat 1) on trick 3, spades
    ...     seat, trick, suit, faced = 1, 3, 0, False
    >>> [(t.tricks, t.rule) for t in transfers([R()], [0, 0, 1, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0])]
    [(2, 'Law 64A1')]
    """
    out: list[Transfer] = []
    sides = {r.seat & 1 for r in revokes}
    both = len(sides) == 2
    seen: set[tuple[int, int]] = set()
    for r in revokes:
        side = r.seat & 1
        key = (r.seat, r.suit)
        first_in_suit = key not in seen
        seen.add(key)
        if r.trick == 12:
            out.append(Transfer(r, r.seat, 0, "Law 64B6", "the revoke was on trick 12"))
            continue
        if r.faced:
            out.append(Transfer(r, r.seat, 0, "Law 64B3",
                                "the revoke was a failure to play a faced card (dummy's or a penalty card)"))
            continue
        if not first_in_suit:
            out.append(Transfer(r, r.seat, 0, "Law 64B2",
                                "it was a later revoke in the same suit by the same player"))
            continue
        if both:
            out.append(Transfer(r, r.seat, 0, "Law 64B7", "both sides revoked on this board"))
            continue
        t = r.trick - 1
        revoke_winner = winners[t] if t < len(winners) else None
        later = sum(1 for w in winners[t + 1:] if w is not None and (w & 1) == side) + later_claimed[side]
        if revoke_winner == r.seat:
            n = 1 + (1 if later else 0)
            out.append(Transfer(r, r.seat, n, "Law 64A1",
                                "the offender won the revoke trick" + (" and his side won a later trick" if later else "")))
        elif (revoke_winner is not None and (revoke_winner & 1) == side) or later:
            out.append(Transfer(r, r.seat, 1, "Law 64A2",
                                "the offending side won the revoke trick or a later trick"))
        else:
            out.append(Transfer(r, r.seat, 0, "Law 64B1",
                                "the offending side won no trick from the revoke trick on"))
    # A side cannot give away more tricks than it won from its first revoke on.
    for side in (0, 1):
        mine = [t for t in out if t.tricks and (t.seat & 1) == side]
        if not mine:
            continue
        first = min(t.revoke.trick for t in mine) - 1
        cap = sum(1 for w in winners[first:] if w is not None and (w & 1) == side) + later_claimed[side]
        total = sum(t.tricks for t in mine)
        while total > cap and mine:
            last = mine[-1]
            last.tricks -= 1
            total -= 1
            if not last.tricks:
                mine.pop()
    return out
