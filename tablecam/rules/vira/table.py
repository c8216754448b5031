"""Vira's rule tables, loaded from ``tables/*.json`` beside this module (never hard-coded).

Clubs play with different bid tables, so the bid ladder, tricks for hemgång
and payments in pinnar come from a data file; the tournament's rule switches
(tringel 9 not biddable, how unspecified bids resolve, bet values) and the
section numbers every finding cites come from a ruleset file.

>>> t = load_ruleset()
>>> t.contract("gask pa 3").name, t.contract("Gask på 3").no
('Gask på 3', 18)
>>> t.contract("7-spel").tricks, t.contract("Solo Vira 13").pinnar
(7, (32, 64, 128))
>>> t.cite("revoke"), t.section("revoke_established")
('Vira SM 2025 J.3', 'J.6')
>>> [c.name for c in t.family_members("vingel")]
['Vingel 6', 'Vingel 7', 'Vingel 8']
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tricks import tables_dir

PASS_WORDS = {"pass", "p", "passar", "passa"}


def norm(text: str) -> str:
    """Fold a bid name for lookup: case, accents, spacing and 'på'.

    >>> norm("  Köpmisär  PÅ 2 "), norm("Turne 6"), norm("7 spel")
    ('kopmisar pa 2', 'turne 6', '7-spel')
    """
    t = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode().lower()
    t = " ".join(t.replace("_", " ").split())
    for n in "6789":
        t = t.replace(f"{n} spel", f"{n}-spel")
    return t


SUIT_WORDS = {"s": "S", "h": "H", "d": "D", "c": "C", "spader": "S", "hjarter": "H", "ruter": "D", "klover": "C",
              "spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C"}
MISAR_WORDS = {"misar", "misere", "none", "-", "ingen"}


def parse_suit(text: Any) -> str | None:
    """A suit letter from a trump or bid field; ``""`` for misär; None if unknown.

    >>> parse_suit("spader"), parse_suit("♥"), parse_suit("Misär"), parse_suit("purple")
    ('S', 'H', '', None)
    """
    t = norm(str(text))
    if t in MISAR_WORDS:
        return ""
    return SUIT_WORDS.get(t) or SUIT_WORDS.get(str(text).strip())


@dataclass(frozen=True)
class Contract:
    """One row of the bid table (or an unspecified family bid such as 'gask')."""

    no: int
    name: str
    family: str
    tricks: int | None
    pinnar: tuple[int | None, ...] = (0, 0, 0)
    misar: dict[str, Any] | None = None
    purchase: bool | None = None
    unspecified: bool = False

    @property
    def is_misar(self) -> bool:
        """A pure misär (köpmisär, solomisär, gök): the declarer must take no trick."""
        return self.tricks is None

    @property
    def open_misar(self) -> bool:
        return bool(self.misar and self.misar.get("open"))

    @property
    def royal(self) -> bool:
        return bool(self.misar and self.misar.get("royal"))


@dataclass
class ViraRules:
    """A ruleset: settings + bid table + citations."""

    settings: dict[str, Any]
    contracts: list[Contract]
    table_name: str
    by_name: dict[str, Contract] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {norm(c.name): c for c in self.contracts}
        self.prefix = self.settings.get("cite_prefix", "Vira SM 2025")

    # -- citations -----------------------------------------------------------
    def cite(self, key: str) -> str:
        """``Vira SM 2025 <section>`` for a rule key of the ruleset file."""
        sec = self.settings.get("sections", {}).get(key, {})
        return f"{self.prefix} {sec.get('cite', key)}"

    def section(self, key: str) -> str:
        """Just the section (``J.6``) for a rule key; what a score's ``reason`` shows."""
        return self.settings.get("sections", {}).get(key, {}).get("cite", key)

    # -- bids ------------------------------------------------------------------
    def contract(self, name: str) -> Contract | None:
        """The bid-table row (or unspecified family bid) named ``name``, else None."""
        key = norm(name)
        if key in self.by_name:
            return self.by_name[key]
        for word, rule in self.settings.get("unspecified", {}).items():
            if norm(word) == key:
                fams = rule["families"]
                top = max(c.no for c in self.contracts if c.family in fams)
                return Contract(no=top, name=word.capitalize(), family=fams[0], tricks=None, unspecified=True)
        return None

    def is_unspecified_forbidden(self, name: str) -> bool:
        """A solomisär named without its kind (A.4 last sentence)."""
        return norm(name) in {norm(x) for x in self.settings.get("not_unspecified", [])}

    def biddable(self, c: Contract) -> bool:
        return norm(c.name) not in {norm(x) for x in self.settings.get("not_biddable", [])}

    def family_members(self, family: str) -> list[Contract]:
        return [c for c in self.contracts if c.family == family]

    def unspecified_rule(self, c: Contract) -> dict[str, Any]:
        for k, v in self.settings.get("unspecified", {}).items():
            if c.family in v["families"]:
                return v
        return {}

    def lowest_above(self, family: str, above: int) -> Contract | None:
        """The lowest biddable member of ``family`` ranking above bid number ``above``."""
        for c in self.family_members(family):
            if c.no > above and self.biddable(c):
                return c
        return None

    def effective_no(self, c: Contract, above: int) -> int | None:
        """Rank a bid takes in the auction: an unspecified bid counts as the
        lowest member of its family above the current bid (None if none is)."""
        if not c.unspecified:
            return c.no
        low = self.lowest_above(c.family, above)
        return low.no if low else None

    def has_higher_in_family(self, family: str, above: int) -> bool:
        return self.lowest_above(family, above) is not None

    # -- money -------------------------------------------------------------------
    @property
    def bets(self) -> dict[str, int]:
        b = self.settings.get("bets", {})
        return {"hemgang": b.get("hemgang", -1), "bet": b.get("bet", 1), "kodilj": b.get("kodilj", 2)}


def _load_json(name_or_path: str, kind: str) -> dict[str, Any]:
    p = Path(name_or_path)
    if not p.suffix:
        p = tables_dir("vira") / f"{name_or_path}.json"
    with open(p, encoding="utf-8") as fp:
        data = json.load(fp)
    if not isinstance(data, dict):
        raise ValueError(f"{p}: a Vira {kind} file must hold a JSON object")
    return data


def load_ruleset(ruleset: dict[str, Any] | str | None = None) -> ViraRules:
    """Load a ruleset (name, path, or a dict of overrides on ``sm-2025``).

    A tournament passes ``{"bid_table": "my-club", "sit_out_pays": False}`` to
    change only what differs.
    """
    if isinstance(ruleset, str):
        settings = _load_json(ruleset, "ruleset")
    else:
        settings = _load_json("sm-2025", "ruleset")
        for k, v in (ruleset or {}).items():
            settings[k] = v
    table = _load_json(settings.get("bid_table", "stockholm-1999"), "bid table")
    contracts = [
        Contract(no=int(r["no"]), name=r["name"], family=r["family"], tricks=r.get("tricks"),
                 pinnar=tuple(r.get("pinnar", (0, 0, 0))), misar=r.get("misar"), purchase=r.get("purchase"))
        for r in table["contracts"]
    ]
    contracts.sort(key=lambda c: c.no)
    return ViraRules(settings, contracts, table.get("name", ""))
