"""The auction read from bidding-box cards (contract: ``tablecam sim video --auction`` then
``tablecam camera --game bridge`` prints the same ``call`` events as the truth file)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tablecam.cards import Seat
from tablecam.vision.bidcards import MODEL
from tablecam.vision.bidding import UP, BiddingWatcher, auction_over, strip_quad
from tablecam.vision.zones import CameraConfig

ROOT = Path(__file__).resolve().parents[1]
needs_model = pytest.mark.skipif(not MODEL.exists(), reason="no bid_card.onnx shipped")


def _calls(lines: list[str]) -> list[tuple[str, str]]:
    out = []
    for line in lines:
        e = json.loads(line)
        if e.get("type") == "call":
            out.append((e["seat"], e["call"]))
    return out


def _sim_and_read(tmp_path: Path, *args: str) -> tuple[list[tuple[str, str]], list[dict]]:
    video = tmp_path / "auction.mp4"
    subprocess.run([sys.executable, "-m", "tablecam", "sim", "video", *args, "--auction", "-o", str(video)],
                   check=True, cwd=ROOT, capture_output=True, timeout=600)
    truth = _calls(video.with_suffix(".truth.jsonl").read_text().splitlines())
    r = subprocess.run([sys.executable, "-m", "tablecam", "camera", "--source", str(video), "--game", "bridge"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    seen = [json.loads(line) for line in r.stdout.splitlines() if '"call"' in line]
    return truth, seen


@needs_model
def test_law_17_the_camera_reads_the_auction_the_truth_file_holds(tmp_path):
    """A simulated auction laid with bidding-box cards of a held-out design:
    the camera's call events are the truth file's, seat by seat and in order,
    and none of them is unsure."""
    truth, seen = _sim_and_read(tmp_path, "--random", "3", "--tricks", "1")
    assert len(truth) >= 4
    assert [(e["seat"], e["call"]) for e in seen] == truth
    assert all(e["source"] == "camera" and 0 < e["conf"] <= 1 and not e.get("uncertain") for e in seen)


def test_law_22_the_watcher_stops_reading_when_the_auction_is_over():
    assert auction_over(["1N", "P", "P", "P"]) and auction_over(["P", "P", "P", "P"])
    assert not auction_over(["P", "1C", "P", "P"]) and not auction_over(["1S", "X", "P"])
    w = BiddingWatcher(CameraConfig.load(), "bridge")
    assert {x.zone.seat for x in w.watches} == set(Seat)
    x, y = (v + 10 for v in w.watches[0].zone.rect[:2])
    assert w.zone_at(x, y) is not None
    w.close()
    assert w.zone_at(x, y) is None, "after the auction a card there is a played or exposed card"
    w.reopen()
    assert w.zone_at(x, y) is not None and w.calls == []


def test_a_strip_lies_at_the_top_of_the_card_towards_the_centre_for_every_seat():
    for seat, (ux, uy) in UP.items():
        bottom = np.array([300.0, 300.0]) - np.array([ux, uy]) * 200
        q = strip_quad(bottom, (ux, uy))
        centre = q.mean(0)
        # the strip's centre is one card length less half a strip from the lower edge, inwards
        assert np.allclose(centre, bottom + np.array([ux, uy]) * (90 - 11)), seat


def _top_down(img: np.ndarray, px_per_mm: float):
    """A cut function for a frame that is already the table seen from above at ``px_per_mm``."""
    import cv2

    def cut(frame: np.ndarray, q_mm: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        w, h = size
        dst = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
        m = cv2.getPerspectiveTransform(np.float32(q_mm * px_per_mm), dst)
        return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)

    return cut


@needs_model
@pytest.mark.parametrize("call", ["P", "2H"])
def test_law_17_a_white_card_on_a_white_table_is_read_while_the_camera_changes_its_exposure(call):
    """The camera turns its exposure down by a fifth as the card is laid (a white card brightens
    the picture): the whole zone changes colour, the card is still found and read."""
    import cv2

    from tablecam.sim.bidding_box import draw_card, held_out_design
    from tablecam.vision.bidcards import CARD_MM

    p = 4.0                                                      # frame pixels per table mm
    rng = np.random.default_rng(5)
    table = np.clip(rng.normal((226, 230, 232), 2.0, (600 * int(p), 600 * int(p), 3)), 0, 255).astype(np.uint8)
    laid = table.copy()
    face = cv2.resize(np.ascontiguousarray(draw_card(call, held_out_design(3))[..., ::-1]),
                      (int(CARD_MM[0] * p), int(CARD_MM[1] * p)), interpolation=cv2.INTER_AREA)
    x0, y0 = int((300 - CARD_MM[0] / 2) * p), int(430 * p)      # South's first card, its top to the centre
    laid[y0:y0 + face.shape[0], x0:x0 + face.shape[1]] = face
    laid = (laid * np.float32([0.78, 0.8, 0.84])).astype(np.uint8)   # exposure and white balance move
    cfg = CameraConfig.load()
    w = BiddingWatcher(cfg, "bridge")
    cut = _top_down(laid, p)
    out = []
    for img in [table] * 3 + [laid] * (cfg.stable_frames + 3):
        view = cv2.resize(img, None, fx=cfg.px_per_mm / p, fy=cfg.px_per_mm / p, interpolation=cv2.INTER_AREA)
        out += w.update(view, img, cut)
    assert [(e["seat"], e["call"], e.get("uncertain", False)) for e in out] == [(Seat.S, call, False)]


@needs_model
def test_law_17_a_first_bid_card_whose_outline_is_off_is_still_found_by_looking_wider():
    """The caller's hand still lies over the first bid card when the tracker finds it at rest, and
    the playing-card-shaped outline found then lies 16 mm short of the card's top and 8 mm to one
    side: where the outline puts the strip no call is read, a wider look finds it (no play can
    come before the first call, so the card is not taken for one)."""
    import cv2

    from tablecam.sim.bidding_box import draw_card, held_out_design
    from tablecam.vision.bidcards import CARD_MM

    p = 2.0
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    face = cv2.resize(np.ascontiguousarray(draw_card("1H", held_out_design(3))[..., ::-1]),
                      (int(CARD_MM[0] * p), int(CARD_MM[1] * p)), interpolation=cv2.INTER_AREA)
    x0, y0 = 300 - CARD_MM[0] / 2, 430.0                         # South's first card, its top to the centre
    table[int(y0 * p):int(y0 * p) + face.shape[0], int(x0 * p):int(x0 * p) + face.shape[1]] = face
    w = BiddingWatcher(CameraConfig.load(), "bridge")
    zone = next(x.zone for x in w.watches if x.zone.seat == Seat.S)
    # a 63 x 88 mm outline, its top (towards the centre: up for South) 16 mm short of the card's
    top, x = y0 + 16.0, 268.5 + 8.0
    outline = np.array([[x, top], [x + 63, top], [x + 63, top + 88], [x, top + 88]])
    cut = _top_down(table, p)
    narrow = w.bid_card_at(zone, outline, table, cut)
    wide = w.bid_card_at(zone, outline, table, cut, wide=True)
    assert narrow is None or narrow.call != "1H" or narrow.conf < 0.25
    assert wide is not None and wide.call == "1H" and wide.conf >= 0.8


def _laid(table: np.ndarray, face: np.ndarray, size_mm: tuple[float, float], p: float) -> np.ndarray:
    """``table`` with ``face`` laid in South's bidding zone, its top towards the centre."""
    import cv2

    out = table.copy()
    w, h = int(size_mm[0] * p), int(size_mm[1] * p)
    x0, y0 = int((300 - size_mm[0] / 2) * p), int(430 * p)
    out[y0:y0 + h, x0:x0 + w] = cv2.resize(np.ascontiguousarray(face), (w, h), interpolation=cv2.INTER_AREA)
    return out


