"""Reading a photograph from disk, and saying when it is cut short.

A JPEG copied half-way (a phone still writing it, a transfer broken off)
decodes in OpenCV without an error: the rows past the cut come out grey
and libjpeg says "Premature end of JPEG file" only on stderr.  Cards in
the lost part are simply not seen, so ``tablecam detect`` would report a
short list of cards as if it were the whole table.  An archivist or a
director must be told the picture is incomplete; the cards read in the
part that is there still stand.  (A PNG cut short does not decode at
all, and is reported as unreadable.)
"""

from __future__ import annotations

from pathlib import Path

JPEG_START = b"\xff\xd8"
JPEG_END = b"\xff\xd9"


def ends_with_jpeg_end(tail: bytes) -> bool:
    """Whether the last bytes of a JPEG file are its end-of-image marker
    (zero padding after it allowed).  In the compressed data a 0xFF byte
    is followed by 0x00 or a restart marker (D0-D7), so FF D9 is the end.

    >>> ends_with_jpeg_end(b"...\\xff\\xd9")
    True
    >>> ends_with_jpeg_end(b"...\\xff\\xd9\\x00\\x00")
    True
    >>> ends_with_jpeg_end(b"...\\x12\\xff\\x00\\x34")
    False
    """
    return tail.rstrip(b"\x00").endswith(JPEG_END)


def jpeg_cut_short(path: str | Path) -> bool:
    """Whether ``path`` is a JPEG whose compressed data ends early.

    The quick look at the file's last bytes settles nearly every file; a
    file with data after its end marker (some cameras append a trailer)
    is decoded at an eighth of its size by Pillow, which does notice a
    cut (30-45 ms for a 12-megapixel photo, 0.02 ms for the quick look).
    Not a JPEG: False."""
    p = Path(path)
    with p.open("rb") as f:
        if f.read(2) != JPEG_START:
            return False
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - 64))
        if ends_with_jpeg_end(f.read()):
            return False
    from PIL import Image

    try:
        with Image.open(p) as im:
            im.draft("RGB", (max(1, im.size[0] // 8), max(1, im.size[1] // 8)))
            im.load()
    except OSError as e:
        return "truncated" in str(e)
    except Exception:  # a picture Pillow refuses (a 200-megapixel panorama): OpenCV read it, no word on a cut
        return False
    return False


MAX_PIXELS = 100_000_000
"""The largest picture read (100 megapixels, 300 MB decoded).  A phone's photo
has 12-50; the size is read from the file's header before anything is
decoded, because a 1.2 MB PNG can say 20000 x 20000 and take 2.4 GB."""


def pixel_size(path: str | Path) -> tuple[int, int | None] | None:
    """``(width, height)`` from the file's header (nothing decoded), or None
    if Pillow cannot tell (a format it does not know).  Past Pillow's own
    bomb limit Pillow says only the pixel count: ``(pixels, None)``."""
    import re
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                return im.size
    except Image.DecompressionBombError as e:   # "Image size (400000000 pixels) exceeds limit of ..."
        m = re.search(r"\((\d+) pixels\)", str(e))
        return (int(m.group(1)), None) if m else None
    except Exception:
        return None


def read_photo(path: str | Path):
    """``(image, warning)``: the picture as OpenCV BGR, and a warning when
    it decoded only in part (None otherwise).  Raises ValueError with the
    reason when nothing can be read ("no such file", "not a readable
    image file", "picture too large")."""
    import cv2

    p = Path(path)
    size = pixel_size(p) if p.is_file() else None
    if size is not None and size[0] * (size[1] or 1) > MAX_PIXELS:
        said = f"{size[0]} x {size[1]}" if size[1] else f"{size[0]}"
        raise ValueError(f"picture too large: {said} pixels (at most {MAX_PIXELS // 1_000_000} megapixels are read)")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR) if p.is_file() else None
    if img is None:
        raise ValueError("not a readable image file" if p.exists() else "no such file")
    warning = "image file cut short: decoded in part, cards in the missing part are not seen" \
        if jpeg_cut_short(p) else None
    return img, warning


__all__ = ["MAX_PIXELS", "ends_with_jpeg_end", "jpeg_cut_short", "pixel_size", "read_photo"]
