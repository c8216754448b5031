"""The games' rule tables, each read into a strict model once.

A rule table is a file a club edits (a bid ladder, a points table, a
variant's switch), so it is read in the style of every other config
(:mod:`tablecam.config`): an unknown key or a value of the wrong type is a
:class:`~tablecam.config.ConfigError` naming the file and the key, never a
table that quietly plays with a default. Keys starting with ``_`` are
comments. The engines read the parsed model, so each default lives here once.

Files come from :func:`tables_dir`: the shipped tables inside the package,
or ``$TABLECAM_CONFIG/<game>/<name>.json`` for a club's own; a table may
``extends`` another, and the tournament's ruleset dict is laid over the
files. Each (files, overrides) pair is parsed once per process.

>>> load_table("pidro", None, "sou").bidding.max_bid
14
>>> parse_table({"name": "x", "ladder": ["7"], "nolo": {}, "paahaeng": {}, "paahaeng_order": [],
...              "deal": {"cards_each": 13, "kitty": 3, "jokers": 3}, "points": {"contracts": {"7": 1}},
...              "frist_lead": "forhaand"}, WhistTable, "club.json")
Traceback (most recent call last):
...
tablecam.config.ConfigError: club.json: unknown key 'frist_lead'
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, ValidationError, model_validator

from ..config import ConfigError, _Strict, format_errors, parse_config

RULES_DIR = Path(__file__).resolve().parent
"""``tablecam/rules``: each game's shipped rule tables are package data in ``<game>/tables/``."""

GAMES = ("vira", "pidro", "whist")

M = TypeVar("M", bound="_Section")


def tables_dir(game: str, shipped: bool = False) -> Path:
    """Where ``game``'s rule tables are read from.

    The shipped tables (``tablecam/rules/<game>/tables``) travel inside the
    package, so an installed wheel finds them wherever it runs. A club with
    its own tables points ``TABLECAM_CONFIG`` at a folder holding
    ``<game>/<name>.json`` (the layout of the repository's ``config/``);
    ``shipped`` ignores it (the engines' fallback when a named table fails).

    >>> tables_dir("whist").parts[-3:]
    ('rules', 'whist', 'tables')
    """
    custom = None if shipped else os.environ.get("TABLECAM_CONFIG")
    return Path(custom) / game if custom else RULES_DIR / game / "tables"


class _Section(_Strict):
    """A part of a rule table: strict, frozen (one parsed table serves every board), ``_`` keys are comments."""

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _drop_comments(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        kept = {f.alias for f in cls.model_fields.values() if f.alias}
        return {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("_") and k not in kept)}


class _Table(_Section):
    """What every rule table file has: its name, what it extends, where it comes from."""

    name: str = ""
    extends: str | None = None
    title: str = ""
    source: str = ""


# -- Pidro -----------------------------------------------------------------------

class PidroDeal(_Section):
    cards_each: int = Field(ge=1)
    packet: int = Field(ge=1)
    final_hand: int = Field(ge=1)


class PidroBidding(_Section):
    min_bid: int
    max_bid: int
    all_pass_dealer_bid: int


class PidroTable(_Table):
    """A Pidro variant (``sou.json``, ``no-14-over-14.json``)."""

    players: Literal[4] = 4
    deal: PidroDeal
    bidding: PidroBidding
    dealer_14_over_14: bool = True
    dealer_14_over_14_set: int
    game_to: int
    penalty: int
    repeat_penalty: int
    penalised: list[str] = []
    points: dict[Literal["A", "K", "Q", "J", "T", "9", "8", "7", "6", "4", "3", "2", "pidro"], int]
    """What each trump rank counts; a rank not listed counts nothing, but ``pidro`` (each five) must
    be given: a table that forgot it would otherwise score every pidro by a default it never says."""

    @model_validator(mode="after")
    def _pidro_counted(self) -> "PidroTable":
        if "pidro" not in self.points:
            raise ValueError("points must give 'pidro' (what each pidro, a trump five, counts)")
        return self


# -- whist -----------------------------------------------------------------------

class WhistDeal(_Section):
    cards_each: int = Field(ge=1)
    kitty: int = Field(ge=0)
    jokers: int = Field(ge=0)


class Nolo(_Section):
    max_tricks: int = Field(ge=0)
    open: bool = False


class Paahaeng(_Section):
    trump: Literal["kitty", "partner", "declarer", "S", "H", "D", "C"] | None = "declarer"
    joinable: bool = False


class WhistPoints(_Section):
    contracts: dict[str, int]
    overtrick: int = 0
    undertrick: int = 0
    status: str = Field("", alias="_status", description="'GUESS ...' marks a table the club has not confirmed")