def _feed(w: BiddingWatcher, frames: list[np.ndarray], p: float, times: list[float] | None = None) -> list[dict]:
    """The watcher shown ``frames`` (the table from above at ``p`` px/mm; ``times`` their video seconds): its calls."""
    import cv2

    out = []
    for k, img in enumerate(frames):
        view = cv2.resize(img, None, fx=w.cfg.px_per_mm / p, fy=w.cfg.px_per_mm / p, interpolation=cv2.INTER_AREA)
        out += w.update(view, img, _top_down(img, p), None if times is None else times[k])
    return out


def _watch(w: BiddingWatcher, table: np.ndarray, laid: np.ndarray, p: float) -> list[dict]:
    """The watcher shown the bare table, then ``laid`` until it has lain still long enough: its calls."""
    return _feed(w, [table] * 3 + [laid] * (w.cfg.stable_frames + 3), p)


def _plain_bid_face() -> np.ndarray:
    """A bid card (90 x 45 px, a pixel a mm) with only a dark print at its top: the scripted readers
    say which call it is."""
    face = np.full((90, 45, 3), 235, np.uint8)
    face[5:15, 15:30] = 40                                   # the call's print at the card's top
    return face


def _laid_at(img: np.ndarray, face: np.ndarray, y_mm: float, p: float) -> np.ndarray:
    """``img`` with the bid card ``face`` laid in South's row, its top edge ``y_mm`` from North."""
    import cv2

    out = img.copy()
    y0, x0 = int(y_mm * p), int(277.5 * p)
    out[y0:y0 + int(90 * p), x0:x0 + int(45 * p)] = cv2.resize(face, (int(45 * p), int(90 * p)))
    return out


