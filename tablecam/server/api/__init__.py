"""The director station's HTTP and WebSocket API, one router per concern.

:func:`tablecam.server.app.create_app` builds a :class:`~.deps.Station`
(the hub, the broadcast view, the live fan-out and the settings) and mounts:

- :mod:`.public`: ``/healthz``, the broadcast page and the delayed ``/public/...`` data.
- :mod:`.operator`: the dashboard page and ``/api/whoami`` (what this station is).
- :mod:`.tables`: tables, their event logs, uploads of events, health and camera frames.
- :mod:`.alerts`: the alert queue, acknowledgements and rulings.
- :mod:`.archive`: PBN, LIN and JSON Lines downloads.
- :mod:`.websockets`: ``/api/ws`` (director) and ``/ws/broadcast`` (public).

:mod:`.middleware` guards every request (size, token, rate limits, headers);
:mod:`.models` holds the request bodies; :mod:`.deps` the shared dependencies.
"""
