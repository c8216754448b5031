"""Vira scoring: pinnar from the bid table, bets and the pulla, and SM 2025 L (final settlement)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tablecam.rules.vira  # noqa: F401
from tablecam.engine import Table
from tablecam.events import parse_event, read_event_file
from tablecam.rules.vira import load_ruleset, party_result, split_pool
from tablecam.rules.vira.settle import column

DATA = Path(__file__).parent / "data" / "vira"


def replay(name: str):
    t = Table()
    out = t.feed(read_event_file(str(DATA / f"{name}.jsonl")))
    return out, t


def raw(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]


def scores(out):
    return [f.to_dict() for f in out if f.kind == "score"]


def test_vira_bid_table_is_the_stockholm_table():
    t = load_ruleset()
    names = [c.name for c in t.contracts]
    assert len(names) == 40 and names[0] == "Begär 6" and names[-1] == "Solo Vira 13"
    assert names[21] == "Tringel 9" and names[23] == "Gask på 6" and names[26] == "Gask på 5"
    assert t.contract("Tringel 9").pinnar == (3, 5, 11) and t.contract("Solo Vira 13").tricks == 13
    assert t.contract("Köpmisär på 4").tricks is None and t.contract("Gask på 3").misar.model_dump() == {"open": True, "cards": 12, "royal": False}


def test_vira_payment_columns_follow_hogsta_farg():
    # högsta färg hearts: andra färg diamonds, ofärg spades and clubs
    assert [column(s, "H", False) for s in "HDSC"] == [2, 1, 0, 0]


# Each hand-computed: E declares 8-spel in spades, högsta färg spades (column 'högsta färg': 1 pinne);
# payers are the defenders S and N and W who sits out (B.1: the utkuperad pays and receives).
@pytest.mark.parametrize("name,tricks,outcome,pinnar,bets", [
    ("vira-8-spel-hemma", 8, "hemma", {"N": -1, "E": 3, "S": -1, "W": -1}, {"E": -1}),
    ("vira-8-spel-bet", 7, "bet", {"N": 1, "E": -3, "S": 1, "W": 1}, {"E": 1}),
    ("vira-8-spel-kodilj", 6, "kodilj", {"N": 1, "E": -3, "S": 1, "W": 1}, {"E": 2}),
])
def test_vira_L_deal_settlement_hemma_bet_kodilj(name, tricks, outcome, pinnar, bets):
    out, t = replay(name)
    s = scores(out)[0]
    assert (s["tricks"], s["needed"], s["outcome"]) == (tricks, 8, outcome)
    assert s["pinnar"] == pinnar and s["bets"] == bets and s["column"] == "högsta färg"
    assert s["status"] == "info" and s["rule"] == "Vira SM 2025 D.10"
    assert sum(s["pinnar"].values()) == 0
    assert sum(1 for tr in t.boards[0].tricks if str(tr.winner) == "E") == tricks


def test_vira_L_kodilj_pinnar_factor_is_a_setting():
    t = Table(rulesets={"vira": {"kodilj_pinnar_factor": 2}})
    out = t.feed(read_event_file(str(DATA / "vira-8-spel-kodilj.jsonl")))
    assert scores(out)[0]["pinnar"] == {"N": 2, "E": -6, "S": 2, "W": 2}


def test_vira_L_sit_out_pays_is_a_setting():
    t = Table(rulesets={"vira": {"sit_out_pays": False}})
    out = t.feed(read_event_file(str(DATA / "vira-8-spel-hemma.jsonl")))
    assert scores(out)[0]["pinnar"] == {"N": -1, "E": 2, "S": -1, "W": 0}


def test_vira_misar_settlement_solo_grande_misar_ouverte():
    out, _ = replay("vira-solo-grande-misar-ouverte")
    s = scores(out)[0]
    # 24 pinnar (first column) from each of S, N and W; the declarer took no trick
    assert s["outcome"] == "hemma" and s["tricks"] == 0 and s["needed"] == 0
    assert s["pinnar"] == {"N": -24, "E": 72, "S": -24, "W": -24} and s["bets"] == {"E": -1}


def test_vira_three_player_kopmisar_twelve_cards():
    out, t = replay("vira-3-players-kopmisar")
    s = scores(out)[0]
    assert s["contract"] == "Köpmisär på 2" and s["outcome"] == "hemma" and len(t.boards[0].tricks) == 12
    assert s["pinnar"] == {"N": 0, "E": 0, "S": 0} and s["bets"] == {"S": -1}


def test_vira_A9_omvingel_hemgang_moves_nothing_in_the_pulla():
    evs = raw("vira-A5-unspecified-vingel")
    for e in evs:
        if e["type"] == "bid" and e["bid"] == "Vingel":
            e["om"] = True
    evs.insert(-1, {"type": "ruling", "outcome": "hemma"})
    t = Table()
    out = t.feed(parse_event(e, i) for i, e in enumerate(evs))
    assert scores(out)[0]["bets"] == {}  # Vingel 6 as omvingel: no bet lifted (A.9)


def test_vira_D7_payment_error_is_flagged():
    evs = raw("vira-8-spel-hemma")
    evs.insert(-1, {"type": "settle", "pinnar": {"E": 2, "S": -1, "N": -1}, "bets": {"E": -1}})
    t = Table()
    out = t.feed(parse_event(e, i) for i, e in enumerate(evs))
    f = [x for x in out if x.kind == "payment_error"]
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 D.7" and f[0].event == len(evs) - 2
    evs[-2] = {"type": "settle", "pinnar": {"E": 3, "S": -1, "N": -1, "W": -1}, "bets": {"E": -1}}
    out = Table().feed(parse_event(e, i) for i, e in enumerate(evs))
    assert not [x for x in out if x.kind == "payment_error"]


def test_vira_C14_defender_concedes_declarer_home():
    evs = raw("vira-8-spel-bet")
    plays = [i for i, e in enumerate(evs) if e["type"] == "play"]
    evs = evs[: plays[5] + 1] + [{"type": "claim", "seat": "S", "tricks": 5}, {"type": "end"}]
    out = Table().feed(parse_event(e, i) for i, e in enumerate(evs))
    s = scores(out)[0]
    assert s["outcome"] == "hemma" and s["rule"] == "Vira SM 2025 C.14"


def test_vira_incomplete_deal_is_not_settled():
    evs = raw("vira-8-spel-hemma")
    plays = [i for i, e in enumerate(evs) if e["type"] == "play"]
    out = Table().feed(parse_event(e, i) for i, e in enumerate(evs[: plays[20]]))
    s = scores(out)[0]
    assert s["outcome"] == "incomplete" and s["bets"] == {}


# -- L: the end of the party ------------------------------------------------------------------
def test_vira_L1_pool_shared_equally():
    assert split_pool(24, {"N": -10, "E": 0, "S": 10}) == {"N": 8, "E": 8, "S": 8}


def test_vira_L2_rest_to_biggest_loser_without_overtaking():
    # 8 pinnar (one bet) among three: 2 each, 2 left; N (-5+2=-3) may take both and stays below E (0+2=2)
    assert split_pool(8, {"N": -5, "E": 0, "S": 5}) == {"N": 4, "E": 2, "S": 2}
    # N at -1 after the share and E at 0: two more would put N ahead of E, so L.3 applies
    assert split_pool(8, {"N": -3, "E": -2, "S": 5}) == {"N": 3, "E": 3, "S": 2}


def test_vira_L3_rest_of_one_with_two_equal_losers_goes_to_the_winner():
    assert split_pool(16, {"N": -7, "E": -7, "S": 14}) == {"N": 5, "E": 5, "S": 6}


def test_vira_L3_drawing_level_is_allowed():
    # rest 1: N at -1, E at 0 after the share: N may draw level with E
    assert split_pool(7, {"N": -3, "E": -2, "S": 5}) == {"N": 3, "E": 2, "S": 2}


def test_vira_L_party_hand_computed():
    """Four deals at a four-player table (tests/data/vira/vira-L-party.jsonl).

    1. E 8-spel spades (högsta) hemma: E +3, N S W -1; E lifts a bet (-1).
    2. S 8-spel hearts, högsta diamonds (andra färg, 1): kodilj: S -3, E N W +1; S puts 2 bets.
    3. W 7-spel clubs (högsta, 1): kodilj: W -3, N E S +1; W puts 2 bets.
    4. N Solo grande misär ouverte hemma: N +72, E S W -24; N lifts a bet.
    Pinnar: N 73, E -19, S -27, W -27. Bets: N -1, E -1, S +2, W +2: 2 bets = 16 pinnar in the pulla.
    Before the share (8 pinnar a bet): N 81, E -11, S -43, W -43; 16 / 4 = 4 each, no rest.
    """
    out, t = replay("vira-L-party")
    deals = scores(out)
    assert [d["outcome"] for d in deals] == ["hemma", "kodilj", "kodilj", "hemma"]
    res = party_result(deals, "NESW")
    assert {s: r["pinnar"] for s, r in res.items()} == {"N": 73, "E": -19, "S": -27, "W": -27}
    assert {s: r["bets"] for s, r in res.items()} == {"N": -1, "E": -1, "S": 2, "W": 2}
    assert {s: r["total"] for s, r in res.items()} == {"N": 85, "E": -7, "S": -39, "W": -39}
    assert sum(r["total"] for r in res.values()) == 0


def test_vira_gask_played_as_misar_twelve_cards():
    """Gask på 1 ('8/0 sluten, 12'): S buys and plays it as a closed misär over 12 tricks."""
    out, t = replay("vira-gask-as-misar")
    b = t.boards[0]
    assert b.playing_misar and b.trump is None and b.hand_size == 12 and len(b.tricks) == 12
    s = scores(out)[0]
    assert [f.kind for f in out] == ["score"]
    assert s["outcome"] == "hemma" and s["needed"] == 0 and s["column"] == "ofärg/misär"
    assert s["pinnar"] == {"N": 0, "E": 0, "S": 0, "W": 0} and s["bets"] == {"S": -1}