@needs_model
@pytest.mark.parametrize("card_mm", [(63.0, 88.0), (57.0, 89.0)])
def test_law_41_an_opening_lead_laid_where_calls_lie_is_no_call(card_mm):
    """A table without bidding boxes: the opening lead, the seven of hearts (whose top the
    bid-card reader may take for ``7H``), is laid in South's bidding zone. It is as wide as a
    playing card (poker or bridge size), not a 45 mm bid card: the watcher reads no call from
    it and tells the pipeline it is a playing card, which then ends the auction with a play."""
    from tablecam.sim.cardfaces import plain_face

    p = 3.0
    cfg = CameraConfig.load().replace(table={"card_mm": list(card_mm)})
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    laid = _laid(table, plain_face("H7")[::-1, ::-1], card_mm, p)
    w = BiddingWatcher(cfg, "bridge")
    zone = next(x.zone for x in w.watches if x.zone.seat == Seat.S)
    out = _watch(w, table, laid, p)
    assert out == []
    assert w.playing_card_wide(w.laid_width(zone))


@needs_model
def test_law_17_a_bid_card_is_no_playing_card_by_its_width():
    """The same place, a 45 mm bid card: it is read as the call, and is not taken for a playing card."""
    from tablecam.sim.bidding_box import draw_card, held_out_design
    from tablecam.vision.bidcards import CARD_MM

    p = 3.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    laid = _laid(table, draw_card("4S", held_out_design(2))[..., ::-1], CARD_MM, p)
    w = BiddingWatcher(cfg, "bridge")
    zone = next(x.zone for x in w.watches if x.zone.seat == Seat.S)
    out = _watch(w, table, laid, p)
    assert [(e["seat"], e["call"]) for e in out] == [(Seat.S, "4S")]
    assert w.bid_card_wide(w.laid_width(zone)) and 40 <= (w.laid_width(zone) or 0) <= 50


