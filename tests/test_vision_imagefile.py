"""A photograph cut short is read in part and said to be; a whole one is not."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablecam.vision.imagefile import jpeg_cut_short, read_photo  # noqa: E402


def _jpeg(tmp_path, name="photo.jpg", size=(1600, 1200)):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (size[1] // 8, size[0] // 8, 3), np.uint8)
    img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)  # detail in every row, as a photo has
    path = tmp_path / name
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path


def test_a_whole_jpeg_is_not_cut_short(tmp_path):
    path = _jpeg(tmp_path)
    img, warning = read_photo(path)
    assert img.shape == (1200, 1600, 3) and warning is None
    assert not jpeg_cut_short(path)


def test_a_jpeg_cut_short_is_read_in_part_with_a_warning(tmp_path):
    """OpenCV decodes the part that is there (grey below the cut) and says
    so only on stderr; ``read_photo`` returns the picture and a warning."""
    data = _jpeg(tmp_path).read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) * 2 // 3])
    img, warning = read_photo(cut)
    assert img.shape == (1200, 1600, 3)
    assert warning is not None and "cut short" in warning
    assert jpeg_cut_short(cut)


def test_a_jpeg_with_a_trailer_after_its_end_is_whole(tmp_path):
    """Some cameras append data after the end-of-image marker: the quick
    look at the last bytes misses the marker, Pillow's decode settles it."""
    path = _jpeg(tmp_path)
    path.write_bytes(path.read_bytes() + b"SEFH" + bytes(range(256)) * 4)
    assert not jpeg_cut_short(path)
    assert read_photo(path)[1] is None


def test_a_png_cut_short_is_unreadable_and_other_files_are_not_jpegs(tmp_path):
    png = tmp_path / "cut.png"
    cv2.imwrite(str(png), np.full((400, 400, 3), 90, np.uint8))
    png.write_bytes(png.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable image file"):
        read_photo(png)
    assert not jpeg_cut_short(png)
    with pytest.raises(ValueError, match="no such file"):
        read_photo(tmp_path / "missing.jpg")
    with pytest.raises(ValueError, match="not a readable image file"):
        read_photo(tmp_path)


def test_a_jpeg_pillow_refuses_is_read_without_a_warning(tmp_path, monkeypatch):
    """Pillow refuses pictures over its pixel limit (a decompression-bomb
    guard) where OpenCV reads them: the check then says nothing about a
    cut rather than making the picture an error."""
    from PIL import Image

    path = _jpeg(tmp_path)
    path.write_bytes(path.read_bytes() + b"trailer")  # the quick look cannot settle it
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    assert not jpeg_cut_short(path)
    assert read_photo(path)[1] is None
