"""The director station: dashboard, alert queue, delayed broadcast and archive (``tablecam serve``).

Modules, one job each:

- :mod:`.hub`: :class:`~.hub.TableHub`, every table's event log, state,
  health and alerts; the seam every event source feeds (no web imports).
  Its parts are small services in :mod:`.services`: ``decode`` (reading
  what a table sends), ``alertbook`` (one alert per incident, the
  director's acknowledgements and rulings, the queue's bounds), ``frames``,
  ``evidence`` and ``health``.
- :mod:`.broadcast`: the public, delayed fold of each table.
- :mod:`.app`: ``create_app(hub, token=...)``, which puts the app together.
- :mod:`.api`: the routers, one per concern (public, operator, tables,
  alerts and rulings, archive, WebSockets), the request guard and bodies.
- :mod:`.services`: the hub's parts (above) and what the routers do beyond
  calling the hub (reading uploads, writing downloads, delivering events).
- :mod:`.fanout`: live pushes to the dashboards and broadcast pages.
- :mod:`.security`: token check and rate limiting.
- :mod:`.config`: settings from the TOML file (strict: unknown keys refused) and the environment.
- :mod:`.persist`: rulings kept in the durable event store.
- :mod:`.replayer`: replay files into a hub at table speed.
- :mod:`.rules_index`: rule citations to the text a director reads.
- :mod:`.cli`: the ``serve`` command (FastAPI/uvicorn imported inside it).

The real deals the tests, screenshots and benchmarks feed it are in
:mod:`tablecam.sim.real_deals`; the uvicorn-in-a-thread helper and the
screenshot script are the tests' (``tests/live_server.py``,
``tests/screenshots.py``).
"""
