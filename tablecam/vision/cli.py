"""The vision runtime's commands: ``tablecam detect`` (the cards in
photographs, as JSON), ``tablecam camera`` (a camera or video -> events) and
``tablecam calibrate`` (the marker sheet, the table's corners, the lens).
The training commands - ``synth``, ``train`` and the rest - are in
:mod:`tablecam.training.cli`; ``tablecam sim video`` in :mod:`tablecam.sim.cli`.

Heavy imports (OpenCV, ONNX Runtime) happen inside the command
functions so ``tablecam --help`` stays fast.

Exit status of ``detect``: 0 when every image was read (cards found or not);
1 when at least one image could not be read or processed (its JSON object
then carries an ``error`` field, the message also goes to stderr, and the
remaining images are still processed); 2 when the model itself cannot be
loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("detect", help="find and read the cards in photographs (JSON per image)")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="JSON Lines output (the default; kept for the contract)")
    p.add_argument("--model-dir", default=None, help="directory holding card_classifier.onnx (default: the shipped models)")
    p.add_argument("--probs", action="store_true", help="add each card's quad and top-5 probabilities")
    p.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                   help="ONNX Runtime threads a model (default: 2, or 1 on one core; the same cards either way)")
    p.set_defaults(func=cmd_detect)

    c = sub.add_parser(
        "camera", help="camera pipeline: video -> play/expose/trick_turned events (JSON Lines)",
        description="Read a camera (device index), a video file or an RTSP/HTTP stream; print the camera "
                    "events (play, expose, trick_turned) and fusion findings as JSON Lines.")
    c.add_argument("--source", required=True, help="device index, video file or rtsp:// / http:// URL")
    c.add_argument("--config", help="camera config (default: the shipped tablecam/vision/camera.toml)")
    c.add_argument("--game", default="bridge", choices=("bridge", "vira", "pidro", "whist"))
    c.add_argument("--calibration", help="calibration JSON from `tablecam calibrate --out`")
    c.add_argument("--points", help="corner points NW,NE,SE,SW in pixels: 'x,y x,y x,y x,y'")
    c.add_argument("--shoe", help="event log with the shoe's deal events: readings are checked against the hands")
    c.add_argument("--max-frames", type=int, default=None)
    c.add_argument("--stats", action="store_true", help="print frames/second and stage times to stderr at the end")
    c.set_defaults(func=cmd_camera)

    k = sub.add_parser(
        "calibrate", help="table calibration: print the marker sheet, or find the table in a frame",
        description="--print-markers FILE writes a printable A4 sheet of the four ArUco corner markers. "
                    "--source X finds the markers (or uses --points) in the first frames and writes the "
                    "calibration (--out FILE) and, with --view FILE, the top-down view for a check by eye.")
    k.add_argument("--print-markers", metavar="PNG", help="write the marker sheet here")
    k.add_argument("--dpi", type=int, default=300)
    k.add_argument("--source", help="device index, video file, image or stream")
    k.add_argument("--points", help="corner points NW,NE,SE,SW in pixels instead of markers")
    k.add_argument("--config", help="camera config (default: the shipped tablecam/vision/camera.toml)")
    k.add_argument("--out", help="write the calibration JSON here")
    k.add_argument("--view", help="write the top-down view image here")
    k.add_argument("--checkerboard", metavar="COLSxROWS",
                   help="calibrate a wide-angle lens instead: --source is a video or a folder of images of a "
                        "printed checkerboard with this many inner corners (e.g. 9x6); writes --lens-out")
    k.add_argument("--square-mm", type=float, default=25.0, help="the checkerboard's square side")
    k.add_argument("--lens-from-markers", action="store_true",
                   help="fit a wide-angle lens to the four corner markers in the first frame of --source that "
                        "shows them all (no checkerboard needed); writes --lens-out")
    k.add_argument("--lens-out", help="where the lens JSON goes ([lens] file = ... in the camera config)")
    k.set_defaults(func=cmd_calibrate)


def cmd_detect(args) -> int:
    from .detector import load_detector
    from .imagefile import read_photo

    try:
        det = load_detector(args.model_dir, threads=args.threads)
    except Exception as e:  # missing or broken model: nothing can be read
        print(f"tablecam detect: cannot load the model: {e}", file=sys.stderr)
        return 2
    from ..progress import Progress

    rc = 0
    # several images take a while (about a second each): say how far it got, on stderr
    progress = Progress("detect", len(args.images), "images") if len(args.images) > 1 else None
    for path in args.images:
        rec: dict = {"image": path, "cards": []}
        try:
            img, warning = read_photo(path)
            if warning:
                rec["warning"] = warning
                print(f"tablecam detect: {path}: {warning}", file=sys.stderr)
            for d in det.detect(img):
                item = d.to_dict()
                if args.probs:
                    item["quad"] = [[round(float(x), 1), round(float(y), 1)] for x, y in d.quad]
                    item["probs"] = {k: round(v, 4) for k, v in d.probs.items()}
                rec["cards"].append(item)
        except Exception as e:
            rec["error"] = str(e)
            print(f"tablecam detect: {path}: {e}", file=sys.stderr)
            rc = 1
        sys.stdout.write(json.dumps(rec) + "\n")
        sys.stdout.flush()
        if progress is not None:
            progress.step(note=os.path.basename(path))
    return rc


def _points(text: str) -> list[list[float]]:
    pts = [[float(v) for v in p.split(",")] for p in text.replace(";", " ").split()]
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise ValueError("--points needs four x,y pairs: NW NE SE SW")
    return pts


def _load_cfg(path: str | None):
    from .zones import CameraConfig

    return CameraConfig.load(path)


def cmd_camera(args: argparse.Namespace) -> int:
    import time

    from .calibrate import Calibration
    from .camera import FrameSource
    from .fusion import HandBook
    from .pipeline import CameraPipeline

    try:
        cfg = _load_cfg(args.config)
        cal = None
        if args.calibration:
            cal = Calibration.load(args.calibration)
        elif args.points:
            cal = Calibration.from_points(_points(args.points), cfg.geometry)
    except (OSError, ValueError, KeyError) as e:
        print(f"tablecam camera: {e}", file=sys.stderr)
        return 2
    hands = HandBook()
    pipe = CameraPipeline(cfg, game=args.game, calibration=cal, hands=hands)
    if args.shoe:
        from ..archive import load
        from ..events import Event

        try:
            for ev in load(args.shoe):
                if isinstance(ev, Event) and ev.type in ("board", "deal"):
                    pipe.feed(ev)
        except (OSError, ValueError) as e:
            print(f"tablecam camera: cannot read {args.shoe}: {e}", file=sys.stderr)
            return 2
    try:
        src = FrameSource(args.source).open()
    except OSError as e:
        print(f"tablecam camera: {e}", file=sys.stderr)
        return 2
    if src.kind == "file" and src.frame_count <= 1:
        # OpenCV opens a photo as a one-frame video; a table needs frames over time
        src.close()
        print(f"tablecam camera: {args.source} is not a video (a still image, or a file with at most one "
              "frame); give a video file, a camera device or a stream (`tablecam detect` reads photos)",
              file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    out = sys.stdout
    try:
        for f in src:
            if args.max_frames is not None and f.index >= args.max_frames:
                break
            for item in pipe.process(f):
                out.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
                out.flush()
    except RuntimeError as e:
        print(f"tablecam camera: {e}", file=sys.stderr)
        return 2
    finally:
        src.close()
    dt = time.perf_counter() - t0
    if pipe.cal is None:
        print("tablecam camera: the table was never calibrated (no corner markers seen); "
              "use --points or --calibration", file=sys.stderr)
    if args.stats:
        st = pipe.stats
        print(json.dumps({"frames": st.frames, "seconds": round(dt, 3), "fps": round(st.frames / dt, 1) if dt else None,
                          "classified": st.classified, "dropped": src.dropped,
                          "stages_s": {k: round(v, 3) for k, v in st.seconds.items()}}), file=sys.stderr)
    return 0 if pipe.cal is not None else 1


def _calibrate_lens(args: argparse.Namespace) -> int:
    """``--checkerboard``: the lens's intrinsics from views of a printed checkerboard."""
    from pathlib import Path

    import cv2

    from .calibrate import Lens
    from .camera import FrameSource

    try:
        cols, rows = (int(v) for v in args.checkerboard.lower().split("x"))
        if not args.source or not args.lens_out:
            raise ValueError("--checkerboard needs --source (video or image folder) and --lens-out")
        src = Path(args.source)
        if src.is_dir():
            images = [cv2.imread(str(p)) for p in sorted(src.iterdir())
                      if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp")]
        else:
            with FrameSource(args.source, log=None) as fs:
                images = [f.image for f in fs if f.index % 10 == 0]
        lens = Lens.from_checkerboard([i for i in images if i is not None], (cols, rows), args.square_mm)
    except (OSError, ValueError) as e:
        print(f"tablecam calibrate: {e}", file=sys.stderr)
        return 2
    lens.save(args.lens_out)
    print(json.dumps(lens.to_dict()))
    return 0


def _lens_from_markers(args: argparse.Namespace, cfg: Any) -> int:
    """``--lens-from-markers``: the lens's barrel from the table's own corner markers."""
    import cv2

    from .calibrate import Lens
    from .camera import FrameSource

    if not args.source or not args.lens_out:
        print("tablecam calibrate: --lens-from-markers needs --source and --lens-out", file=sys.stderr)
        return 2
    err = "no frame could be read"
    try:
        img = cv2.imread(args.source) if args.source.lower().endswith((".png", ".jpg", ".jpeg", ".bmp")) else None
        frames = [img] if img is not None else None
        if frames is None:
            with FrameSource(args.source, log=None) as src:
                frames = []
                for f in src:
                    frames.append(f.image)
                    if len(frames) > cfg.calibration.search_frames:
                        break
        for image in frames:
            try:
                lens, plain, fitted = Lens.from_markers(image, cfg.geometry)
            except ValueError as e:
                err = str(e)
                continue
            lens.save(args.lens_out)
            print(json.dumps({**lens.to_dict(), "markers_mm_straight": round(plain, 2),
                              "markers_mm_with_lens": round(fitted, 2)}))
            return 0
    except (OSError, ValueError) as e:
        err = str(e)
    print(f"tablecam calibrate: {err}", file=sys.stderr)
    return 1


def cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from .calibrate import Calibration, marker_sheet
    from .camera import FrameSource

    try:
        cfg = _load_cfg(args.config)
    except ValueError as e:
        print(f"tablecam calibrate: {e}", file=sys.stderr)
        return 2
    did = False
    if args.checkerboard:
        return _calibrate_lens(args)
    if args.lens_from_markers:
        return _lens_from_markers(args, cfg)
    if args.print_markers:
        sheet = marker_sheet(cfg.geometry, args.dpi)
        if not cv2.imwrite(args.print_markers, sheet):
            print(f"tablecam calibrate: cannot write {args.print_markers}", file=sys.stderr)
            return 2
        print(f"wrote {args.print_markers}: print at 100% on A4; markers {cfg.geometry.marker_mm:g} mm, "
              f"ids {list(cfg.geometry.marker_ids)} at NW NE SE SW", file=sys.stderr)
        did = True
    if args.source:
        img = cv2.imread(args.source) if args.source.lower().endswith((".png", ".jpg", ".jpeg", ".bmp")) else None
        frames = [img] if img is not None else None
        cal, err = None, "no frame could be read"
        try:
            if args.points:
                cal = Calibration.from_points(_points(args.points), cfg.geometry)
                if frames is None:
                    with FrameSource(args.source) as src:
                        frames = [next(iter(src)).image]
            else:
                if frames is None:
                    frames = []
                    with FrameSource(args.source) as src:
                        for f in src:
                            frames.append(f.image)
                            try:
                                cal = Calibration.from_aruco(f.image, cfg.geometry)
                                break
                            except ValueError as e:
                                err = str(e)
                            if f.index >= cfg.calibration.search_frames:
                                break
                else:
                    try:
                        cal = Calibration.from_aruco(frames[0], cfg.geometry)
                    except ValueError as e:
                        err = str(e)
        except (OSError, ValueError, StopIteration) as e:
            err = str(e) or "no frame"
        if cal is None:
            print(f"tablecam calibrate: {err}", file=sys.stderr)
            return 1
        print(json.dumps(cal.to_dict()))
        if args.out:
            cal.save(args.out)
        if args.view and frames:
            cv2.imwrite(args.view, cal.top_down(frames[-1], 1.5))
        did = True
    if not did:
        print("tablecam calibrate: give --print-markers PNG and/or --source X", file=sys.stderr)
        return 2
    return 0
