"""Director authentication and the public side's rate limit.

One bearer token, configured at start-up (``TABLECAM_DIRECTOR_TOKEN`` or the
config file), never a default: a venue network is shared with players and
spectators, so an unauthenticated director endpoint would hand them every
hand at every table. Tokens are compared in constant time.

>>> check_token("Bearer s3cret", None, "s3cret"), check_token("Bearer nope", None, "s3cret")
(True, False)
>>> check_token(None, "s3cret", "s3cret"), check_token(None, None, "s3cret")
(True, False)
>>> bucket = RateLimiter(per_minute=2, burst=2)
>>> [bucket.allow("1.2.3.4", now=0.0) for _ in range(3)]
[True, True, False]
>>> bucket.allow("1.2.3.4", now=30.0)
True
"""

from __future__ import annotations

import hmac
import threading

MIN_TOKEN_LENGTH = 12
"""Shorter tokens get a loud warning at start-up: a guessable credential is barely a credential."""


def check_token(authorization: str | None, query_token: str | None, token: str | None) -> bool:
    """True when the request carries the director token (header, or ``token`` query for WebSockets)."""
    if not token:
        return False
    given = None
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer":
            given = value.strip()
    if given is None and query_token:
        given = query_token
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8", "replace"))


def token_problem(token: str | None) -> str | None:
    """Why a configured token is unacceptable (the server will not start), or None.

    >>> token_problem(""), token_problem("a b"), token_problem("a-long-enough-secret") is None
    ('no director token configured', 'the director token must not contain spaces or line breaks', True)
    """
    if not token:
        return "no director token configured"
    if any(c in token for c in "\r\n\t "):
        return "the director token must not contain spaces or line breaks"
    return None


def token_warning(token: str | None) -> str | None:
    """A weakness worth printing at start-up (the server still starts).

    >>> token_warning("secret")
    'the director token is shorter than 12 characters; anyone on the venue network may guess it'
    """
    if token and len(token) < MIN_TOKEN_LENGTH:
        return (f"the director token is shorter than {MIN_TOKEN_LENGTH} characters; "
                "anyone on the venue network may guess it")
    return None


class RateLimiter:
    """Token bucket per client address: ``per_minute`` sustained, ``burst`` at once.

    Public pages poll and reconnect; a spectator's phone stuck in a reload
    loop (or a scraper) must not starve the director's dashboard.
    """

    def __init__(self, per_minute: float = 240.0, burst: int = 60, max_clients: int = 10_000) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_clients = max_clients
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, client: str, now: float) -> bool:
        with self._lock:
            tokens, last = self._buckets.get(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            ok = tokens >= 1.0
            if ok:
                tokens -= 1.0
            if len(self._buckets) >= self.max_clients and client not in self._buckets:
                self._buckets.clear()  # crude but bounded: forget everyone rather than grow forever
            self._buckets[client] = (tokens, now)
            return ok
