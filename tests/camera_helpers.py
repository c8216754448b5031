"""Shared helpers for the camera pipeline tests (not a test module).

``TemplateClassifier`` is a stand-in for the trained model: it matches a
rectified crop against the simulator's own faces, so the pipeline's geometry,
stability and event logic can be tested on their own, fast and without the
model.  The tests that use the shipped model say so.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tablecam.cards import full_deck


class TemplateClassifier:
    def __init__(self, deck: str = "drawn-sans") -> None:
        import cv2

        from tablecam.sim.video import FaceBank

        bank = FaceBank(deck, (50, 70))
        self.codes = [str(c) for c in full_deck()] + ["back"]
        t = [self._features(bank.get(c)) for c in self.codes]
        self.T = np.stack(t)
        self.T180 = self.T[:, :, ::-1, ::-1]

    def _features(self, img: np.ndarray) -> np.ndarray:
        """Grey level and redness (red suits vs black), each normalised; 3-pixel border dropped."""
        img = img.astype(np.float32)
        grey = img.mean(2)
        red = img[..., 2] - 0.5 * (img[..., 0] + img[..., 1])
        red = red[3:-3, 3:-3] - red[3:-3, 3:-3].mean()
        # damped so a black card's redness (noise only) stays near zero instead of being blown up
        return np.stack([self._norm(grey[3:-3, 3:-3]), red / (np.linalg.norm(red) + 2000.0)])

    @staticmethod
    def _norm(g: np.ndarray) -> np.ndarray:
        g = g - g.mean()
        return g / (np.linalg.norm(g) + 1e-6)

    def __call__(self, crop: np.ndarray):
        import cv2

        f = self._features(cv2.resize(crop, (50, 70), interpolation=cv2.INTER_AREA))
        s = np.maximum((self.T * f).sum((1, 2, 3)), (self.T180 * f).sum((1, 2, 3))) / 2
        p = np.exp((s - s.max()) * 100)
        p /= p.sum()
        i = int(p.argmax())
        return self.codes[i], float(p[i]), {c: float(v) for c, v in zip(self.codes, p)}


def truth(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def card_quad(x_mm: float, y_mm: float) -> np.ndarray:
    """The corners of an upright 63x88 mm card centred at (x, y) table millimetres, TL TR BR BL."""
    return np.array([[x_mm - 31.5, y_mm - 44], [x_mm + 31.5, y_mm - 44], [x_mm + 31.5, y_mm + 44],
                     [x_mm - 31.5, y_mm + 44]], np.float64)