class WhistTable(_Table):
    """Es-makker whist: the ladder, the nolo bids, the påhæng and the points (``whistklubben.json``)."""

    deal: WhistDeal
    ladder: list[str]
    nolo: dict[str, Nolo]
    paahaeng: dict[str, Paahaeng]
    paahaeng_order: list[str]
    paahaeng_fixed_places: dict[str, int] = {}
    first_lead: Literal["forhaand", "declarer_lho"] = "forhaand"
    joker_lead_suit: Literal["none", "next"] = "none"
    points: WhistPoints
    revoke_remedy: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "WhistTable":
        order = self.paahaeng_order
        if sorted(order) != sorted(self.paahaeng):
            raise ValueError(f"paahaeng_order {order} must list each påhæng once")
        for p, place in self.paahaeng_fixed_places.items():
            if p not in order or order.index(p) + 1 != place:
                raise ValueError(f"{p} must be at place {place} of the påhæng order (Påhæng)")
        missing = [r for r in self.ladder if r not in self.points.contracts]
        if missing or any(r not in self.ladder for r in self.nolo):
            raise ValueError(f"every rung needs points and every nolo bid a rung (missing points: {missing})")
        return self


# -- Vira ------------------------------------------------------------------------

class _Counts(_Section):
    """A map of names to numbers with a ``note`` beside them (``turn_up``, ``om_hemgang_bets``)."""

    note: str = ""
    counts: dict[str, int] = {}

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        rest = {k: v for k, v in data.items() if k != "note" and not str(k).startswith("_")}
        return {"note": data["note"], "counts": rest} if "note" in data else {"counts": rest}


class ViraDeal(_Section):
    first_round: int = 4
    rounds: list[int] = [3, 3, 3]
    hand: int = 13
    talong: int = 13
    note: str = ""


class Unspecified(_Section):
    families: list[str] = Field(min_length=1)
    resolve: Literal["declarer_chooses", "lowest_above_previous"]
    section: str = ""


class Bets(_Section):
    hemgang: int = -1
    bet: int = 1
    kodilj: int = 2
    note: str = ""


class Gok(_Section):
    laggarde_limits: dict[int, int] = {}
    first_hand_needs: int = 2
    second_hand_needs: int = 1
    compensation: dict[Literal["3", "4"], dict[Literal["one", "two"], dict[Literal["partner", "sit_out"], int]]] = {}
    note: str = ""


class Citation(_Section):
    cite: str
    text: str = ""


class ViraRuleset(_Table):
    """A tournament's Vira rules (``sm-2025.json``): switches, bets and the section each finding cites."""

    cite_prefix: str = "Vira SM 2025"
    bid_table: str = "stockholm-1999"
    numbering_note: str = ""
    not_biddable: list[str] = []
    unspecified: dict[str, Unspecified] = {}
    not_unspecified: list[str] = []
    deal: ViraDeal = ViraDeal()
    turn_up: _Counts = _Counts()
    bets: Bets = Bets()
    om_hemgang_bets: _Counts = _Counts()
    trump_before_purchase: list[str] = []
    trump_before_purchase_note: str = ""
    lagd_in_ofarg: list[str] = ["solo", "gask"]
    lagd_note: str = ""
    gok: Gok | None = None
    kodilj_pinnar_factor: int = 1
    kodilj_pinnar_note: str = ""
    bet_value_pinnar: int = 8
    bet_value_note: str = ""
    sit_out_pays: bool = True
    sit_out_note: str = ""
    sections: dict[str, Citation] = {}


class Misar(_Section):
    open: bool = False
    cards: int | None = None
    royal: bool = False


class ContractRow(_Section):
    no: int
    name: str
    family: str
    tricks: int | None = None
    pinnar: tuple[int | None, int | None, int | None] = (0, 0, 0)
    misar: Misar | None = None
    purchase: bool | None = None


class ViraBidTable(_Table):
    """A club's bid table (``stockholm-1999.json``): the bids in rank order and what each pays."""

    columns: list[str] = []
    notes: list[str] = []
    contracts: list[ContractRow] = Field(min_length=1)


# -- loading ---------------------------------------------------------------------

