"""The director's rulings applied: an alert's ruling as a ``director_ruling`` event.

Recording a ruling (``POST /api/alerts/{n}/ruling``) keeps the director's
words on the alert.  With ``apply`` it also changes the board: the ruling
becomes a ``director_ruling`` event in the table's log (delivered like every
event entered at the station, through the table's node when one runs it),
so the engine reports the adjusted result beside the original one, and the
dashboard, the broadcast (after its delay) and the archive all show it.

What can be applied, by the alert's kind (bridge):

* ``trick_transfer`` or an established ``revoke``: Law 64A (one or two
  tricks; the engine's computed number by default), 64B (no transfer), or an
  adjusted score (64C);
* a penalty card or a lead out of turn (``penalty_card``, ``lead_out_of_turn``,
  ``lead_options``): the Law 50D2 lead restriction declarer chose (``demand``
  require or forbid, ``suit``);
* any alert: an adjusted score under 12C with the director's own numbers
  (an assigned ``contract``/``declarer``/``tricks`` and/or a ``score``).

Other games take an adjusted ``score`` (and ``tricks``) under the section the
director names.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import HTTPException

from ..rules.bridge.rulings import normal_law
from .api.deps import Station
from .api.models import ApplyIn, RulingIn
from .services.delivery import deliver

TRANSFER_KINDS = ("trick_transfer", "revoke")
LEAD_KINDS = ("penalty_card", "lead_out_of_turn", "lead_options")


def problem(alert: dict[str, Any], a: ApplyIn) -> str | None:
    """Why ``a`` cannot be applied to ``alert`` (a 422 for the director), or None.

    >>> problem({"kind": "trick_transfer", "finding": {"game": "bridge"}}, ApplyIn(law="64A", tricks=3))
    'Law 64A transfers one or two tricks'
    >>> problem({"kind": "bad_event", "finding": {}}, ApplyIn(law="64A", tricks=1))
    'Law 64A/64B applies to a revoke or a trick transfer, not to bad_event'
    """
    law = normal_law(a.law)
    kind = alert.get("kind")
    # an alert is an incident: the findings that joined it count (a revoke's transfer, its penalty card)
    kinds = {kind} | {f.get("kind") for f in alert.get("findings") or []}
    if law.startswith(("64A", "64B")):
        if not kinds & set(TRANSFER_KINDS):
            return f"Law 64A/64B applies to a revoke or a trick transfer, not to {kind}"
        if law.startswith("64A") and a.tricks is not None and a.tricks not in (1, 2):
            return "Law 64A transfers one or two tricks"
        if not alert.get("seat") and not (alert.get("finding") or {}).get("seat"):
            return "the alert names no offender"
        return None
    if a.suit is not None or a.demand is not None:
        if a.suit is None:
            return "a lead restriction needs the suit"
        if not kinds & set(LEAD_KINDS):
            return f"a lead restriction (Law 50D2) applies to a penalty card or a lead out of turn, not to {kind}"
        return None
    if a.contract is None and a.tricks is None and a.score is None:
        return f"Law {law}: give the adjusted result (contract, declarer, tricks) or the score"
    if a.contract not in (None, "Pass") and a.declarer is None:
        return "an assigned contract needs its declarer"
    return None


def ruling_event(alert: dict[str, Any], a: ApplyIn, by: str, text: str) -> dict[str, Any]:
    """The ``director_ruling`` event that applies ``a`` to the alert's board."""
    f = alert.get("finding") or {}
    ev: dict[str, Any] = {"type": "director_ruling", "law": a.law.strip(), "board": alert.get("board"),
                          "finding": alert.get("finding_id") or f.get("id"), "by": by, "text": text,
                          "alert": alert.get("key"), "source": "director", "ts": round(time.time(), 3)}
    seat = alert.get("seat") or f.get("seat")
    if seat and normal_law(a.law).startswith(("64A", "64B")):
        ev["seat"] = seat
    for k in ("tricks", "contract", "declarer", "score", "demand", "suit"):
        v = getattr(a, k)
        if v is not None:
            ev[k] = v
    if a.suit is not None and a.demand is None:
        ev["demand"] = "require"
    return {k: v for k, v in ev.items() if v is not None}


def describe(ev: dict[str, Any]) -> str:
    """The ruling in a few words, for the alert's ``option`` when the director chose none.

    >>> describe({"law": "64A", "tricks": 1})
    'Law 64A: 1 trick transferred (applied)'
    """
    law = normal_law(ev["law"])
    if law.startswith("64A"):
        n = ev.get("tricks")
        return f"Law {law}: " + (f"{n} trick{'s' if n != 1 else ''} transferred" if n else "transfer as computed") \
            + " (applied)"
    if law.startswith("64B"):
        return f"Law {law}: no trick transferred (applied)"
    if ev.get("suit"):
        return f"Law {law}: declarer {ev.get('demand', 'require')}s {ev['suit']} (applied)"
    parts = []
    if ev.get("contract"):
        parts.append(f"{ev['contract']} by {ev.get('declarer', '?')}")
    if ev.get("tricks") is not None:
        parts.append(f"{ev['tricks']} tricks")
    if ev.get("score") is not None:
        sc = ev["score"]
        parts.append(", ".join(f"{k} {v:g}" for k, v in sc.items()) if isinstance(sc, dict) else str(sc))
    return f"Law {law}: adjusted score " + "; ".join(parts) + " (applied)"


def apply_ruling(st: Station, alert: dict[str, Any], body: RulingIn) -> dict[str, Any]:
    """Apply the ruling to the board (the event), then record it on the alert."""
    assert body.apply is not None
    why = problem(alert, body.apply)
    if why:
        raise HTTPException(422, why)
    ev = ruling_event(alert, body.apply, body.by, body.text)
    try:
        deliver(st, alert["table"], [ev])
    except OverflowError as e:
        raise HTTPException(429, str(e)) from None
    return st.hub.rule(alert["id"], body.by, body.text, body.option or describe(ev), applied=ev)
