"""``tablecam serve`` settings: defaults < config file (TOML) < command line < environment token.

The file is read strictly, in the same style as the table config
(:mod:`tablecam.config`): an unknown key or a value of the wrong type is an
error that names the key, because a typo such as ``delay_bords = 2`` that
silently leaves the broadcast one board behind would show hands early.

The director token is read from ``TABLECAM_DIRECTOR_TOKEN`` first: a token in
a file is easy to commit or copy by mistake, so the file is the fallback.

>>> cfg = ServerConfig.from_toml('[server]\\nport = 9000\\n[broadcast]\\ndelay_minutes = 5\\n')
>>> cfg.port, cfg.broadcast_delay_minutes, cfg.broadcast_delay_boards
(9000, 5.0, 1)
>>> ServerConfig.from_toml('[server]\\nprot = 9000\\n', "station.toml")
Traceback (most recent call last):
...
tablecam.config.ConfigError: station.toml: unknown key 'server.prot'
>>> ServerConfig.from_toml('[server]\\ndirector_token = 123\\n')
Traceback (most recent call last):
...
tablecam.config.ConfigError: <config>: 'server.director_token': Input should be a valid string
"""

from __future__ import annotations

import dataclasses
import os
import tomllib

from pydantic import Field

from ..config import ConfigError, _Strict, parse_config, read_toml
from .security import OPERATOR_TOKENS_ENV, parse_operator_tokens

TOKEN_ENV = "TABLECAM_DIRECTOR_TOKEN"


class ServerSection(_Strict):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    director_token: str | None = Field(None, min_length=1, description=f"prefer {TOKEN_ENV}")
    silent_after_seconds: float = Field(120.0, gt=0)
    public_rate_per_minute: float = Field(240.0, gt=0)
    public_burst: int = Field(60, ge=1)
    operator_tokens: dict[str, str] | None = Field(
        None, description="table id -> that table's operator token; prefer TABLECAM_OPERATOR_TOKENS")


class BroadcastSection(_Strict):
    delay_boards: int = Field(1, ge=0)
    delay_minutes: float = Field(0.0, ge=0)
    tables: list[str] | None = None


class ServerFile(_Strict):
    """The whole ``--config`` file of ``tablecam serve``."""

    server: ServerSection = ServerSection()
    broadcast: BroadcastSection = BroadcastSection()


@dataclasses.dataclass
class ServerConfig:
    """The settings ``tablecam serve`` runs with (flat, as the command line overrides them)."""

    host: str = "127.0.0.1"
    port: int = 8000
    director_token: str | None = None
    broadcast_delay_boards: int = 1
    broadcast_delay_minutes: float = 0.0
    broadcast_tables: list[str] | None = None
    silent_after_seconds: float = 120.0
    public_rate_per_minute: float = 240.0
    public_burst: int = 60
    operator_tokens: dict[str, str] | None = None

    @classmethod
    def from_toml(cls, text: str, path: str = "<config>") -> "ServerConfig":
        """Parse and check a config file's text; :class:`ConfigError` names the bad key."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML ({e})") from None
        return cls.from_dict(data, path)

    @classmethod
    def from_dict(cls, data: dict, path: str = "<config>") -> "ServerConfig":
        """A decoded config file, checked; :class:`ConfigError` names the bad key."""
        f: ServerFile = parse_config(data, ServerFile, path)
        s, b = f.server, f.broadcast
        return cls(host=s.host, port=s.port, director_token=s.director_token,
                   broadcast_delay_boards=b.delay_boards, broadcast_delay_minutes=b.delay_minutes,
                   broadcast_tables=list(b.tables) if b.tables else None,
                   silent_after_seconds=s.silent_after_seconds,
                   public_rate_per_minute=s.public_rate_per_minute, public_burst=s.public_burst,
                   operator_tokens=dict(s.operator_tokens) if s.operator_tokens else None)

    @classmethod
    def load(cls, path: str | None) -> "ServerConfig":
        if not path:
            return cls()
        return cls.from_dict(read_toml(path), path)

    def token(self) -> str | None:
        return os.environ.get(TOKEN_ENV) or self.director_token or None

    def operators(self) -> dict[str, str]:
        """Each table's operator token: ``TABLECAM_OPERATOR_TOKENS`` first, else the file's
        ``[server.operator_tokens]`` (ValueError for a malformed variable)."""
        env = os.environ.get(OPERATOR_TOKENS_ENV)
        if env:
            return parse_operator_tokens(env)
        return dict(self.operator_tokens or {})


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
