"""``tablecam serve`` settings: defaults < config file (TOML) < command line < environment token.

The director token is read from ``TABLECAM_DIRECTOR_TOKEN`` first: a token in
a file is easy to commit or copy by mistake, so the file is the fallback.

>>> cfg = ServerConfig.from_toml('[server]\\nport = 9000\\n[broadcast]\\ndelay_minutes = 5\\n')
>>> cfg.port, cfg.broadcast_delay_minutes, cfg.broadcast_delay_boards
(9000, 5.0, 1)
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from typing import Any

TOKEN_ENV = "TABLECAM_DIRECTOR_TOKEN"


@dataclasses.dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    director_token: str | None = None
    broadcast_delay_boards: int = 1
    broadcast_delay_minutes: float = 0.0
    broadcast_tables: list[str] | None = None
    silent_after_seconds: float = 120.0
    public_rate_per_minute: float = 240.0
    public_burst: int = 60

    @classmethod
    def from_toml(cls, text: str) -> "ServerConfig":
        data = tomllib.loads(text)
        srv: dict[str, Any] = data.get("server", {})
        bc: dict[str, Any] = data.get("broadcast", {})
        cfg = cls()
        for key in ("host", "port", "director_token", "silent_after_seconds", "public_rate_per_minute",
                    "public_burst"):
            if key in srv:
                setattr(cfg, key, srv[key])
        if "delay_boards" in bc:
            cfg.broadcast_delay_boards = int(bc["delay_boards"])
        if "delay_minutes" in bc:
            cfg.broadcast_delay_minutes = float(bc["delay_minutes"])
        if "tables" in bc:
            cfg.broadcast_tables = [str(t) for t in bc["tables"]] or None
        return cfg

    @classmethod
    def load(cls, path: str | None) -> "ServerConfig":
        if not path:
            return cls()
        with open(path, encoding="utf-8") as fp:
            return cls.from_toml(fp.read())

    def token(self) -> str | None:
        return os.environ.get(TOKEN_ENV) or self.director_token or None


def websocket_impl() -> str:
    """uvicorn's WebSocket implementation: the sans-I/O one where this uvicorn has it.

    The legacy ``websockets`` implementation is deprecated in new uvicorn
    releases, and older ones (``uvicorn>=0.27`` is allowed) lack the new one.
    """
    try:
        from uvicorn.config import WS_PROTOCOLS
    except ImportError:  # pragma: no cover
        return "auto"
    return "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "auto"
