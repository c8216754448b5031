"""The card detector's settings: one frozen object, read from the file that
ships beside the models (``detector.json`` in the model directory).

Why one object from a file: the settings were chosen for the shipped
models on the tuning sets (``bench/vision/tune.py``) and belong with them;
a model directory trained later brings its own file.  A setting the
detector does not know is refused by name, so a file written for another
version cannot quietly leave a step at its default.
``docs/detector-settings.md`` records why each value is what it is.
"""

from __future__ import annotations

import json
from pathlib import Path

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..config import ConfigError, _Strict, parse_config

SETTINGS_FILE = "detector.json"


class DetectorSettings(BaseModel):
    """What :class:`~tablecam.vision.detector.CardDetector` does, step by step.

    >>> DetectorSettings().min_conf_rare
    0.9
    >>> try:
    ...     DetectorSettings(nudge=4)
    ... except ValueError as e:
    ...     print("unknown detector setting: nudge" in str(e))
    True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_conf: float | None = Field(None, description="the least confidence of a card read")
    max_side: int = Field(900, description="long side the classical localiser works at (px)")
    nms_iou: float = Field(0.5, description="the classical detector's quad NMS IoU")
    candidate_iou: float = Field(0.9, description="near-duplicate classical quads of one card are kept for the classifier up to this IoU")
    min_conf_rare: float = Field(0.9, description="the least confidence of a back or a joker read")
    localiser: bool | None = Field(None, description="use the learned localiser (None: when the model directory ships it)")
    localiser_conf: float = Field(0.25, description="the localiser's least box score")
    localiser_imgsz: int | tuple[int, ...] | None = Field(None, description="the localiser's input sizes (None: its JSON's infer_imgsz)")
    localiser_iou: float = Field(0.75, description="the localiser's box NMS IoU")
    whole_image_classical: bool = Field(True, description="1: also the classical localiser on the whole image, 0: not")
    box_itself: bool = Field(True, description="1: each box is read through itself as a card's outline too (proposals.box_card: a card square to a slanted camera, shortened along the line of sight)")
    edge_peaks: int = Field(1, description="edge directions per box turned into card quads (0: none)")
    outline_quads: bool = Field(True, description="1: a box left without a card is also read closely through the outline of its whitest region, of any shape")
    size_most: float = Field(2.0, description="a box's quads wider than this many times the widest card in a box the localiser is sure of are not read (0: no limit)")
    second_reads: int = Field(3, description="reads per box kept for when its surest is a neighbour's card")
    fitted: int = Field(4, description="edge-fitted quads read in a box nothing else was read in (0: none)")
    read_views: int = Field(3, description="corner windows of the final read of each card found")
    refit: bool = Field(True, description="1: boxes left without a card are read through fitted quads too")
    fallback_iou: float = Field(0.8, description="a fall-back read's quad may overlap a claimed card's this much")
    close_conf_rare: float = Field(0.97, description="the least confidence of a back or a joker read closely")
    width_share: float = Field(0.25, description="a card found in a box left without one is within this share of the usual card's width")
    size_at_place: bool = Field(True, description="1: a card found late is within width_share (index_size) of the size the cards found give at its place (the root of the area, its inverse affine in the picture: a slanted camera shortens a card and shows the far row smaller; 0: of the short side of all cards found)")
    best_assignment: bool = Field(True, description="1: boxes to cards by the surest assignment of the picture, 0: greedily")
    found_iou: float = Field(0.85, description="a box overlapping a card found by more than this box IoU is that card boxed twice (not read closely)")
    avoid_iou: float = Field(0.75, description="fitted rectangles keep clear of the cards found by this quad IoU")
    back_iou: float = Field(0.45, description="a back read closely overlapping a back found by more than this quad IoU is that back")
    pips: float = Field(20.0, description="weight of the pip count as evidence of a number card's rank in the final read (0: off)")
    index: bool | None = Field(None, description="1: cards found by their index alone (card_index.onnx), 0: not")
    index_conf: float = Field(0.3, description="the index localiser's least window score")
    index_floor: float = Field(0.9, description="the least confidence of a card read from its index alone")
    index_imgsz: int | tuple[int, ...] | None = Field(None, description="the index localiser's input size (0: its JSON's)")
    index_size: float = Field(0.35, description="a card read from its index is within this share of the usual width")
    index_iou: float = Field(0.5, description="the index localiser's rotated NMS IoU")
    index_card_px: float = Field(100.0, description="the index localiser sees the cards found this tall (0: fixed size)")
    index_reader: Path | None = Field(None, description="the classifier that reads index windows (None: card_index_reader.onnx if shipped, else the classifier)")
    index_floor_under: float = Field(0.6, description="the least confidence of a card read from its index alone that found cards cover")
    index_under_share: float = Field(0.5, description="the share of such a card's quad the found cards must cover")
    index_floor_open: float = Field(0.6, description="the least confidence of a card read from its index alone that no found card touches")
    close_conf: float = Field(0.7, description="boxes left without a card: their likeliest quads read as a card found is read, kept from this confidence (0: off)")
    close_quads: int = Field(2, description="quads per box read so")
    close_displaces: float = Field(0.1, description="a close read of a face card found elsewhere, surer than that read by at least this, takes the card and the other read goes (one pack holds each card once; 0: off)")
    whole_card: float = Field(0.3, description="a close read whose likeliest card reaches this but not close_conf is read by the whole face too, and where that names the same card the two are multiplied (whole_card.agreeing; 0: off)")
    whole_card_product: bool = Field(True, description="1: such a read stands where the product still names its likeliest card, though the whole face's own likeliest is another (whole_card.agreeing top=False); 0: the whole face must name it first")
    back_check: float = Field(0.1, description="reads leaning to back with at least this P(back) are checked whole (back_check.onnx; 0: off)")
    back_check_path: Path | None = Field(None, description="the back check's ONNX (None: the model directory's back_check.onnx)")
    hidden_seen: float = Field(0.4, description="of two face cards each hiding the other's index corners (each shows less than this of one outside the other), or one a smaller card inside the other's outline, the less sure is dropped (occlusion.drop_hidden; 0: off)")
    back_in_picture: float | None = Field(0.05, description="a back reaching beyond the picture by more than this share of its short side is not reported (backs.cut_by_edge; None: off)")
    back_size: float | None = Field(1.25, description="a back more than this many times as long as the nearest face card read in the picture is not reported (backs.outsized; None or 0: off)")
    side_suits: bool = Field(True, description="1: a final read split between two suits of one rank is decided again by the suit at the other end of the top edge (side_index.with_side_suits)")
    index_fit: bool = Field(True, description="1: each index window's card quads also laid on the image edges meeting near their corner")
    index_fit_shift: float = Field(0.25, description="how far the fitted corner's edges may lie from the window's, a share of its width")
    index_fit_reach: float = Field(1.6, description="the fitted edges' length, in window sides")
    index_rounds: int = Field(2, description="rounds of the index step, each with the cards found so far (a round finding nothing ends them)")
    index_gate: float = Field(0.1, description="an index window's card quad is read through its other views only when its first view gives a card at least this likely (0: every quad)")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data):
        """Refuse the settings this detector does not have, by name."""
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(cls.model_fields))
            if unknown:
                raise ValueError(f"unknown detector setting{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
        return data


class SettingsFile(_Strict):
    """``detector.json``: the settings, and free-text notes on why they are what they are."""

    settings: DetectorSettings
    notes: Any = None


def load_settings(model_dir: str | Path) -> DetectorSettings:
    """The settings shipped in ``model_dir`` (``detector.json``: its
    ``"settings"`` object, beside free-text ``"notes"``), or the defaults
    when the directory has none.  A bad file is a ``ValueError`` naming the
    file and the key (:class:`~tablecam.config.ConfigError`, the style of
    every config a user edits)."""
    path = Path(model_dir) / SETTINGS_FILE
    if not path.exists():
        return DetectorSettings()
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: not a settings file ({e})") from e
    if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
        raise ConfigError(f"{path}: a settings file is a JSON object with a \"settings\" object")
    return parse_config(data, SettingsFile, str(path)).settings


__all__ = ["DetectorSettings", "load_settings", "SETTINGS_FILE"]
