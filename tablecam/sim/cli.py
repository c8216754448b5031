"""``tablecam sim video``, ``tablecam camera`` and ``tablecam calibrate``.

Heavy imports (OpenCV, numpy) stay inside the command functions so that
``tablecam --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    existing = getattr(sub, "choices", {}) or {}
    if "sim" not in existing:
        s = sub.add_parser("sim", help="simulators (table video)",
                           description="Simulators for tests and demos.")
        ssub = s.add_subparsers(dest="sim_command", metavar="WHAT")
        v = ssub.add_parser(
            "video", help="render a table video of a deal, with its exact ground-truth log",
            description="Render a table video of a deal from an event log (board/deal/call/play/expose) or a random "
                        "deal, with corner markers, hands, tricks turned, lighting changes and hands passing over; "
                        "writes OUT.truth.jsonl (events with the frame times the cards came to rest) and "
                        "OUT.meta.json beside it. --look real (or any of the camera/table options) renders a real "
                        "table: a surface cut from real photos or generated, an oblique wide-angle camera, "
                        "auto-exposure, sleeves and held cards, H.264.")
        v.add_argument("log", nargs="?", help="event log (.jsonl / .pbn / .lin); omit with --random")
        v.add_argument("-o", "--output", required=True, help="video file (.mp4: H.264 where ffmpeg is at hand, "
                                                             "else mp4v; .avi: MJPG)")
        v.add_argument("--random", type=int, metavar="SEED", help="simulate a random bridge deal instead of a log")
        v.add_argument("--auction", action="store_true",
                       help="show the auction: bidding-box cards laid by each seat (with --random: a bridge "
                            "auction is simulated; with a log: its call events)")
        v.add_argument("--tricks", type=int, default=None, help="stop after this many tricks")
        v.add_argument("--expose", type=int, default=0, help="with --random: cards shown face up by accident")
        v.add_argument("--fps", type=float, default=25.0)
        v.add_argument("--deck", default="drawn-sans", help="deck design (tablecam.training.faces.list_decks(), or 'plain')")
        v.add_argument("--seed", type=int, default=None, help="layout, hand passes and noise (default: --random's seed, else 1)")
        v.add_argument("--layout", choices=("zones", "centre", "pile"), default="zones",
                       help="zones: a card in front of each player (bridge); centre: the trick in the middle, "
                            "cards apart; pile: the trick in the middle, cards overlapping")
        v.add_argument("--look", choices=("classic", "real"), default="classic",
                       help="classic: green felt, fixed slight tilt, simple hands (the pipeline tests' look); "
                            "real: everything below switched on with a real table's defaults")
        v.add_argument("--surface", help="table surface: " + ", ".join(_surfaces()))
        v.add_argument("--props", choices=("none", "chips", "mixed"), help="things on the table besides cards")
        v.add_argument("--resolution", choices=("480p", "720p", "1080p", "4k"), help="frame size (default 720p)")
        v.add_argument("--tilt", type=float, metavar="DEG", help="camera angle from vertical, 0-45 (real look)")
        v.add_argument("--yaw", type=float, metavar="DEG", help="side the camera looks from: 0 South, 90 East")
        v.add_argument("--fov", type=float, metavar="DEG", help="horizontal field of view")
        v.add_argument("--k1", type=float, help="radial lens distortion (negative: barrel, wide-angle)")
        v.add_argument("--bitrate", type=int, metavar="KBPS", help="H.264 bitrate (default by resolution)")
        v.add_argument("--trick-end", choices=("row", "turn", "gather"),
                       help="row: flipped and slid to the quitted row; turn: turned face down in place first "
                            "(bridge); gather: swept into the winner's pile (Nordic games)")
        v.add_argument("--no-lighting", action="store_true", help="constant light")
        v.add_argument("--no-hand-passes", action="store_true", help="no extra hands sweeping over the table")
        v.add_argument("--knock-at", type=float, default=None, metavar="SECONDS",
                       help="knock the camera at this time (the view shakes, shifts and turns slightly)")
        v.add_argument("--codec", default=None, help="h264, or an OpenCV FourCC (mp4v, MJPG)")
        v.set_defaults(func=cmd_sim_video)
        s.set_defaults(func=lambda a: (s.print_help(), 2)[1])

    if "camera" not in existing:
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

    if "calibrate" not in existing:
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
        k.add_argument("--lens-out", help="where the lens JSON goes ([lens] file = ... in the camera config)")
        k.set_defaults(func=cmd_calibrate)


def _points(text: str) -> list[list[float]]:
    pts = [[float(v) for v in p.split(",")] for p in text.replace(";", " ").split()]
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise ValueError("--points needs four x,y pairs: NW NE SE SW")
    return pts


def _surfaces() -> tuple[str, ...]:
    from .surfaces import SURFACES

    return SURFACES


def cmd_sim_video(args: argparse.Namespace) -> int:
    from .video import RESOLUTIONS, SimOptions, load_log, random_deal_log, render_video

    seed = args.seed if args.seed is not None else (args.random if args.random is not None else 1)
    game = "bridge" if args.layout == "zones" else "whist"
    if args.random is not None:
        events = random_deal_log(args.random, tricks=args.tricks or 13, exposes=args.expose, auction=args.auction,
                                 game=game)
    elif args.log:
        try:
            events = load_log(args.log)
        except (OSError, ValueError) as e:
            print(f"tablecam sim video: cannot read {args.log}: {e}", file=sys.stderr)
            return 2
    else:
        print("tablecam sim video: give an event log or --random SEED", file=sys.stderr)
        return 2
    if args.surface is not None and args.surface not in _surfaces():
        print(f"tablecam sim video: unknown surface {args.surface!r} (known: {', '.join(_surfaces())})", file=sys.stderr)
        return 2
    if args.tilt is not None and not 0 <= args.tilt <= 60:
        print("tablecam sim video: --tilt is degrees from vertical, 0 to 60", file=sys.stderr)
        return 2
    avi = args.output.lower().endswith(".avi")
    kw = dict(fps=args.fps, deck=args.deck, seed=seed, layout=args.layout, lighting=not args.no_lighting,
              hand_passes=not args.no_hand_passes, max_tricks=args.tricks, bump_at=args.knock_at,
              auction=args.auction)
    given = {"surface": args.surface, "props": args.props, "tilt_deg": args.tilt, "yaw_deg": args.yaw,
             "hfov_deg": args.fov, "k1": args.k1, "bitrate_kbps": args.bitrate, "trick_end": args.trick_end}
    kw.update({k: v for k, v in given.items() if v is not None})
    if args.resolution:
        kw["size"] = RESOLUTIONS[args.resolution]
    real = args.look == "real" or args.tilt is not None
    if real:
        kw.setdefault("codec", "MJPG" if avi else "h264")
        if args.codec:
            kw["codec"] = args.codec
        opt = SimOptions.real(**kw)
    else:
        kw["codec"] = args.codec or ("MJPG" if avi else "h264")
        opt = SimOptions(**kw)
    from ..progress import Progress

    bar: Progress | None = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = Progress("sim video", total, "frames", every=10.0)
        bar.step()

    try:
        truth, meta, scene = render_video(events, args.output, opt, progress=progress)
    except (OSError, ValueError) as e:
        print(f"tablecam sim video: {e}", file=sys.stderr)
        return 2
    n = sum(1 for e in scene.truth if e.type == "play")
    c = sum(1 for e in scene.truth if e.type == "call" and e.ts)
    print(f"wrote {args.output} ({scene.duration:.1f} s, {n} plays{f', {c} calls shown' if c else ''}), "
          f"{truth}, {meta}", file=sys.stderr)
    return 0


def _load_cfg(path: str | None):
    from ..vision.zones import CameraConfig

    return CameraConfig.load(path)


def cmd_camera(args: argparse.Namespace) -> int:
    import time

    from ..vision.calibrate import Calibration
    from ..vision.camera import FrameSource
    from ..vision.fusion import HandBook
    from ..vision.pipeline import CameraPipeline

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
        from .video import load_log

        try:
            for ev in load_log(args.shoe):
                if ev.type in ("board", "deal"):
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

    from ..vision.calibrate import Lens
    from ..vision.camera import FrameSource

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


def cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from ..vision.calibrate import Calibration, marker_sheet
    from ..vision.camera import FrameSource

    try:
        cfg = _load_cfg(args.config)
    except ValueError as e:
        print(f"tablecam calibrate: {e}", file=sys.stderr)
        return 2
    did = False
    if args.checkerboard:
        return _calibrate_lens(args)
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
