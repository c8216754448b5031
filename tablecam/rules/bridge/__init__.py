"""Contract bridge: the Laws of Duplicate Bridge 2017 as an event-sourced engine.

:class:`BridgeBoard` folds one board's events (``deal``, ``call``, ``play``,
``retract``, ``expose``, ``claim``, ``end`` from the contract, plus the
bridge-only events registered below) into state and findings. See
``docs/bridge.md`` for the events, findings and Laws covered.
"""

from __future__ import annotations

from ...events import register_event_type
from .board import LAWS, BridgeBoard

register_event_type(
    "accept", {"seat": "seat"}, {"accepted": "bool", "law": "str"}, games=("bridge",),
    doc="the non-offending side's choice about the last irregularity (call out of turn, insufficient bid, "
        "lead out of turn): accepted true/false; law '54A' = declarer accepts a faced opening lead and "
        "becomes dummy")
register_event_type(
    "lead_demand", {"suit": "str"}, {"seat": "seat", "demand": "str"}, games=("bridge",),
    doc="declarer requires (demand 'require') or forbids ('forbid') a suit from the player on lead "
        "(Laws 50D2, 54D, 56, 26)")
register_event_type(
    "contract", {"contract": "str"}, {"declarer": "seat"}, games=("bridge",),
    doc="the final contract when the log has no auction (e.g. an archive with only the Contract tag)")

__all__ = ["BridgeBoard", "LAWS"]
