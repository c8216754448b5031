"""Vira's rule tables, read from ``tables/*.json`` beside this module (never hard-coded).

Clubs play with different bid tables, so the bid ladder, tricks for hemgång
and payments in pinnar come from a data file; the tournament's rule switches
(tringel 9 not biddable, how unspecified bids resolve, bet values) and the
section numbers every finding cites come from a ruleset file. Both are
strict models (:class:`~tablecam.rules.tables.ViraRuleset`,
:class:`~tablecam.rules.tables.ViraBidTable`), parsed once.

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

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ..tables import Misar, Unspecified, ViraBidTable, ViraRuleset, load_vira

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
    misar: Misar | None = None
    purchase: bool | None = None
    unspecified: bool = False

    @property
    def is_misar(self) -> bool:
        """A pure misär (köpmisär, solomisär, gök): the declarer must take no trick."""
        return self.tricks is None

    @property
    def open_misar(self) -> bool:
        return bool(self.misar and self.misar.open)

    @property
    def royal(self) -> bool:
        return bool(self.misar and self.misar.royal)


@dataclass
class ViraRules:
    """A ruleset: settings + bid table + citations."""

    settings: ViraRuleset
    contracts: list[Contract]
    table_name: str
    by_name: dict[str, Contract] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {norm(c.name): c for c in self.contracts}
        self.prefix = self.settings.cite_prefix

    # -- citations -----------------------------------------------------------
    def cite(self, key: str) -> str:
        """``Vira SM 2025 <section>`` for a rule key of the ruleset file."""
        return f"{self.prefix} {self.section(key)}"

    def section(self, key: str) -> str:
        """Just the section (``J.6``) for a rule key; what a score's ``reason`` shows."""
        sec = self.settings.sections.get(key)
        return sec.cite if sec else key

    # -- bids ------------------------------------------------------------------
    def contract(self, name: str) -> Contract | None:
        """The bid-table row (or unspecified family bid) named ``name``, else None."""
        key = norm(name)
        if key in self.by_name:
            return self.by_name[key]
        for word, rule in self.settings.unspecified.items():
            if norm(word) == key:
                fams = rule.families
                top = max(c.no for c in self.contracts if c.family in fams)
                return Contract(no=top, name=word.capitalize(), family=fams[0], tricks=None, unspecified=True)
        return None

    def is_unspecified_forbidden(self, name: str) -> bool:
        """A solomisär named without its kind (A.4 last sentence)."""
        return norm(name) in {norm(x) for x in self.settings.not_unspecified}

    def biddable(self, c: Contract) -> bool:
        return norm(c.name) not in {norm(x) for x in self.settings.not_biddable}

    def family_members(self, family: str) -> list[Contract]:
        return [c for c in self.contracts if c.family == family]

    def unspecified_rule(self, c: Contract) -> Unspecified | None:
        """How an unspecified bid of ``c``'s family resolves (A.4 / A.5), None if the table has no rule."""
        return next((v for v in self.settings.unspecified.values() if c.family in v.families), None)

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
        b = self.settings.bets
        return {"hemgang": b.hemgang, "bet": b.bet, "kodilj": b.kodilj}


def load_ruleset(ruleset: dict[str, Any] | str | None = None, shipped: bool = False) -> ViraRules:
    """Load a ruleset (name, path, or a dict of overrides on ``sm-2025``).

    A tournament passes ``{"bid_table": "my-club", "sit_out_pays": False}`` to
    change only what differs. A bad table raises
    :class:`~tablecam.config.ConfigError` naming the file and the key;
    ``shipped`` reads the package's own tables (the engine's fallback).
    """
    if isinstance(ruleset, str):
        settings = load_vira(ruleset, ViraRuleset, shipped=shipped)
    else:
        settings = load_vira("sm-2025", ViraRuleset, ruleset, shipped=shipped)
    table = load_vira(settings.bid_table, ViraBidTable, shipped=shipped)
    key = (id(settings), id(table))
    if key not in _BUILT:
        if len(_BUILT) > 256:
            _BUILT.clear()
        _BUILT[key] = (settings, table, _rules(settings, table))  # holding both keeps their ids unique
    return _BUILT[key][2]


_BUILT: dict[tuple[int, int], tuple[ViraRuleset, ViraBidTable, ViraRules]] = {}
"""One :class:`ViraRules` per parsed (ruleset, bid table) pair, shared by every board that plays by it."""


def _rules(settings: ViraRuleset, table: ViraBidTable) -> ViraRules:
    contracts = [Contract(no=r.no, name=r.name, family=r.family, tricks=r.tricks, pinnar=r.pinnar, misar=r.misar,
                          purchase=r.purchase) for r in table.contracts]
    contracts.sort(key=lambda c: c.no)
    return ViraRules(settings, contracts, table.name)
