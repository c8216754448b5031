"""Configuration of a table node (``tablecam run --config config/table.toml``).

Pydantic models with unknown keys forbidden: a typo such as ``prot = 1883``
is an error naming the key and the file, never silently ignored, because a
table that quietly runs with a default broker address is a table whose
irregularities nobody sees.

Every file a user edits is read in this one style: the table and
championship configs here, ``tablecam serve``'s (:mod:`tablecam.server.config`),
the camera's (:mod:`tablecam.vision.zones`) and the detector's settings
(:mod:`tablecam.vision.settings`) build on :class:`_Strict` and
:func:`parse_config`, so each refuses an unknown key with a
:class:`ConfigError` that names the file and the key.

>>> cfg = parse_config({"table": {"id": "t1", "game": "bridge"}}, TableConfig)
>>> cfg.bus.kind, cfg.store.path
('inproc', 'data/t1.sqlite')
>>> parse_config({"table": {"id": "t1", "gmae": "bridge"}}, TableConfig, "club.toml")
Traceback (most recent call last):
...
tablecam.config.ConfigError: club.toml: unknown key 'table.gmae'
"""

from __future__ import annotations

import os
import tomllib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class ConfigError(ValueError):
    """A configuration file could not be used; the message names the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableSection(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$", description="table id, used in MQTT topics")
    game: Literal["bridge", "vira", "pidro", "whist"] = "bridge"
    name: str | None = None
    first_board: int = 1
    dealer: Literal["N", "E", "S", "W"] = "N"


class BusSection(_Strict):
    kind: Literal["inproc", "mqtt"] = "inproc"
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    username: str | None = None
    password_env: str | None = Field(None, description="environment variable holding the MQTT password")
    prefix: str = "tablecam"

    def password(self) -> str | None:
        return os.environ.get(self.password_env) if self.password_env else None


class StoreSection(_Strict):
    path: str | None = None
    durable: bool = True


class ShoeSection(_Strict):
    port: str = Field("sim", description="pyserial URL, 'sim' for the built-in simulator, or 'none'")
    faults: float = Field(0.0, ge=0.0, le=1.0, description="simulator fault rate")


class CameraSection(_Strict):
    source: str = Field("none", description="device index, video file, RTSP/HTTP URL, 'sim' or 'none'")
    config: str | None = None


class SimSection(_Strict):
    boards: int = Field(4, ge=0, description="boards to play (0: forever)")
    speed: float = Field(1.0, gt=0, description="1.0 = table speed; 10 = ten times faster")
    seed: int = 1
    irregularities: float = Field(0.25, ge=0.0, le=1.0, description="chance of an irregularity per board")


class TableConfig(_Strict):
    table: TableSection
    bus: BusSection = BusSection()
    store: StoreSection = StoreSection()
    shoe: ShoeSection = ShoeSection()
    camera: CameraSection = CameraSection()
    sim: SimSection = SimSection()

    @model_validator(mode="after")
    def _default_store(self) -> "TableConfig":
        if self.store.path is None:
            self.store.path = f"data/{self.table.id}.sqlite"
        return self


class ChampionshipSection(_Strict):
    name: str
    tables: int = Field(ge=1, le=1000)
    table_prefix: str = "t"
    game: Literal["bridge", "vira", "pidro", "whist"] = "bridge"

    @field_validator("table_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        if any(c in v for c in "/+# "):
            raise ValueError("table_prefix may not contain '/', '+', '#' or spaces")
        return v


class ChampionshipConfig(_Strict):
    """A whole event: many table nodes sharing one broker, one or more stations."""

    championship: ChampionshipSection
    bus: BusSection = BusSection(kind="mqtt")
    sim: SimSection = SimSection()

    def table_ids(self) -> list[str]:
        width = len(str(self.championship.tables))
        return [f"{self.championship.table_prefix}{i:0{width}d}" for i in range(1, self.championship.tables + 1)]


def format_errors(errors: list, path: str) -> str:
    """Pydantic's errors as one line: the file, then each bad key and why."""
    lines = []
    for err in errors:
        key = ".".join(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            lines.append(f"{path}: unknown key '{key}'")
        else:
            lines.append(f"{path}: '{key}': {msg}" if key else f"{path}: {msg}")
    return "; ".join(lines)


def load_table_config(path: str) -> TableConfig:
    return _load(path, TableConfig)


def load_championship_config(path: str) -> ChampionshipConfig:
    return _load(path, ChampionshipConfig)


def _load(path: str, model: type[_Strict]):
    return parse_config(read_toml(path), model, str(path))


def read_toml(path: str | os.PathLike) -> dict:
    """A TOML file's contents; :class:`ConfigError` naming the file when it cannot be read."""
    try:
        with open(path, "rb") as fp:
            return tomllib.load(fp)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: not valid TOML ({e})") from None


def parse_config(data: dict, model: type[_Strict], path: str = "<config>"):
    """Validate a decoded config; raise :class:`ConfigError` naming the bad key."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ConfigError(format_errors(e.errors(), path)) from None
