"""The choreography of a deal: who moves which card where, and when.

:func:`plan_scene` turns an event log into a :class:`~tablecam.sim.scene.Scene`:
each call laid as a bidding card, each play carried, slid or flicked to its
player's spot, each finished trick turned to the quitted rows, turned face
down in place (Law 65) or gathered into the winner's pile, hands sweeping
over the table now and then, and the ground truth stamped with the first
frame on which each card lies at rest.  Two random streams keep the classic
plan unchanged when the real look adds its own draws.
"""

from __future__ import annotations

import math
import random
from typing import Iterable

from ..cards import SEATS, Seat, parse_card
from ..events import Event
from .scene import BID_ANGLE, BID_MM, SEAT_ANGLE, SEAT_DIR, CardTrack, HandTrack, Scene, SimOptions


def _trick_winner(trick: list[tuple[Seat, "CardTrack"]]) -> Seat:
    """The highest card of the suit led (no trumps: the simulator only needs a plausible winner)."""
    led = trick[0][1].card[0]
    best = max((t for t in trick if t[1].card[0] == led), key=lambda t: -"AKQJT98765432".index(t[1].card[1]))
    return best[0]


def plan_scene(events: Iterable[Event], opt: SimOptions) -> Scene:
    """Lay the deal out in time and space; compute the exact ground truth."""
    rng = random.Random(opt.seed)
    mrng = random.Random(opt.seed * 7919 + 1)     # the real look's own draws: the classic plan stays as it was
    W, H = opt.area_mm
    cx, cy = W / 2, H / 2
    cw, ch = opt.card_mm
    cards: list[CardTrack] = []
    hands: list[HandTrack] = []
    truth: list[Event] = []
    passes: list[tuple[float, float]] = []
    t = 0.8
    trick: list[tuple[Seat, CardTrack]] = []
    quitted = {s: 0 for s in SEATS}
    piles = {s: 0 for s in SEATS}
    exposed: dict[str, CardTrack] = {}
    held: dict[str, list[float]] = {str(s): [] for s in SEATS}
    dealt = {str(s): 0 for s in SEATS}
    bids: list[tuple[Seat, CardTrack]] = []
    tricks_done = 0
    real_people = opt.people == "real"

    def frame_ts(t_: float) -> float:
        """The timestamp of the first frame showing the moment ``t_`` (frame index / fps)."""
        return round(math.ceil(t_ * opt.fps - 1e-6) / opt.fps, 4)

    def rest_point(seat: Seat) -> tuple[float, float]:
        dx, dy = SEAT_DIR[seat]
        off = {"zones": 130.0, "centre": 80.0, "pile": 38.0}[opt.layout]
        jx, jy = rng.uniform(-8, 8), rng.uniform(-8, 8)
        return cx + dx * off + jx, cy + dy * off + jy

    def edge_point(seat: Seat, along: float) -> tuple[float, float]:
        dx, dy = SEAT_DIR[seat]
        far = W / 2 + opt.margin_mm + 60
        if real_people:
            far = W / 2 + 420        # the shoulder, beyond the table's edge
        return cx + dx * far + (along if dx == 0 else 0), cy + dy * far + (along if dy == 0 else 0)

    def bring(seat: Seat, card: str, x: float, y: float, ang: float, kind: str = "card",
              size: tuple[float, float] | None = None) -> tuple[CardTrack, float]:
        """Hand brings ``card`` to (x, y); returns the track and the rest time (hand clear)."""
        nonlocal t
        dx, dy = SEAT_DIR[seat]
        how = "carry"
        if opt.motions == "mixed" and kind == "card":
            how = mrng.choices(("carry", "slide", "flick"), (0.45, 0.3, 0.25))[0]
        h_ = (size or opt.card_mm)[1]
        grip = h_ / 2 - 10                          # fingers overlap the card's near edge by 10 mm
        out = edge_point(seat, (x - cx) if dx == 0 else (y - cy))
        if how == "flick":
            # released at the player's side, the card flies in spinning and slides to a stop
            d0 = mrng.uniform(150, 230)
            sx, sy = x + dx * d0, y + dy * d0
            t0 = t
            t_rel = t0 + 0.3
            t1 = t_rel + mrng.uniform(0.22, 0.34)
            spin = mrng.choice((-1, 1)) * mrng.uniform(15, 45)
            trk = CardTrack(card, [(t0, sx + dx * 40, sy + dy * 40, ang + spin * 1.3, True),
                                   (t_rel, sx, sy, ang + spin, True), (t1, x, y, ang, True)], kind=kind)
            hx, hy = sx + dx * grip, sy + dy * grip
            hands.append(HandTrack(out, [(t0, hx + dx * 40, hy + dy * 40), (t_rel, hx, hy), (t_rel + 0.05, hx, hy),
                                         (t_rel + 0.35, out[0], out[1])], hold=(t0, t_rel), seat=seat))
            rest = max(t1, t_rel + 0.12)
            t = max(t1, t_rel + 0.35) + opt.play_gap_s
            return trk, rest
        start = 180.0 if how == "slide" else 260.0
        sx, sy = x + dx * start, y + dy * start    # start, off the area on the player's side
        t0, t1 = t, t + opt.approach_s * (1.25 if how == "slide" else 1.0)
        a0 = ang + (rng.uniform(-20, 20) if how == "carry" else mrng.uniform(-6, 6))
        trk = CardTrack(card, [(t0, sx, sy, a0, True), (t1, x, y, ang, True)], kind=kind)
        hx0, hy0 = sx + dx * grip, sy + dy * grip
        hx1, hy1 = x + dx * grip, y + dy * grip
        t2 = t1 + opt.withdraw_s
        hands.append(HandTrack(out, [(t0, hx0, hy0), (t1, hx1, hy1), (t1 + 0.04, hx1, hy1),
                                     (t2, out[0], out[1])], hold=(t0, t1), seat=seat))
        # the fingertips (12 mm beyond the grip) clear the card after travelling ~25 mm
        dist = math.hypot(out[0] - hx1, out[1] - hy1)
        rest = t1 + 0.04 + opt.withdraw_s * min(1.0, 25.0 / max(dist, 1.0))
        t = t2 + opt.play_gap_s
        return trk, rest

    def maybe_pass() -> None:
        nonlocal t
        if not opt.hand_passes or rng.random() >= opt.pass_prob:
            return
        seat = rng.choice(SEATS)
        dx, dy = SEAT_DIR[seat]
        along = rng.uniform(-120, 120)
        a = edge_point(seat, along)
        b = (cx - dx * rng.uniform(0, 140) + (rng.uniform(-150, 150) if dx else 0),
             cy - dy * rng.uniform(0, 140) + (rng.uniform(-150, 150) if dy else 0))
        dur = rng.uniform(0.9, 1.4)
        hands.append(HandTrack(a, [(t, a[0], a[1]), (t + dur / 2, b[0], b[1]), (t + dur, a[0], a[1])], seat=seat,
                               spread=1.0))
        passes.append((round(t, 3), round(t + dur, 3)))
        t += dur + 0.3

    def quitted_point(seat: Seat, n: int) -> tuple[float, float]:
        dx, dy = SEAT_DIR[seat]
        qx = cx + dx * 262 + (n - 6) * 18 * (1 if dx == 0 else 0)
        qy = cy + dy * 262 + (n - 6) * 18 * (1 if dy == 0 else 0)
        return qx, qy

    def turn_trick() -> None:
        nonlocal t, tricks_done
        t += opt.turn_pause_s
        winner = _trick_winner(trick)
        if opt.trick_end == "gather":
            last = gather(winner)
        else:
            last = t
            for k, (seat, trk) in enumerate(trick):
                x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
                n = quitted[seat]
                quitted[seat] += 1
                qx, qy = quitted_point(seat, n)
                if opt.trick_end == "turn":
                    # each player turns his own card face down where it lies, then draws it to his row,
                    # lengthwise towards the side that won it (Law 65B)
                    tf = t + mrng.uniform(0.0, 0.5)
                    trk.flips.append((tf, tf + 0.25))
                    trk.keys += [(tf, x, y, a, True), (tf + 0.125, x, y, a, False), (tf + 0.3, x, y, a, False)]
                    qa = 0.0 if winner in (Seat.N, Seat.S) else 90.0
                    trk.keys += [(tf + 0.65, qx, qy, qa + mrng.uniform(-4, 4), False)]
                    if real_people:
                        dx, dy = SEAT_DIR[seat]
                        out = edge_point(seat, (x - cx) if dx == 0 else (y - cy))
                        hands.append(HandTrack(out, [(tf - 0.25, x + dx * 30, y + dy * 30), (tf + 0.3, x, y),
                                                     (tf + 0.65, qx, qy), (tf + 0.95, out[0], out[1])], seat=seat))
                    last = max(last, tf + 0.65)
                else:
                    tf = t + 0.12 * k
                    trk.keys += [(tf, x, y, a, False), (tf + 0.35, qx, qy, SEAT_ANGLE[seat] + 90, False)]
                    last = max(last, tf + 0.35)
        tricks_done += 1
        truth.append(Event("trick_turned", {"cards": [parse_card(c.card) for _, c in trick],
                                            "seats": [s for s, _ in trick], "trick": tricks_done},
                           ts=frame_ts(last), source="sim"))
        trick.clear()
        t = last + 0.5 + (0.4 if real_people and opt.trick_end != "row" else 0.0)

    def gather(winner: Seat) -> float:
        """The winner sweeps the trick together, turns it over and puts it on his pile; returns when it lands."""
        dx, dy = SEAT_DIR[winner]
        sx, sy = cx + dx * 40, cy + dy * 40                  # where the cards are swept together
        n = piles[winner]
        piles[winner] += 1
        px, py = cx + dx * 245 + dy * 140, cy + dy * 245 - dx * 140   # the pile: at the winner's right
        t0 = t
        t1 = t0 + 0.45                                       # cards drawn together
        t2 = t1 + 0.2                                        # turned face down
        t3 = t2 + 0.5                                        # on the pile
        ang = SEAT_ANGLE[winner] + (90.0 if n % 2 else 0.0) + mrng.uniform(-5, 5)
        for k, (seat, trk) in enumerate(trick):
            x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
            trk.keys += [(t0, x, y, a, True), (t1, sx + k * 1.5, sy + k * 1.5, ang, True),
                         (t2, sx + k * 1.5, sy + k * 1.5, ang, False),
                         (t3, px + k * 0.8, py + k * 0.8, ang, False)]
            trk.flips.append((t1, t2))
        out = edge_point(winner, 0.0)
        hands.append(HandTrack(out, [(t0 - 0.35, sx + dx * 60, sy + dy * 60), (t0, sx + dx * 40, sy + dy * 40),
                                     (t1, sx + dx * 30, sy + dy * 30), (t3, px + dx * 30, py + dy * 30),
                                     (t3 + 0.4, out[0], out[1])], seat=winner))
        return t3

    def lay_bid(seat: Seat, call: str) -> float:
        """A bidding card from the seat's box laid in the seat's row: each new card nearer the caller,
        covering the lower part of the last so only its top strip (with the call) stays in view."""
        from ..vision.bidcards import STRIP_MM

        dx, dy = SEAT_DIR[seat]
        k = sum(1 for s, _ in bids if s is seat)
        off = 175.0 + STRIP_MM * k                 # the first card 175 mm from the centre, its top inwards
        x, y = cx + dx * off, cy + dy * off
        trk, rest = bring(seat, f"bid:{call}", x, y, BID_ANGLE[seat], kind="bid", size=BID_MM)
        cards.append(trk)
        bids.append((seat, trk))
        return rest

    def clear_bids() -> None:
        """After the auction each player picks his bidding cards up and puts them back in the box."""
        nonlocal t
        t += 1.0
        last = t
        for seat in SEATS:
            mine = [trk for s, trk in bids if s is seat]
            if not mine:
                continue
            dx, dy = SEAT_DIR[seat]
            t0 = t + mrng.uniform(0, 0.6)
            x, y, a, _ = mine[-1].at(mine[-1].keys[-1][0])  # type: ignore[misc]
            out = edge_point(seat, 0.0)
            hands.append(HandTrack(out, [(t0 - 0.35, x + dx * 60, y + dy * 60), (t0, x, y),
                                         (t0 + 0.5, out[0], out[1])], seat=seat))
            for trk in mine:
                x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
                trk.keys += [(t0, x, y, a, True), (t0 + 0.5, out[0], out[1], a, True)]
                trk.until = t0 + 0.5
            last = max(last, t0 + 0.5)
        bids.clear()
        t = last + 0.6

    if opt.dealer_pack:
        # the dealer squares the pack and carries it across before play (a moving stack of backs)
        seat = Seat.N
        a, b = edge_point(Seat.W, -60.0), edge_point(Seat.E, 40.0)
        hands.append(HandTrack(a, [(0.2, cx - 200, cy - 60), (1.0, cx - 40, cy - 20), (1.3, cx - 40, cy - 20),
                                   (2.2, b[0] - 350, b[1]), (2.5, b[0], b[1])], seat=seat, carry="pack"))
        t = 2.9

    for ev in events:
        if not isinstance(ev, Event):
            continue  # a bad line: the simulator skips what the pipeline would
        if ev.type == "call" and opt.auction and ev.get("seat") is not None:
            seat = ev.seat
            rest = lay_bid(seat, str(ev.get("call")))
            truth.append(Event("call", dict(ev.data), ts=frame_ts(rest), source="sim"))
            continue
        if ev.type in ("board", "deal", "call"):
            e = Event(ev.type, dict(ev.data), ts=0.0, source="sim")
            truth.append(e)
            if ev.type == "board":
                tricks_done = 0
            if ev.type == "deal":
                to = str(ev.get("to"))
                if to in dealt:
                    dealt[to] += 1
            continue
        if bids:
            clear_bids()
        if ev.type == "expose":
            seat, card = ev.seat, str(ev.card)
            dx, dy = SEAT_DIR[seat]
            along = rng.uniform(-150, 150)
            x = cx + dx * 250 + (along if dx == 0 else 0)
            y = cy + dy * 250 + (along if dy == 0 else 0)
            trk, rest = bring(seat, card, x, y, SEAT_ANGLE[seat] + rng.uniform(-10, 10))
            cards.append(trk)
            exposed[card] = trk
            held[str(seat)].append(trk.keys[0][0])
            truth.append(Event("expose", {"seat": seat, "card": ev.card}, ts=frame_ts(rest), source="sim"))
            continue
        if ev.type != "play":
            continue
        seat, card = ev.seat, str(ev.card)
        if any(s == seat for s, _ in trick) or len(trick) == 4:
            turn_trick()
            maybe_pass()
        if opt.max_tricks is not None and tricks_done >= opt.max_tricks:
            break
        if card in exposed:                    # a card shown earlier is played: lift it first
            exposed.pop(card).until = t
        else:
            held[str(seat)].append(t)
        x, y = rest_point(seat)
        spread = 25 if opt.layout == "pile" else 12
        trk, rest = bring(seat, card, x, y, SEAT_ANGLE[seat] + rng.uniform(-spread, spread))
        cards.append(trk)
        trick.append((seat, trk))
        truth.append(Event("play", {"seat": seat, "card": ev.card}, ts=frame_ts(rest), source="sim"))
        if len(trick) == 2:
            maybe_pass()
    if trick and len(trick) == 4:
        turn_trick()
    for trk in exposed.values():
        trk.until = min(trk.until, t)
    if bids:
        clear_bids()
    deck = sum(dealt.values()) or 52
    return Scene(cards, hands, truth, t + 1.0, passes, held=held, deck_size=deck)