@pytest.mark.parametrize("width_mm, bid_card", [(46.0, True), (63.0, False)])
def test_law_17_a_first_bid_card_unread_is_no_opening_lead_by_its_width(monkeypatch, width_mm, bid_card):
    """The first card laid in North's bidding zone: neither its call nor its face can be read (a
    far bid card at 720p, the card reader's best guess a joker at 0.1). It is 46 mm wide, a bid
    card, so it goes to the bidding watcher and is not played: taken for the opening lead it would
    end the auction before its first call. A card as wide as a playing card there is a play."""
    from tablecam.vision.camera import Frame
    from tablecam.vision.pipeline import CameraPipeline
    from tablecam.vision.readers import Reading

    pipe = CameraPipeline(CameraConfig.load(), game="bridge", classify=lambda crop: Reading("none", 0.0))
    zone = next(x.zone for x in pipe.bidding.watches if x.zone.seat == Seat.N)
    monkeypatch.setattr(pipe.bidding, "bid_card_at", lambda *a, **k: None)
    monkeypatch.setattr(pipe.bidding, "laid_width", lambda z: width_mm)
    x, y, w, h = zone.rect
    q_mm = np.array([[x, y], [x + width_mm, y], [x + width_mm, y + 90], [x, y + 90]], float)
    frame = Frame(90, 3.6, np.zeros((720, 1280, 3), np.uint8))
    assert pipe._bid_card(zone, q_mm, frame, Reading("JK", 0.1)) is bid_card
    assert (pipe.bidding.zone_at(x + 10, y + 10) is not None) is bid_card   # a play ends the auction


class _FaintReader:
    """A bid-card reader that reads every strip weakly: a level digit a few pixels high."""

    def read(self, strips, before=None, prior=None):
        from tablecam.vision.bidcards import BidRead

        return [BidRead("5N", 0.16, [("5N", 0.16), ("3N", 0.15), ("6N", 0.12)], True) for _ in strips]


@pytest.mark.parametrize("size_mm, calls", [((45.0, 90.0), [("5N", True, ["5N", "3N", "6N"])]), ((63.0, 88.0), [])])
def test_law_17_a_bid_card_read_faintly_is_still_a_call_said_unsure(size_mm, calls):
    """A card as wide as a bid card whose strip reads only faintly is still a call: it goes out
    unsure with its candidates (the auction keeps its count of calls, so its end is seen), never
    dropped; a card as wide as a playing card read as faintly is no call."""
    p = 3.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    laid = _laid(table, np.full((90, 45, 3), 235, np.uint8), size_mm, p)
    w = BiddingWatcher(cfg, "bridge", reader=_FaintReader())
    out = _watch(w, table, laid, p)
    assert [(e["call"], e.get("uncertain", False), e.get("candidates")) for e in out] == calls


class _ClothAsPassReader:
    """Reads a strip of bare cloth as a weak pass (as the real reader reads some cloths), a strip of
    anything else brighter as a sure ``1H``, and the player's dark fan as no call."""

    def read(self, strips, before=None, prior=None):
        from tablecam.vision.bidcards import BidRead

        out = []
        for s in strips:
            m = float(np.mean(s))
            if m < 40:
                out.append(BidRead("none", 0.9, [("none", 0.9)]))
            elif m < 90:
                out.append(BidRead("P", 0.6, [("P", 0.6), ("1N", 0.2)], True))
            else:
                out.append(BidRead("1H", 0.95, [("1H", 0.95)]))
        return out


def test_law_17_a_fan_lifted_off_the_row_is_no_call():
    """Before the auction a player rests his fan in his bidding zone, then lifts it: the zone is
    the bare cloth again. What changed is something taken away, not a card laid, so the cloth
    where the fan was is never read as a call; the bid card he then lays is."""
    import cv2

    p = 3.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    fan = _laid(table, np.full((130, 76, 3), 20, np.uint8), (76.0, 130.0), p)
    card = _laid(table, np.full((90, 45, 3), 235, np.uint8), (45.0, 90.0), p)
    w = BiddingWatcher(cfg, "bridge", reader=_ClothAsPassReader())
    out = []
    for img in [table] * 3 + [fan] * (cfg.stable_frames + 3) + [table] * (cfg.stable_frames + 3) \
            + [card] * (cfg.stable_frames + 3):
        view = cv2.resize(img, None, fx=cfg.px_per_mm / p, fy=cfg.px_per_mm / p, interpolation=cv2.INTER_AREA)
        out += w.update(view, img, _top_down(img, p))
    assert [(e["seat"], e["call"]) for e in out] == [(Seat.S, "1H")]


