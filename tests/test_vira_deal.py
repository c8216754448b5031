"""Vira SM 2025 section E (misdeals): deal validation from the shoe's card sequence."""

from __future__ import annotations

import json

from tablecam.sim.vira_deals import complete_deal, deal_order
from vira_helpers import DATA, fold, of, raw, replay, score


def test_vira_deal_order_from_forehand_4_then_3_3_3():
    order = deal_order("N")  # four players: W sits out, E is forehand
    assert order[:12] == ["E"] * 4 + ["S"] * 4 + ["N"] * 4
    assert order[12:15] == ["E"] * 3 and order[-14:] == ["N"] + ["talong"] * 13
    assert "W" not in order and len(order) == 52


def test_vira_four_players_one_sits_out_and_three_hold_13():
    out, b = replay("vira-8-spel-hemma")
    assert [str(s) for s in b.active] == ["E", "S", "N"] and str(b.sit_out) == "W"
    assert {s: len(c) for s, c in b.deal.dealt.items()} == {b.active[0]: 13, b.active[1]: 13, b.active[2]: 13,
                                                          "talong": 13}
    assert not [f for f in out if f.kind != "score"]


def test_vira_three_player_table_has_no_sit_out():
    out, b = replay("vira-3-players-kopmisar")
    # players N E S, dealer E: forehand is S (the next player on the dealer's left; W is empty)
    assert b.sit_out is None and [str(s) for s in b.active] == ["S", "N", "E"] and str(b.forehand) == "S"
    assert b.declarer.value == "S" and b.contract.name == "Köpmisär på 2"


def test_vira_sit_out_event_overrides_default():
    evs = [{"type": "board", "game": "vira", "board": 9, "dealer": "N"}, {"type": "sit_out", "seat": "E"}]
    out, b = fold(evs)
    assert str(b.sit_out) == "E" and [str(s) for s in b.active] == ["S", "W", "N"]


def test_vira_E2_deal_order_error_harmless_when_counts_right():
    out, b = replay("vira-E2-deal-order")
    f = of(out, "deal_order")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 E.2" and f[0].status == "info" and f[0].event == 5
    assert f[0].to_dict()["expected_to"] == "E" and f[0].to_dict()["to"] == "S"
    assert not of(out, "wrong_card_count") and not of(out, "misdeal")
    assert score(out)["outcome"] in ("hemma", "bet", "kodilj")  # the deal was played and settled normally


def test_vira_E4_card_turned_up_in_the_deal_redeal_without_penalty():
    out, b = replay("vira-E4-face-up")
    f = of(out, "misdeal")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 E.4" and f[0].event == 11
    s = score(out)
    assert s["outcome"] == "redeal" and s["bets"] == {} and set(s["pinnar"].values()) == {0}


def test_vira_E5_card_from_another_pack_by_its_back():
    out, b = replay("vira-E5-other-pack")
    f = of(out, "misdeal")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 E.5" and "blue" in f[0].message
    # found while dealing but the deal was played out: still a redeal without penalty ("oavsett när")
    assert score(out)["outcome"] == "redeal"


def test_vira_E5_duplicate_card_means_another_pack():
    out, b = replay("vira-E5-duplicate")
    assert len(of(out, "duplicate_card")) == 1 and of(out, "duplicate_card")[0].to_dict()["card"]
    assert of(out, "misdeal")[0].rule == "Vira SM 2025 E.5"
    assert score(out)["outcome"] == "redeal"


def test_vira_E5_more_than_52_cards():
    evs = json.loads("[" + ",".join((DATA / "vira-E8-talong-count.jsonl").read_text().split("\n")[:-2]) + "]")
    evs += [{"type": "deal", "to": "talong", "card": "SA", "pack": "blue"},
            {"type": "deal", "to": "talong", "card": "H2"}, {"type": "end"}]
    out, b = fold(evs)
    assert any(f.rule == "Vira SM 2025 E.5" for f in of(out, "misdeal"))


