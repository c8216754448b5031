"""Keep the station's garbage collector from stopping the event loop for seconds.

The station holds every table's whole log, engine state and findings: with
200 tables that is millions of long-lived objects, and CPython's full
(generation 2) collection walks all of them. Measured with
``bench/operator/run.py`` (200 tables), single full collections took 0.6 and
1.6 s on a loaded machine, and every request and WebSocket push waited
behind them: an operator's call reached the dashboard after 2 s instead of
20 ms.

Those objects live as long as the session, so they are moved out of the
collector's sight (:func:`gc.freeze`) at start-up and then every
:data:`FREEZE_INTERVAL` seconds; a full collection then walks only what was
allocated since.  Objects are still freed by reference counting as usual;
what is given up is collecting reference cycles that were still alive at a
freeze and became garbage later (rare here: events, findings and states are
trees), which costs memory, not correctness.
"""

from __future__ import annotations

import asyncio
import gc

FREEZE_INTERVAL = 30.0


async def keep_heap_frozen(interval: float = FREEZE_INTERVAL) -> None:
    """Freeze what exists now (the replayed logs), then again every ``interval`` seconds."""
    while True:
        gc.freeze()
        await asyncio.sleep(interval)
