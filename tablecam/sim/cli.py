"""``tablecam sim video``: a rendered table video with its exact ground truth.

(``tablecam camera`` and ``tablecam calibrate``, which read a real table,
are the vision runtime's: :mod:`tablecam.vision.cli`.)  Heavy imports
(OpenCV, numpy) stay inside the command functions so that ``tablecam --help``
stays fast.
"""

from __future__ import annotations

import argparse
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