def _taped_layout_pass(p: float) -> tuple[np.ndarray, np.ndarray]:
    """A dark cloth with blue tape lines across South's row, bare and with a pass card laid there;
    laid, the glossy tape beside the card catches its light (brightest next to it, none 15 mm off),
    the cloth does not."""
    from tablecam.sim.bidding_box import draw_card, held_out_design
    from tablecam.vision.bidcards import CARD_MM

    table = np.full((600 * int(p), 600 * int(p), 3), (40, 45, 60), np.uint8)
    mm = np.arange(table.shape[0]) / p
    tape = (mm % 18.0) < 11.0                                  # 11 mm lines every 18 mm
    table[tape] = (190, 140, 30)
    laid = _laid(table, draw_card("P", held_out_design(2))[..., ::-1], CARD_MM, p).astype(np.float32)
    beside = np.maximum(0.0, np.abs(mm - 300.0) - CARD_MM[0] / 2)             # mm off the card's long edges
    glow = np.where(beside > 0, 45.0 * np.clip(1.0 - beside / 15.0, 0.0, None), 0.0)
    lit = tape & (mm >= 430) & (mm < 430 + CARD_MM[1])
    laid[lit] += glow[None, :, None]
    return table, np.clip(laid, 0, 255).astype(np.uint8)


@needs_model
def test_law_17_a_pass_card_on_a_taped_layout_is_a_bid_card_by_its_width():
    """The tape lines beside a pass card change with the light as it is laid: what changed is
    wider than a playing card wherever a line passes the card. The card is measured between its
    own long edges, 45 mm: a bid card, and its pass is read."""
    p = 3.0
    table, laid = _taped_layout_pass(p)
    w = BiddingWatcher(CameraConfig.load(), "bridge")
    zone = next(x.zone for x in w.watches if x.zone.seat == Seat.S)
    out = _watch(w, table, laid, p)
    assert [(e["seat"], e["call"]) for e in out] == [(Seat.S, "P")]
    assert 43 <= (w.laid_width(zone) or 0) <= 47


class _SecondReadFaintly:
    """Reads the first card laid surely as ``1H``, every later strip faintly as ``2H`` (a level digit
    lost at 720p)."""

    def __init__(self) -> None:
        self.reads = 0

    def read(self, strips, before=None, prior=None):
        from tablecam.vision.bidcards import BidRead

        self.reads += 1
        if self.reads == 1:
            return [BidRead("1H", 0.95, [("1H", 0.95)]) for _ in strips]
        return [BidRead("2H", 0.16, [("2H", 0.16), ("4H", 0.15), ("7H", 0.12)], True) for _ in strips]


class _Scripted:
    """Reads each new card as the next of ``reads``: (call, conf, uncertain, candidates)."""

    def __init__(self, reads) -> None:
        self.reads = list(reads)

    def read(self, strips, before=None, prior=None):
        from tablecam.vision.bidcards import BidRead

        call, conf, unsure, cands = self.reads.pop(0) if self.reads else ("none", 0.9, False, ["none"])
        return [BidRead(call, conf, [(c, conf) for c in cands], unsure) for _ in strips]


