"""Finding kinds by name: the words a director, a dashboard and an archive filter on.

A finding's ``kind`` is part of the external contract (``docs/contracts.md``):
a consumer matches on the string, so each string is written once, here, and
the engines use the name. The first group is the contract's own table; the
rest are the kinds the Nordic engines (whist, Pidro, Vira) add. A new kind is
a new name here and a line in the game's doc; an existing string never
changes.

>>> REVOKE, WRONG_CARD_COUNT, FELEKARTERING
('revoke', 'wrong_card_count', 'felekartering')
>>> all(k == k.lower() and " " not in k for k in ALL)
True
"""

from __future__ import annotations

# -- the contract's kinds (shared/contracts.md) ---------------------------------
REVOKE = "revoke"
TRICK_TRANSFER = "trick_transfer"
LEAD_OUT_OF_TURN = "lead_out_of_turn"
PENALTY_CARD = "penalty_card"
WRONG_CARD_COUNT = "wrong_card_count"
DUPLICATE_CARD = "duplicate_card"
MISDEAL = "misdeal"
BAD_EVENT = "bad_event"
RESULT = "result"
ARCHIVE_FLAW = "archive_flaw"
SCORE = "score"
"""The settlement of a deal (whist, Pidro, Vira): points, pinnar, the game score."""

# -- shared by the trick-taking games -----------------------------------------------
PLAY_OUT_OF_TURN = "play_out_of_turn"
CALL_OUT_OF_TURN = "call_out_of_turn"
INSUFFICIENT_BID = "insufficient_bid"
TRUMP_BY_WRONG_PLAYER = "trump_by_wrong_player"
WRONG_TRUMP = "wrong_trump"

# -- es-makker whist ------------------------------------------------------------------
CARD_EXPOSED_IN_DEAL = "card_exposed_in_deal"
DEAL_OUT_OF_ORDER = "deal_out_of_order"
JERNHAND = "jernhand"
FALSE_JERNHAND = "false_jernhand"
CALL_AFTER_AUCTION = "call_after_auction"
CALL_AFTER_PASS = "call_after_pass"
INVALID_JOIN = "invalid_join"
PASSED_OUT = "passed_out"
AUCTION_INCOMPLETE = "auction_incomplete"
PARTNER_ACE_IN_NOLO = "partner_ace_in_nolo"
PARTNER_ACE_BY_WRONG_PLAYER = "partner_ace_by_wrong_player"
PARTNER_ACE_NOT_AN_ACE = "partner_ace_not_an_ace"
PARTNER_ACE_AFTER_VIP = "partner_ace_after_vip"
PARTNER_ACE_NOT_PLAYED = "partner_ace_not_played"
KITTY_TURNED = "kitty_turned"
EXCHANGE_OUT_OF_TURN = "exchange_out_of_turn"
EXCHANGE_TOO_MANY = "exchange_too_many"
RENONS_CARD_INVALID = "renons_card_invalid"
HAND_NOT_SHOWN = "hand_not_shown"
NOLO_LOST = "nolo_lost"

# -- Pidro ------------------------------------------------------------------------------
DEALER_NOT_ROTATED = "dealer_not_rotated"
REFILL_OUT_OF_ORDER = "refill_out_of_order"
CALL_AFTER_BIDDING = "call_after_bidding"
BID_OUT_OF_RANGE = "bid_out_of_range"
FORCED_BID = "forced_bid"
DEALER_BELOW_SIX = "dealer_below_six"
TRUMP_DISCARDED = "trump_discarded"
POINT_CARD_LAID_DOWN = "point_card_laid_down"
LAY_DOWN_NON_TRUMP = "lay_down_non_trump"
NON_TRUMP_KEPT = "non_trump_kept"
TOO_MANY_TRUMPS = "too_many_trumps"
NON_TRUMP_PLAYED = "non_trump_played"
INCOMPLETE_ROUND = "incomplete_round"

# -- Vira -------------------------------------------------------------------------------
DEAL_ORDER = "deal_order"
TALONG_FACE_UP = "talong_face_up"
SIT_OUT_INTERFERENCE = "sit_out_interference"
BID_OUT_OF_TURN = "bid_out_of_turn"
BID_AFTER_PASS = "bid_after_pass"
BID_NOT_ALLOWED = "bid_not_allowed"
PASS_NOT_ALLOWED = "pass_not_allowed"
PASS_OUT_OF_TURN = "pass_out_of_turn"
FIRST_BID_PASS = "first_bid_pass"
UNSPECIFIED_BID = "unspecified_bid"
UNSPECIFIED_CONTRACT = "unspecified_contract"
CONTRACT_MISMATCH = "contract_mismatch"
TJUVPASS = "tjuvpass"
TRUMP_CHOICE = "trump_choice"
TALONG_BEFORE_AUCTION = "talong_before_auction"
CARD_NOT_IN_HAND = "card_not_in_hand"
CARD_NOT_IN_TALONG = "card_not_in_talong"
FACE_UP_CARD_BOUGHT = "face_up_card_bought"
PURCHASE_OUT_OF_TURN = "purchase_out_of_turn"
PURCHASE_NOT_ALLOWED = "purchase_not_allowed"
OPEN_MISAR_NOT_SHOWN = "open_misar_not_shown"
FELEKARTERING = "felekartering"
PLAY_BEFORE_AUCTION = "play_before_auction"
EXPOSED_CARD = "exposed_card"
CONCESSION = "concession"
PAYMENT_ERROR = "payment_error"
CALL_WITHDRAWN = "call_withdrawn"

ALL: frozenset[str] = frozenset(v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str))
"""Every kind named above."""