def test_vira_E7_wrong_number_of_cards_in_a_hand_each_faulty_player_pays_a_bet():
    out, b = replay("vira-E7-hand-count")
    f = {x.seat: x.to_dict() for x in of(out, "wrong_card_count")}
    assert f["E"]["count"] == 14 and f["N"]["count"] == 12 and f["E"]["expected"] == 13
    assert f["E"]["rule"] == "Vira SM 2025 E.7" and len(f["E"]["options"]) == 2
    s = score(out)
    assert s["outcome"] == "aborted" and s["bets"] == {"E": 1, "N": 1} and s["rule"] == "Vira SM 2025 E.7"


def test_vira_E8_wrong_number_of_cards_in_the_talong_dealer_pays_a_bet():
    out, b = replay("vira-E8-talong-count")
    f = of(out, "wrong_card_count")
    assert len(f) == 1 and f[0].seat == "talong" and f[0].to_dict()["count"] == 12
    assert f[0].rule == "Vira SM 2025 E.8"
    assert score(out)["bets"] == {"N": 1}  # the dealer


def test_vira_E3_ruling_redeal_when_noticed_before_talong_put_down():
    evs = [json.loads(x) for x in (DATA / "vira-E8-talong-count.jsonl").read_text().splitlines()]
    evs.insert(-1, {"type": "ruling", "outcome": "redeal", "note": "dealer counted the talong (E.3)"})
    out, b = fold(evs)
    assert score(out)["outcome"] == "redeal" and score(out)["bets"] == {}


def test_vira_E10_face_up_talong_card_may_not_be_bought_in_kopspel():
    evs = complete_deal(168, bids=[("E", "8-spel"), ("S", "pass"), ("N", "pass")], trump="S", first_suit="S",
                        buys={"E": 3, "S": 2, "N": 2})
    first_buy = next(e for e in evs if e["type"] == "buy")
    i = next(i for i, e in enumerate(evs) if e["type"] == "trump")
    evs.insert(i, {"type": "talong_face_up", "card": first_buy["cards"][0]})
    out, b = fold(evs)
    assert [f.rule for f in of(out, "talong_face_up")] == ["Vira SM 2025 E.9"]
    assert [f.rule for f in of(out, "face_up_card_bought")] == ["Vira SM 2025 E.10"]


def test_vira_D6_who_deals_next():
    assert score(replay("vira-E4-face-up")[0])["next_dealer"] == "N"        # redeal without penalty: same dealer
    assert score(replay("vira-E8-talong-count")[0])["next_dealer"] == "E"   # a bet was paid: the deal passes on
    assert score(replay("vira-8-spel-hemma")[0])["next_dealer"] == "E"
    assert score(replay("vira-3-players-kopmisar")[0])["next_dealer"] == "S"  # players N E S, E dealt: S (W empty)


def test_vira_board_setup_errors_are_reported_not_fatal():
    out, b = fold([{"type": "board", "game": "vira", "board": 3, "dealer": "N", "sit_out": "N"}, {"type": "end"}])
    assert [f.kind for f in out] == ["bad_event", "score"] and str(b.sit_out) == "W"
    out, b = fold([{"type": "board", "game": "vira", "board": 4, "dealer": "W", "players": "NES"}, {"type": "end"}])
    assert out[0].kind == "bad_event" and "W" in [str(s) for s in b.active]


def test_vira_board_without_dealer_is_flagged_and_still_replays():
    """A board event with no dealer (the operator has not named one yet) replays as if North dealt,
    as before, but the guess is now on record instead of silent."""
    ev = raw("vira-8-spel-hemma")
    assert ev[0]["dealer"] == "N"
    del ev[0]["dealer"]
    out, b = fold(ev)
    flagged = [f for f in of(out, "bad_event") if "no dealer" in f.message]
    assert len(flagged) == 1 and flagged[0].event == 0 and str(b.dealer) == "N"
    with_dealer = fold(raw("vira-8-spel-hemma"))[0]
    assert score(out) == score(with_dealer)  # the deal is judged as it was with North named