def test_law_17_e_auction_ended_by_a_pass_read_unsurely_stays_open_for_the_next_call():
    """South's row: 1H, then passes; the third of them is read unsurely (``P``, or ``2H``). Three
    passes after a bid end the auction (Law 17E) only if they were passes: the watcher keeps
    reading, and West's next card is a call, not lost; South picking his cards up is none. Read
    surely, the same passes close it."""
    import cv2

    p = 2.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    face = _plain_bid_face()
    frames, img = [table] * 3, table
    for y in (430, 452, 474, 496):                           # South's row, each card nearer him
        img = _laid_at(img, face, y, p)
        frames += [img] * (cfg.stable_frames + 3)
    img = img.copy()                                         # West's card, its top towards the centre
    img[int(277.5 * p):int(322.5 * p), int(60 * p):int(150 * p)] = cv2.resize(np.rot90(face, 1), (int(90 * p), int(45 * p)))
    frames += [img] * (cfg.stable_frames + 3)
    img = img.copy()                                         # South picks his bid cards up: no call
    img[int(428 * p):, int(262 * p):int(338 * p)] = table[int(428 * p):, int(262 * p):int(338 * p)]
    frames += [img] * (cfg.stable_frames + 3)
    for third_unsure, calls in ((True, ["1H", "P", "P", "P", "2S"]), (False, ["1H", "P", "P", "P"])):
        reads = [("1H", 0.95, False, ["1H"]), ("P", 0.95, False, ["P"]),
                 ("P", 0.4, third_unsure, ["P", "2H"]), ("P", 0.95, False, ["P"]), ("2S", 0.95, False, ["2S"]),
                 ("P", 0.3, True, ["P", "2N"])]                # the bare cloth, were it read
        w = BiddingWatcher(cfg, "bridge", reader=_Scripted(reads))
        out = _feed(w, frames, p)
        assert [e["call"] for e in out] == calls, third_unsure
        assert w.active is third_unsure


@pytest.mark.parametrize("stray", [False, True])
def test_law_17_a_call_laid_almost_over_the_one_before_is_still_a_call(stray):
    """A player lays his second bid card only 15 mm nearer himself than his first, so that little of
    it lies over the cloth: too little to measure its width. It lies on his row of calls, so its
    faint read is still a call, said unsure with its candidates, and the auction keeps its count.
    ``stray``: a thin shadow line runs 6 mm out from the card's corner (compression noise, a
    finger's edge): a few pixels off the row do not take the card off it."""
    p = 3.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    first = _laid(table, _plain_bid_face(), (45.0, 90.0), p)
    second = _laid_at(first, _plain_bid_face(), 445, p)
    if stray:
        second[int(527 * p):int(529 * p), int(322.5 * p):int(328.5 * p)] = 0
    w = BiddingWatcher(cfg, "bridge", reader=_SecondReadFaintly())
    out = _feed(w, [table] * 3 + [first] * (cfg.stable_frames + 3) + [second] * (cfg.stable_frames + 3), p)
    assert [(e["call"], e.get("uncertain", False)) for e in out] == [("1H", False), ("2H", True)]
    assert out[1]["candidates"] == ["2H", "4H", "7H"]


def test_law_41_a_playing_card_is_not_measured_to_a_line_printed_on_it():
    """A playing card laid in South's bidding zone with a dark column printed 44 mm from its left
    edge (a court card's picture, a column of pips), as sharp as an edge and with other colours
    either side: the card is not measured from its edge to that line as a 45 mm bid card, for
    beyond the line lies the card's own body, not the table. It is a playing card by its width."""
    p = 3.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    face = np.full((88, 63, 3), 235, np.uint8)
    face[6:82, 44:50] = (30, 30, 160)
    laid = _laid(table, face, (63.0, 88.0), p)
    w = BiddingWatcher(cfg, "bridge", reader=_ClothAsPassReader())
    zone = next(x.zone for x in w.watches if x.zone.seat == Seat.S)
    _watch(w, table, laid, p)
    assert w.playing_card_wide(w.laid_width(zone))


