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


OPERATOR_TOKENS_ENV = "TABLECAM_OPERATOR_TOKENS"


def parse_operator_tokens(text: str) -> dict[str, str]:
    """``TABLECAM_OPERATOR_TOKENS``: ``"t1:secret1,t2:secret2"`` -> ``{"t1": "secret1", ...}``.

    A table's operator (a tablet at the table, a VuGraph operator) may post
    events to its own table and read it, nothing else.  ValueError names a
    malformed entry.

    >>> parse_operator_tokens("t1:secret-one-1, t2:secret:two")
    {'t1': 'secret-one-1', 't2': 'secret:two'}
    >>> parse_operator_tokens("t1")
    Traceback (most recent call last):
    ...
    ValueError: operator token entry 't1' is not table:token
    """
    out: dict[str, str] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        table, sep, secret = part.partition(":")
        if not sep or not table.strip() or not secret.strip():
            raise ValueError(f"operator token entry {part!r} is not table:token")
        out[table.strip()] = secret.strip()
    return out


def operator_table(authorization: str | None, query_token: str | None, tokens: dict[str, str]) -> str | None:
    """The table whose operator token the request carries, or None (compared in constant time).

    >>> operator_table("Bearer s2-secret", None, {"t1": "s1-secret", "t2": "s2-secret"})
    't2'
    """
    found = None
    for table, secret in tokens.items():
        if check_token(authorization, query_token, secret):
            found = table
    return found


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


class GuessGuard:
    """Wrong director tokens per client address, and the lock-out they earn.

    A client may get ``burst`` tokens wrong (refilled at ``per_minute``);
    then it is locked out for ``lockout`` seconds, during which *every*
    request of it that carries a token is answered 429 unchecked, the right
    token included. Answering the right token at once would tell a guesser
    which guess was right at full speed; this way a guesser gets
    ``per_minute`` tries a minute and learns nothing while locked.

    >>> g = GuessGuard(per_minute=1, burst=2, lockout=60)
    >>> g.failed("10.0.0.9", now=0.0), g.failed("10.0.0.9", now=0.0), g.failed("10.0.0.9", now=1.0)
    (0.0, 0.0, 60.0)
    >>> g.locked("10.0.0.9", now=30.0), g.locked("10.0.0.9", now=61.5), g.locked("10.0.0.7", now=30.0)
    (31.0, 0.0, 0.0)
    """

    def __init__(self, per_minute: float = 10.0, burst: int = 20, lockout: float = 60.0,
                 max_clients: int = 10_000) -> None:
        self.tries = RateLimiter(per_minute, burst, max_clients)
        self.lockout = float(lockout)
        self.max_clients = max_clients
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def locked(self, client: str, now: float) -> float:
        """Seconds the client is still locked out (0.0: not locked)."""
        with self._lock:
            until = self._until.get(client)
            if until is None:
                return 0.0
            if now >= until:
                del self._until[client]
                return 0.0
            return until - now

    def failed(self, client: str, now: float) -> float:
        """Count a wrong token; returns the lock-out it earned (0.0: none yet)."""
        if self.tries.allow(client, now):
            return 0.0
        with self._lock:
            if len(self._until) >= self.max_clients:
                self._until = {c: u for c, u in self._until.items() if u > now}
            self._until[client] = now + self.lockout
        return self.lockout
