"""The director's rulings applied to a bridge board (``director_ruling`` events).

A ruling never rewrites what the engine computed: the board's ``result``
finding stays the table result (Law 64 transfers as the engine decided
them), and each ruling adds a ``director_ruling`` finding carrying the **adjusted**
result beside the ``original`` one, so the dashboard, the broadcast and the
archive can show both.

* ``law`` 64A (64A1, 64A2) with ``tricks`` 1 or 2: the transfer the director
  applies for an established revoke (the engine's own transfer for that
  revoke is replaced, not added to); 64B: no transfer.
* ``law`` 64C, 12C (12C1, 12C2 ...) and the like: an adjusted score with the
  director's own numbers: an assigned result (``contract``, ``declarer``,
  ``tricks``) and/or a ``score`` (e.g. ``{"NS": 420, "EW": -420}`` or
  ``"60%-40%"``) kept as given.
* ``law`` 50D2 (or any ruling with ``demand`` and ``suit``): the lead
  restriction declarer chose, applied at once like a ``lead_demand`` event.

A ruling for a board still in play that needs the result (64, 12C) is
applied when the board ends.

>>> normal_law("Law 64A1"), normal_law("64c"), normal_law(" 12C1 ")
('64A1', '64C', '12C1')
"""

from __future__ import annotations

from typing import Any

from ...events import Event
from ...findings import Finding
from .common import FINISHED
from .tables import SEAT_LETTERS, SIDE_NAME, seat_index

TRANSFER_LAWS = ("64A", "64B")
"""Rulings that set the trick transfer for one revoke."""
LEAD_LAWS = ("50", "26", "54", "56")
"""Rulings that restrict the next lead (declarer's choice)."""


def normal_law(law: str) -> str:
    """``Law 64A1`` -> ``64A1``: the law number as the event may name it."""
    t = str(law).strip()
    if t.lower().startswith("law"):
        t = t[3:].strip()
    return t.upper()


class RulingRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard`: the director's rulings."""

    def cite_ruling(self, law: str) -> str:
        return f"Law {normal_law(law)}"

    def rule(self, event: Event) -> list[Finding]:
        self.rulings.append(event)
        self.last_index = event.index
        d = event.data
        law = normal_law(d["law"])
        out: list[Finding] = []
        if d.get("suit") is not None and (law.startswith(LEAD_LAWS) or d.get("demand")):
            demand = Event("lead_demand", {"suit": d["suit"], "demand": d.get("demand") or "require"},
                           event.index, event.ts, event.source)
            if self.phase is not FINISHED:
                out += self._lead_demand(demand)
            what = f"declarer {demand.data['demand']}s {str(d['suit']).upper()[:1]} from the player on lead"
            out.append(self.ruling_finding(event, self._say(event, what), lead={"suit": str(d["suit"]).upper()[:1],
                                                                              "demand": demand.data["demand"]}))
            return out
        if self.phase is not FINISHED:
            out.append(self.ruling_finding(event, self._say(event, "recorded; the adjusted result follows when "
                                                                   "the board ends"), pending=True))
            return out
        out.append(self._adjusted_finding(event))
        return out

    def finish(self, event: Event | None = None) -> list[Finding]:
        out = super().finish(event)  # type: ignore[misc]
        waiting = [r for r in self.rulings if not self._is_lead(r)]
        if waiting:
            out.append(self._adjusted_finding(waiting[-1]))
        return out

    # -- the adjusted result ----------------------------------------------------
    @staticmethod
    def _is_lead(r: Event) -> bool:
        law = normal_law(r.data["law"])
        return r.data.get("suit") is not None and (law.startswith(LEAD_LAWS) or bool(r.data.get("demand")))

    def _say(self, event: Event, what: str) -> str:
        d = event.data
        by = f" by {d['by']}" if d.get("by") else ""
        return f"Director's ruling{by} ({self.cite_ruling(d['law'])}): {what}."

    def _adjusted_finding(self, event: Event) -> Finding:
        adj = self.adjusted_result()
        if adj is None:
            return self.ruling_finding(event, self._say(event, "recorded (no result to adjust)"))
        o = adj["original"]

        def text(r: dict[str, Any]) -> str:
            if r.get("contract") in (None, "Pass"):
                return str(r.get("contract") or "no contract")
            return f"{r['contract']} by {r['declarer']}, {r['tricks']} tricks"

        what = f"result {text(adj)}" + (f" (table result {text(o)})" if text(adj) != text(o) else "")
        if adj.get("transfers"):
            what = "; ".join(f"{t['tricks']} trick{'s' if t['tricks'] != 1 else ''} transferred from "
                             f"{SIDE_NAME[seat_index_of(t['seat']) & 1]} for {t['seat']}'s revoke"
                             for t in adj["transfers"]) + "; " + what
        if adj.get("score") is not None:
            sc = adj["score"]
            what += "; score " + (", ".join(f"{k} {v}" for k, v in sc.items()) if isinstance(sc, dict) else str(sc))
        return self.ruling_finding(event, self._say(event, what), adjusted=True,
                                   **{k: adj[k] for k in ("declarer", "contract", "tricks", "score", "original",
                                                          "transfers") if k in adj})

    def adjusted_result(self) -> dict[str, Any] | None:
        """The result after every ruling so far, with the engine's as ``original``; None before the result."""
        res = next((f for f in reversed(self.findings) if f.kind == "result"), None)
        if res is None:
            return None
        original = {k: res.extra.get(k) for k in ("declarer", "contract", "tricks")}
        out: dict[str, Any] = dict(original)
        engine = {}   # the engine's transfers, by their finding id and by the revoke's
        for f in self.findings:
            if f.kind == "trick_transfer":
                engine[f.id] = f
                if f.extra.get("revoke"):
                    engine[f.extra["revoke"]] = f
        ruled: dict[str, tuple[str, int, int]] = {}
        assigned: dict[str, Any] = {}
        for r in self.rulings:
            d = r.data
            law = normal_law(d["law"])
            if law.startswith(TRANSFER_LAWS):
                t = engine.get(d.get("finding") or "")
                seat = str(d["seat"]) if d.get("seat") is not None else (t.seat if t is not None else None)
                if seat is None:
                    continue
                n = 0 if law.startswith("64B") else d.get("tricks")
                if n is None:
                    n = t.extra.get("tricks", 0) if t is not None else 1
                key = t.id if t is not None else f"{seat}-{d.get('finding')}"
                ruled[key] = (seat, max(0, min(2, int(n))), int(t.extra.get("tricks", 0)) if t is not None else 0)
            elif not self._is_lead(r):
                for k in ("contract", "tricks", "score"):
                    if d.get(k) is not None:
                        assigned[k] = d[k]
                if d.get("declarer") is not None:
                    assigned["declarer"] = str(d["declarer"])
        decl = out.get("declarer")
        if ruled and decl is not None and out.get("tricks") is not None:
            side = seat_index_of(decl) & 1
            tricks = int(out["tricks"])
            for seat, n, was in ruled.values():
                delta = n - was
                tricks += -delta if (seat_index_of(seat) & 1) == side else delta
            out["tricks"] = max(0, min(13, tricks))
            out["transfers"] = [{"seat": s, "tricks": n} for s, n, _ in ruled.values()]
        if "contract" in assigned:
            out["contract"] = str(assigned["contract"]).strip().upper().replace("NT", "N")
        if "declarer" in assigned:
            out["declarer"] = assigned["declarer"]
        if "tricks" in assigned:
            out["tricks"] = max(0, min(13, int(assigned["tricks"])))
        if "score" in assigned:
            out["score"] = assigned["score"]
        out["original"] = original
        return out


def seat_index_of(seat: Any) -> int:
    """0..3 for a seat letter or object."""
    i = seat_index(seat)
    return i if i is not None else SEAT_LETTERS.index(str(seat).upper()[:1])
