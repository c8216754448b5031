"""One corner network taught two stages' mean probability (``tablecam train --teacher``).

The shipped corner classifier averages two networks, so each corner view
costs two network runs; a network taught their mean (distillation) costs one.
Needs torch (the ``train`` extra); CI without it skips these.
"""

from __future__ import annotations

import pytest

from tablecam.vision.classify import CLASSES


def test_the_taught_loss_is_least_where_the_net_gives_the_teachers_probabilities():
    """Against a teacher's probabilities the loss is their cross-entropy:
    a net giving exactly those probabilities has the least loss (its
    gradient is zero) and agrees with the teacher's likeliest card; the
    labels do not enter."""
    torch = pytest.importorskip("torch")
    from tablecam.training.train import _loss

    n = len(CLASSES)
    g = torch.Generator().manual_seed(0)
    soft = torch.softmax(torch.randn(4, n, generator=g) * 3, 1)
    labels = torch.zeros(4, dtype=torch.long)  # every label "SA": ignored
    same = torch.log(soft).clone().requires_grad_(True)
    loss, right = _loss(same, labels, 0.05, None, soft)
    loss.backward()
    assert right == 4
    assert float(same.grad.abs().max()) < 1e-6
    entropy = -(soft * torch.log(soft)).sum(1).mean()
    assert abs(float(loss) - float(entropy)) < 1e-5
    other = torch.randn(4, n, generator=g)
    assert float(_loss(other, labels, 0.05, None, soft)[0]) > float(loss)


def test_the_teacher_is_the_mean_of_its_stages():
    """``averaged_net`` of two stages gives the log of their mean
    probability, what the shipped ONNX classifier computes."""
    torch = pytest.importorskip("torch")
    from tablecam.training.train import averaged_net, build_net
    from tablecam.vision.classify import INPUT_H, INPUT_W, MODELS_DIR

    members = [MODELS_DIR / "card_classifier.pt", MODELS_DIR / "card_classifier_stage14.pt"]
    teacher = averaged_net(members)
    x = torch.rand(3, 3, INPUT_H, INPUT_W, generator=torch.Generator().manual_seed(1))
    probs = []
    for m in members:
        net = build_net(len(CLASSES))
        net.load_state_dict(torch.load(m, map_location="cpu"))
        probs.append(torch.softmax(net.eval()(x), 1))
    with torch.no_grad():
        got = torch.softmax(teacher(x), 1)
    assert torch.allclose(got, (probs[0] + probs[1]) / 2, atol=1e-5)


def test_the_views_detect_reads_are_recorded_once_each():
    """The views a distilled network learns the teacher on are the ones
    detect() runs through the classifier: on a rendered table, each
    distinct view once, as uint8 corner crops of the classifier's size;
    the recording leaves detect()'s cards as they were."""
    import numpy as np

    from tablecam.training.distil import _Recorder, detect_views
    from tablecam.training.faces import training_decks
    from tablecam.training.synth import render_scene
    from tablecam.vision.classify import INPUT_H, INPUT_W, corner_network
    from tablecam.vision.detector import CardDetector

    x = detect_views(1, seed=3, photos=False, progress=False)
    assert x.dtype == np.uint8 and x.shape[1:] == (3, INPUT_H, INPUT_W) and len(x) > 50
    assert len({row.tobytes() for row in x}) == len(x)
    image = render_scene(np.random.default_rng(3), training_decks(), size=(1280, 720), overlap=True,
                         fingers=True).image
    plain, recorded = CardDetector(), CardDetector()
    rec = _Recorder()
    rec.wrap(corner_network(recorded.classifier))
    assert [(d.card, d.conf) for d in recorded.detect(image)] == [(d.card, d.conf) for d in plain.detect(image)]
    assert len(rec.views) == len(x)
