"""Leads out of turn and the non-offending side's choices (Laws 53-56, 50D2 demands).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from ...events import Event
from ...findings import Finding
from .tables import (CARD_TEXT, SEAT_LETTERS, SUIT, SUIT_LETTER, SUIT_WORD, seat_index)


class LeadRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

    def _lead_out_of_turn(self, ev: Event, s: int, ci: int) -> Finding:
        tn = len(self.tricks) + 1
        correct = self.lead_turn
        defender = self._is_defender(s)
        if tn == 1 and defender:
            key = "lead_out_of_turn_opening"
        elif defender:
            key = "lead_out_of_turn_defender"
        else:
            key = "lead_out_of_turn_declarer"
        role = "" if defender else (" from dummy" if s == self.dummy else " (declarer)")
        f = self._new("lead_out_of_turn", key,
                      f"{SEAT_LETTERS[s]}{role} led {CARD_TEXT[ci]} to trick {tn} out of turn; "
                      f"{SEAT_LETTERS[correct]} should have led.", ev, seat=s, trick=tn, card=CARD_TEXT[ci],
                      expected=SEAT_LETTERS[correct])
        self.ootl = [s, ci, f, correct, tn, key]
        return f

    def _resolve_lead(self, ev: Event, s: int, out: list[Finding]) -> None:
        """The card after a lead out of turn shows whether it was accepted (Law 53A)."""
        o, oci, f, correct, tn, key = self.ootl
        if s != correct or s == ((o + 1) & 3) or not self.cur:
            self.ootl = None
            law = "Law 54B" if key == "lead_out_of_turn_opening" else "Law 53A"
            how = ("declarer accepted it and plays second from his own hand (Law 54B)" if law == "Law 54B" else
                   f"it was accepted when {SEAT_LETTERS[s]} played to it (Law 53A)")
            out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s lead out of turn stands: {how}.",
                                    rule=law, accepted=True))
            return
        out += self._reject_lead(ev, f"{SEAT_LETTERS[correct]} led instead")

    def _reject_lead(self, ev: Event, why: str) -> list[Finding]:
        o, oci, f, correct, tn, key = self.ootl
        self.ootl = None
        out: list[Finding] = []
        self._take_back(o, oci)
        self.cur = []
        self.lead_turn = self.turn = correct
        if self._is_defender(o):
            law = "Law 54D" if key == "lead_out_of_turn_opening" else "Law 56"
            out.append(self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s lead out of turn was not accepted "
                                    f"({why}); {CARD_TEXT[oci]} becomes a major penalty card ({law}).", rule=law,
                                    accepted=False))
            out.append(self._penalty(ev, o, oci, True, f"led out of turn and not accepted ({law})", law))
            self._lead_options(ev, correct, out)
        else:
            out.append(self._update(f, ev, "corrected", f"The lead out of turn from {SEAT_LETTERS[o]} was not "
                                    f"accepted ({why}); {CARD_TEXT[oci]} goes back without rectification "
                                    "(Law 55B).", rule="Law 55B", accepted=False))
        return out

    def _accept(self, ev: Event) -> list[Finding]:
        """``accept``: the non-offending side's choice about the last irregularity."""
        self.last_index = ev.index
        d = ev.data
        yes = d.get("accepted", True)
        law = str(d.get("law", "")).upper().replace("LAW", "").strip()
        out: list[Finding] = []
        if self.ootl is not None:
            o, oci, f, correct, tn, key = self.ootl
            if not yes:
                return self._reject_lead(ev, f"{SEAT_LETTERS[seat_index(d['seat'])]} did not accept it")
            self.ootl = None
            if law == "54A" and key == "lead_out_of_turn_opening":
                self.declarer, self.dummy = self.dummy, self.declarer
                out.append(self._update(f, ev, "rectified", f"Declarer accepted {SEAT_LETTERS[o]}'s opening lead "
                                        f"and became dummy; {SEAT_LETTERS[self.declarer]} is declarer (Law 54A).",
                                        rule="Law 54A", accepted=True))
            else:
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s lead out of turn was accepted "
                                        "(Law 53A).", rule="Law 54B" if key.endswith("opening") else "Law 53A",
                                        accepted=True))
            return out
        a = self.auction
        if a.pending is not None:
            kind, o, f, snap, info = a.pending
            a.pending = None
            if not yes and kind != "oot":
                # Laws 27B / 36: the offender must now substitute a call; his next call resolves it.
                a.revert(snap)
                a.turn = o
                a.pending = (kind, o, f, snap, info)
                rule = "Law 27B" if kind == "insufficient" else "Law 36"
                return [self._update(f, ev, "pending", f"{SEAT_LETTERS[o]}'s {f.kind.replace('_', ' ')} was not "
                                     f"accepted; {SEAT_LETTERS[o]} must substitute a legal call ({rule}).",
                                     rule=rule, accepted=False)]
            if yes:
                if a.calls and a.calls[-1][2] in ("irregular", "cancelled") and kind != "inadmissible":
                    a.calls[-1][2] = "accepted"
                rule = "Law 27A" if kind == "insufficient" else "Law 29A"
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s {f.kind.replace('_', ' ')} was "
                                        f"accepted ({rule}).", rule=rule, accepted=True))
            else:
                a.revert(snap)
                out.append(self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s call out of turn was not "
                                        f"accepted; it is cancelled and the auction goes back to {SEAT_LETTERS[info]} "
                                        f"(Law 29B){self._cancelled_pass_bar(o, f, info, snap)}.", rule="Law 29B",
                                        accepted=False))
            return out
        return [self._bad("'accept' event with no irregularity waiting for a choice; skipped.", ev)]

    def _lead_demand(self, ev: Event) -> list[Finding]:
        """``lead_demand``: declarer requires or forbids a suit (Laws 50D2, 54D, 56, 26)."""
        self.last_index = ev.index
        d = ev.data
        suit_txt = str(d["suit"]).strip().upper()[:1]
        mode = str(d.get("demand", "require")).lower()
        if suit_txt not in SUIT_LETTER or mode not in ("require", "forbid"):
            return [self._bad(f"lead_demand {d.get('demand')!r} {d['suit']!r} not understood; skipped.", ev)]
        suit = SUIT_LETTER.index(suit_txt)
        leader = self.lead_turn if self.lead_turn is not None else self.turn
        if d.get("seat") is not None and self.declarer is None:
            self.declarer = seat_index(d["seat"])
        self.demand = [leader, suit, mode]
        out: list[Finding] = []
        if leader is not None:
            for p in list(self.pen[(leader + 2) & 3].values()):
                if SUIT[p.card] == suit:
                    out.append(self._drop_penalty(ev, p, f"Declarer chose to {mode} {SUIT_WORD[suit]} from "
                                                  f"{SEAT_LETTERS[leader]}; {CARD_TEXT[p.card]} goes back to the hand "
                                                  "(Law 50D2)."))
        return out