def parse_table(data: Any, model: type[M], path: str) -> M:
    """Validate one decoded table; :class:`ConfigError` naming ``path`` and the bad key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a rule table is a JSON object")
    return parse_config(data, model, path)


@lru_cache(maxsize=64)
def _read_cached(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fp:
            data = json.load(fp)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a rule table is a JSON object")
    return data


def _read(path: str) -> dict[str, Any]:
    return json.loads(json.dumps(_read_cached(path)))  # a copy: callers lay overrides over it


def table_path(game: str, name: str, shipped: bool = False) -> Path:
    """``<tables_dir>/<name>.json``; a name that could leave the folder is refused."""
    if not name or not all(ch.isalnum() or ch in "-_." for ch in name) or name.startswith("."):
        raise ConfigError(f"bad rule table name {name!r}")
    return tables_dir(game, shipped) / f"{name}.json"


def _check_layer(data: dict[str, Any], model: type[_Table], path: str) -> None:
    """One file of an ``extends`` chain on its own: its unknown keys and wrong types, named with it.

    A file that extends another may leave keys out, so only what is missing is let through here;
    the merged table is checked whole afterwards.
    """
    try:
        model.model_validate(data)
    except ValidationError as e:
        errors = [x for x in e.errors() if x["type"] != "missing"]
        if errors:
            raise ConfigError(format_errors(errors, path)) from None


def _chain(game: str, name: str, shipped: bool) -> tuple[dict[str, Any], str]:
    """The files of ``name`` and what it ``extends``, merged (later files under earlier); the last file's path."""
    seen: list[str] = []
    layers: list[dict[str, Any]] = []
    path = ""
    nxt: str | None = name
    while nxt and nxt not in seen:
        p = table_path(game, nxt, shipped)
        if not p.is_file():
            raise ConfigError(f"{p}: no {game} rule table {nxt!r}")
        data = _read(str(p))
        _check_layer(data, MODELS[game], str(p))
        path = path or str(p)
        seen.append(nxt)
        layers.append(data)
        nxt = data.get("extends")
        if nxt is not None and not isinstance(nxt, str):
            raise ConfigError(f"{p}: 'extends': must name a table")
    out: dict[str, Any] = {}
    for layer in reversed(layers):
        _deep_update(out, layer)
    out["name"] = seen[0]
    return out, path


MODELS: dict[str, type[_Table]] = {"pidro": PidroTable, "whist": WhistTable}


def load_table(game: str, name: str | None, default: str, overrides: dict | None = None, shipped: bool = False) -> Any:
    """Pidro's or whist's table ``name`` (else ``default``), ``extends`` followed, ``overrides`` laid over.

    ``overrides`` is the tournament's ruleset dict passed to the engine (its
    ``_`` keys and ``session`` are not table keys). Raises :class:`ConfigError`
    (a ``ValueError``): an unknown name or a bad table; the engines turn that
    into a finding and play on with the shipped default.
    """
    over = {k: v for k, v in (overrides or {}).items() if not str(k).startswith("_") and k not in ("session", "name")}
    key = json.dumps(over, sort_keys=True, default=repr)
    return _load(game, name or default, key, shipped, os.environ.get("TABLECAM_CONFIG"))


@lru_cache(maxsize=256)
def _load(game: str, name: str, over_json: str, shipped: bool, _config_dir: str | None) -> Any:
    data, path = _chain(game, name, shipped)
    over = json.loads(over_json)
    if over:
        _deep_update(data, over)
        path += " (with the tournament's ruleset)"
    return parse_table(data, MODELS[game], path)


def load_vira(name: str, model: type[M], overrides: dict | None = None, shipped: bool = False) -> M:
    """A Vira ruleset or bid table by name (or path), ``overrides`` replacing whole top-level keys."""
    over = {k: v for k, v in (overrides or {}).items() if not str(k).startswith("_")}
    return _load_vira(name, model, json.dumps(over, sort_keys=True, default=repr), shipped,
                      os.environ.get("TABLECAM_CONFIG"))


@lru_cache(maxsize=128)
def _load_vira(name: str, model: type[M], over_json: str, shipped: bool, _config_dir: str | None) -> M:
    p = Path(name) if Path(name).suffix else table_path("vira", name, shipped)
    data = _read(str(p))
    over = json.loads(over_json)
    data.update(over)
    return parse_table(data, model, str(p) + (" (with the tournament's ruleset)" if over else ""))


def check_tables() -> None:
    """Parse every table in ``$TABLECAM_CONFIG`` (the club's own), so a bad one stops a command at its start.

    A Vira file with ``contracts`` is a bid table, any other a ruleset (whose
    bid table is checked with it). Raises :class:`ConfigError`. The files
    are read afresh (:func:`forget_tables`), so a command sees their state
    at its start.
    """
    forget_tables()
    if not os.environ.get("TABLECAM_CONFIG"):
        return
    for game in GAMES:
        folder = tables_dir(game)
        for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if game != "vira":
                load_table(game, p.stem, p.stem)
            elif "contracts" in _read(str(p)):
                load_vira(str(p), ViraBidTable)
            else:
                load_vira(load_vira(str(p), ViraRuleset).bid_table, ViraBidTable)


def forget_tables() -> None:
    """Drop every parsed table, so the next load reads the files again."""
    for cached in (_read_cached, _load, _load_vira):
        cached.cache_clear()


def _deep_update(dst: dict, src: dict) -> None:
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _deep_update(dst[k], v)
        else:
            dst[k] = v
