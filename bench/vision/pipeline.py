"""Camera pipeline benchmark: frames per second on 1280x720 video and event latency.

    .venv/bin/python bench/vision/pipeline.py [--tricks 4] [--fps 25] [--deck DECK] [--detect-frames 10]

1. Renders a simulated table video (``tablecam sim video``: 1280x720, corner
   markers, hands, a hand passing over, lighting changes) with its exact
   ground truth.
2. Runs the camera pipeline over the whole video, decoding included, and
   measures frames per second, and for every ``play`` the latency from the
   card coming to rest (ground truth) to the event: the video time until
   the deciding frame plus the wall time spent processing that frame.
3. Baseline: the video's own frame rate (``--fps``, 25), which is what a
   live camera delivers and so what the pipeline has to keep up with; the
   ratio is pipeline frames per second over that rate ("times real time",
   above 1 keeps up).  A fixed rate, unlike a second method timed on the
   same loaded machine, does not move when that method gets slower.  The
   rate is also given per CPU second of the process (all its threads), which
   a shared machine's load moves far less than wall time.
4. For reference, on ``--detect-frames`` frames spread over the same video:
   the whole-image card detector on every full frame
   (``CardDetector.detect``), the naive approach the pipeline avoids (only
   its raw rate is printed; ``--detect-frames 0`` skips it).  Where the
   model is not installed, every play zone is classified on every frame
   instead, and the run says so.

Prints the ratio and the raw numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tricks", type=int, default=4)
    ap.add_argument("--fps", type=float, default=25.0)
    ap.add_argument("--deck", default=None, help="deck design (default: the video benchmark's held-out design)")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--detect-frames", type=int, default=10,
                    help="frames the whole-image detector is timed on, for reference (0: skip it)")
    ap.add_argument("--template", action="store_true", help="use the template stand-in, not the model")
    ap.add_argument("--keep", help="write the video here instead of a temporary folder")
    args = ap.parse_args()

    from tablecam.sim.video import SimOptions, random_deal_log, render_video
    from tablecam.vision.camera import FrameSource
    from tablecam.vision.pipeline import CameraPipeline, Reading
    from tablecam.vision.zones import CameraConfig

    model = None
    if not args.template:
        try:
            from tablecam.vision import detector as model

            model.load_detector()
        except Exception as e:  # not installed, or the model file not shipped yet
            print(f"(card model not available: {type(e).__name__}: {e}; using the template stand-in)",
                  file=sys.stderr)
            model = None
    deck = args.deck
    if deck is None:
        try:
            import tablecam.training.faces  # noqa: F401  (the decks' renderer)
            from video import JUDGED_DECK

            deck = JUDGED_DECK                # the video benchmark's held-out design, no model saw it
        except ImportError:
            deck = "plain"
    if model is not None:
        classify = None                       # the pipeline's default: the shipped model
        clf_name = "model (tablecam.vision.detector.classify_card)"
    else:
        from camera_helpers import TemplateClassifier
        classify = TemplateClassifier(deck)
        clf_name = "template stand-in (model not installed or --template)"

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tablecam-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    video = tmp / "table.mp4"
    opt = SimOptions(fps=args.fps, seed=args.seed, deck=deck, max_tricks=args.tricks, pass_prob=0.7)
    t0 = time.perf_counter()
    truth_path, meta, scene = render_video(random_deal_log(args.seed, tricks=args.tricks + 1), video, opt)
    render_s = time.perf_counter() - t0
    truth = [json.loads(x) for x in truth_path.read_text().splitlines()]
    n_frames = json.loads(meta.read_text())["frames"]

    # -- the pipeline, decoding included -----------------------------------
    cfg = CameraConfig.load()
    pipe = CameraPipeline(cfg, classify=classify)
    if model is not None:
        pipe.classify(__import__("numpy").zeros((350, 250, 3), "uint8"))   # load the model outside the timing
        pipe.stats.classified, pipe.stats.seconds["classify"] = 0, 0.0
    events, frame_wall = [], {}
    t0, c0 = time.perf_counter(), time.process_time()
    for f in FrameSource(video, log=None):
        a = time.perf_counter()
        out = pipe.process(f)
        frame_wall[f.index] = time.perf_counter() - a
        for e in out:
            d = e.to_dict()
            d["_frame"] = f.index
            events.append(d)
    pipe_s, pipe_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    pipe_fps = pipe.stats.frames / pipe_s
    cpu_fps = pipe.stats.frames / pipe_cpu_s    # frames per CPU second: what one core would keep up with
    crops = pipe.stats.classified
    stage_s = {k: round(v, 3) for k, v in pipe.stats.seconds.items()}

    gt_plays = [e for e in truth if e["type"] == "play"]
    got_plays = [e for e in events if e.get("type") == "play"]
    pairs = list(zip(gt_plays, got_plays))
    correct = sum(1 for g, e in pairs if (g["seat"], g["card"]) == (e["seat"], e["card"]))
    lat = [(e["ts"] - g["ts"]) + frame_wall[e["_frame"]] for g, e in pairs
           if (g["seat"], g["card"]) == (e["seat"], e["card"])]
    key = lambda e: (e["type"], e.get("seat"), e.get("card"), tuple(e.get("cards", ())))  # noqa: E731
    want = [key(e) for e in truth if e["type"] in ("play", "trick_turned", "expose")]
    got = [key(e) for e in events if e.get("type") in ("play", "trick_turned", "expose")]

    # -- reference: the naive approach on frames of the same video ----------
    import numpy as np

    frames = []
    for f in FrameSource(video, log=None):
        if args.detect_frames <= 0:
            break
        if f.index % max(1, n_frames // args.detect_frames) == 0:
            frames.append(f.image)
        if len(frames) >= args.detect_frames:
            break
    base_name, base_s = "skipped (--detect-frames 0)", 0.0
    if not frames:
        pass
    elif model is not None:
        det = model.load_detector() if hasattr(model, "load_detector") else model.CardDetector()
        det.detect(frames[0])
        base_name = "CardDetector.detect on every full 1280x720 frame"
        t0 = time.perf_counter()
        for img in frames:
            det.detect(img)
        base_s = time.perf_counter() - t0
    else:
        base_name = "classify all four play zones on every frame (no detector installed)"
        zones = [z for z in cfg.zones_for("bridge") if z.kind == "play"]
        quads = []
        for z in zones:
            x, y, w, h = z.rect
            c = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float) * cfg.px_per_mm
            quads.append(c)
        t0 = time.perf_counter()
        for img in frames:
            for q in quads:
                r = pipe.classify(pipe.crop_card(img, q, grow_mm=0))
                assert isinstance(r, Reading)
        base_s = time.perf_counter() - t0
    base_fps = len(frames) / base_s if base_s else None

    res = {
        "video": {"frames": n_frames, "fps": args.fps, "size": "1280x720", "deck": deck, "tricks": args.tricks,
                  "hand_passes": len(scene.hand_passes), "render_s": round(render_s, 1)},
        "classifier": clf_name,
        "pipeline": {"fps": round(pipe_fps, 1), "seconds": round(pipe_s, 2), "cpu_seconds": round(pipe_cpu_s, 2),
                     "frames_per_cpu_second": round(cpu_fps, 1), "classified_crops": crops, "stage_s": stage_s},
        "baseline": {"name": "the video's frame rate (a live camera's)", "fps": args.fps},
        "real_time": round(pipe_fps / args.fps, 2),
        "real_time_per_cpu_second": round(cpu_fps / args.fps, 2),
        "reference": {"name": base_name, "frames": len(frames),
                      "fps": round(base_fps, 2) if base_fps else None},
        "events": {"exact_log": got == want, "plays": len(gt_plays), "plays_read": len(got_plays),
                   "plays_correct": correct},
        "latency_ms": {"mean": round(1000 * statistics.mean(lat), 1) if lat else None,
                       "max": round(1000 * max(lat), 1) if lat else None},
    }
    ref = f"{base_fps:.2f} fps" if base_fps else "not timed"
    print(f"camera pipeline: {pipe_fps:.1f} fps against the video's {args.fps:g} fps = "
          f"{pipe_fps / args.fps:.2f}x real time ({cpu_fps:.1f} frames per CPU second = "
          f"{cpu_fps / args.fps:.2f}x; reference, {base_name}: {ref}); "
          f"event latency mean {res['latency_ms']['mean']} ms, "
          f"max {res['latency_ms']['max']} ms; plays {correct}/{len(gt_plays)}; exact log: {got == want}")
    print(json.dumps(res, indent=1))
    if got != want:
        print("diff: want", want, "\n      got ", got, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