@pytest.mark.parametrize("later_s,calls", [(0.4, ["P"]), (6.0, ["P", "P"])])
def test_law_17_a_the_callers_card_seen_again_is_one_call(later_s, calls):
    """South's pass is read, then the same card is seen again 15 mm nearer him (he straightened it,
    or it was first read while his hand still held it) and read as a pass again. Nobody calls twice
    in a row (Law 17A: calls in rotation), and a round of four calls takes longer than 2 s: 0.4 s
    later it is that card seen again, one call. Six seconds later, with no call read between, it is
    South's next call (the others' calls missed, or a call out of rotation, Law 31): two calls."""
    p = 3.0
    cfg = CameraConfig.load()
    table = np.full((600 * int(p), 600 * int(p), 3), (60, 110, 40), np.uint8)
    first = _laid(table, _plain_bid_face(), (45.0, 90.0), p)
    moved = _laid_at(table, _plain_bid_face(), 445, p)
    w = BiddingWatcher(cfg, "bridge", reader=_Scripted([("P", 0.95, False, ["P"])] * 2))
    n = cfg.stable_frames + 3
    times = [0.0] * 3 + [0.1 + 0.04 * k for k in range(n)]
    t0 = times[-1] + later_s - 0.04 * n
    times += [t0 + 0.04 * k for k in range(n)]
    out = _feed(w, [table] * 3 + [first] * n + [moved] * n, p, times)
    assert [e["call"] for e in out] == calls


@needs_model
def test_law_17_a_tape_line_under_the_card_does_not_move_its_lower_edge():
    """A white tape line on blue felt runs along South's row under his first bid card and 30 mm out
    towards him. As the card is laid, the line's bare tail changes brightness with it (the encoder
    requantises the block the card entered): the lowest change lies 30 mm nearer South than the
    card's edge. The card's lower edge is where the change is as wide as half a card, and its call
    is read there, surely."""
    import cv2

    from tablecam.sim.bidding_box import draw_card, held_out_design
    from tablecam.vision.bidcards import CARD_MM

    p = 3.0
    rng = np.random.default_rng(7)
    table = np.clip(rng.normal((140, 70, 30), 3.0, (600 * int(p), 600 * int(p), 3)), 0, 255).astype(np.uint8)
    line = (slice(int(430 * p), int((430 + CARD_MM[1] + 30) * p)), slice(int(305 * p), int(313 * p)))
    table[line] = (225, 235, 240)
    face = cv2.resize(np.ascontiguousarray(draw_card("2H", held_out_design(3))[..., ::-1]),
                      (int(CARD_MM[0] * p), int(CARD_MM[1] * p)), interpolation=cv2.INTER_AREA)
    laid = _laid(table, face, CARD_MM, p)
    tail = (slice(int((430 + CARD_MM[1]) * p), line[0].stop), line[1])
    laid[tail] = (laid[tail].astype(np.int16) - 40).clip(0, 255).astype(np.uint8)
    w = BiddingWatcher(CameraConfig.load(), "bridge")
    out = _watch(w, table, laid, p)
    assert [(e["seat"], e["call"], e.get("uncertain", False)) for e in out] == [(Seat.S, "2H", False)]


@needs_model
@pytest.mark.parametrize("design,cast", [(1, (3.0, 1.6, 1.6)), (3, (3.5, 1.7, 1.5))])
def test_law_17_a_pass_card_is_read_under_the_light_the_auction_began_in(design, cast):
    """Black cloth: as a bright pass card comes into the dark picture the camera's exposure and white
    balance move (each channel gains, blue most, BGR ``cast``), and the card's green turns towards
    cyan with its green channel clipped. Read under the light the zone had when the auction began
    (the cloth's own change undone), it is the pass it is, surely."""
    from tablecam.sim.bidding_box import draw_card, held_out_design
    from tablecam.vision.bidcards import CARD_MM

    p = 3.0
    rng = np.random.default_rng(3)
    table = np.clip(rng.normal((38, 40, 42), 2.0, (600 * int(p), 600 * int(p), 3)), 0, 255).astype(np.uint8)
    laid = _laid(table, draw_card("P", held_out_design(design))[..., ::-1], CARD_MM, p)
    laid = np.clip(laid * np.float32(cast), 0, 255).astype(np.uint8)
    out = _watch(BiddingWatcher(CameraConfig.load(), "bridge"), table, laid, p)
    assert [(e["seat"], e["call"], e.get("uncertain", False)) for e in out] == [(Seat.S, "P", False)]
