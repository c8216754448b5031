"""Fuzz the published OpenAPI spec with schemathesis: no request may cause a 500.

Bounded by default (a few examples per operation, well under 20 s); the big
run is marked slow: ``pytest -m slow tests/test_api_fuzz.py``.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tablecam.server.app import create_app
from tablecam.server.hub import TableHub

TOKEN = "fuzz-director-token-42"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _app():
    hub = TableHub()
    # some state for the generated ids to hit: a table with a board and an open alert
    hub.ingest("t1", {"type": "board", "game": "bridge", "board": 1, "dealer": "N"})
    hub.ingest("t1", {"kind": "revoke", "rule": "Law 61", "message": "S revoked.", "event": 0, "id": "r1"})
    return create_app(hub, token=TOKEN, public_burst=100_000, public_rate_per_minute=1e9)


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value):
    """JSON Lines bodies: a generated string is sent as it is (one or more lines)."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else str(value).encode()


APP = _app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@schema.parametrize()
@settings(max_examples=8, **SETTINGS)
def test_no_server_errors(case):
    case.call_and_validate(headers=AUTH, checks=[not_a_server_error])


@schema.parametrize()
@settings(max_examples=4, **SETTINGS)
def test_no_server_errors_without_token(case):
    response = case.call()
    assert response.status_code < 500
    if case.path.startswith("/api/"):
        guessed = any(k.lower() == "authorization" for k in (case.headers or {}))
        # a generated (wrong) token counts as a guess: after many, the guesser is slowed down (429)
        assert response.status_code == 401 or (guessed and response.status_code == 429)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=300, **SETTINGS)
def test_no_server_errors_big_run(case):
    case.call_and_validate(headers=AUTH, checks=[not_a_server_error])
