"""Fuzz the published OpenAPI spec with schemathesis: no request may cause a 500.

Bounded by default (a few examples per operation, well under 20 s); the big
run is marked slow: ``pytest -m slow tests/test_api_fuzz.py``.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from tablecam.server.app import create_app
from tablecam.server.hub import TABLE_ID, TableHub

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


@schema.parametrize()
@settings(max_examples=6, **SETTINGS)
def test_every_answer_is_one_the_schema_lists(case):
    """401, 404, 413, 422 and 429 are published with their bodies; a ``table_id`` has its pattern."""
    case.call_and_validate(headers=AUTH, checks=[not_a_server_error, status_code_conformance,
                                                  response_schema_conformance])


def test_schema_publishes_the_error_answers_and_the_table_id_pattern():
    ops = APP.openapi()["paths"]
    table = ops["/api/tables/{table_id}"]["get"]
    assert {"401", "404", "422", "429"} <= set(table["responses"])
    assert {"401", "413", "400"} <= set(ops["/api/tables/{table_id}/events"]["post"]["responses"])
    param = next(p for p in table["parameters"] if p["name"] == "table_id")
    assert param["schema"]["pattern"] == TABLE_ID.pattern
    detail = APP.openapi()["components"]["schemas"]["ValidationProblem"]["properties"]["detail"]
    assert {"string"} <= {alt.get("type") for alt in detail["anyOf"]}, "a 422 detail may be a sentence"


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=300, **SETTINGS)
def test_no_server_errors_big_run(case):
    case.call_and_validate(headers=AUTH, checks=[not_a_server_error, status_code_conformance,
                                                  response_schema_conformance])
