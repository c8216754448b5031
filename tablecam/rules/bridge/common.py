"""Constants shared by the bridge engine's modules: phases, the Law texts, seat names."""

from __future__ import annotations

import json
import os
from typing import Any

from .tables import SEAT_LETTERS

with open(os.path.join(os.path.dirname(__file__), "laws.json"), encoding="utf-8") as _fp:
    LAWS: dict[str, Any] = json.load(_fp)
"""Rule citations, options and remedies by situation (data, see laws.json)."""

DEALING, AUCTION, PLAY, FINISHED = "dealing", "auction", "play", "finished"
VULNERABLE = {"none": "None", "-": "None", "love": "None", "ns": "NS", "ew": "EW", "all": "All", "both": "All",
              "b": "All"}


def seat_name(s: int | None) -> str | None:
    return None if s is None else SEAT_LETTERS[s]
