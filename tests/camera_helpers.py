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
        t = []
        for c in self.codes:
            g = cv2.cvtColor(bank.get(c), cv2.COLOR_BGR2GRAY).astype(np.float32)
            t.append(self._norm(g))
        self.T = np.stack(t)
        self.T180 = self.T[:, ::-1, ::-1]

    @staticmethod
    def _norm(g: np.ndarray) -> np.ndarray:
        g = g - g.mean()
        return g / (np.linalg.norm(g) + 1e-6)

    def __call__(self, crop: np.ndarray):
        import cv2

        g = cv2.cvtColor(cv2.resize(crop, (50, 70), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        g = self._norm(g.astype(np.float32)[3:-3, 3:-3])
        s = np.maximum((self.T[:, 3:-3, 3:-3] * g).sum((1, 2)), (self.T180[:, 3:-3, 3:-3] * g).sum((1, 2)))
        p = np.exp((s - s.max()) * 100)
        p /= p.sum()
        i = int(p.argmax())
        return self.codes[i], float(p[i]), {c: float(v) for c, v in zip(self.codes, p)}


def truth(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
