"""Request bodies of the director API, validated before any handler runs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AckIn(BaseModel):
    """Acknowledge an alert: the director has seen it (and who that was)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    by: str = Field(min_length=1, max_length=80, description="director's name or initials")


class ApplyIn(BaseModel):
    """What a ruling applies to the board (a ``director_ruling`` event, see docs/contracts.md)."""

    model_config = ConfigDict(extra="forbid")
    law: str = Field(min_length=1, max_length=24, pattern=r"^[A-Za-z0-9 .()-]+$",
                     description="64A, 64B, 64C, 12C1, 50D2 ... (another game: its own section)")
    tricks: int | None = Field(None, ge=0, le=13, description="64A: tricks transferred; 64C/12C: declarer's tricks")
    contract: str | None = Field(None, max_length=8, pattern=r"^([1-7](C|D|H|S|N|NT)(X|XX)?|Pass)$",
                                 description="64C/12C: the assigned contract")
    declarer: Literal["N", "E", "S", "W"] | None = None
    score: dict[str, float] | str | None = Field(None, description='the director\'s own numbers: {"NS": 420, '
                                                                  '"EW": -420} or a text such as "60%-40%"')
    demand: Literal["require", "forbid"] | None = Field(None, description="50D2: declarer's lead restriction")
    suit: Literal["S", "H", "D", "C"] | None = None


class RulingIn(BaseModel):
    """A director's ruling on an alert: the option chosen and the reasons, in words."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    by: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=1, max_length=4000, description="the ruling as the director wrote it")
    option: str | None = Field(None, max_length=300, description="one of the alert's options, or another")
    apply: ApplyIn | None = Field(None, description="apply the ruling to the board (its result, the archive)")


class Detection(BaseModel):
    """One recognised card, as ``tablecam detect --json`` writes it."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    card: str = Field(min_length=1, max_length=8)
    conf: float | None = Field(None, ge=0, le=1)
    box: list[float] = Field(min_length=4, max_length=4)


class FrameIn(BaseModel):
    """A camera frame (base64 JPEG or PNG) and the cards recognised on it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    image: str = Field(min_length=8, max_length=6_000_000, description="base64 of a JPEG or PNG file")
    cards: list[Detection] = Field(default_factory=list, max_length=200)
    width: int | None = Field(None, ge=1, le=20000)
    height: int | None = Field(None, ge=1, le=20000)


class HealthIn(BaseModel):
    """A shoe or camera node reporting how it is."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    source: Literal["shoe", "camera"]
    status: Literal["ok", "degraded", "down", "unknown"]
    detail: str | None = Field(None, max_length=200)


INGEST_BODY = {
    "requestBody": {
        "required": True,
        "description": "Events to fold into the table: a JSON list (or one object) with "
                       "`Content-Type: application/json`, or JSON Lines (`application/x-ndjson` "
                       "or `text/plain`). Unreadable items become `bad_event` findings.",
        "content": {
            "application/json": {"schema": {"oneOf": [
                {"type": "array", "items": {"type": "object"}, "maxItems": 100000},
                {"type": "object"}]}},
            "application/x-ndjson": {"schema": {"type": "string"}},
            "text/plain": {"schema": {"type": "string"}},
        },
    }
}
