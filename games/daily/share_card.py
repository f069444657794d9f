"""The image card of a shared result: a 1200 x 630 PNG (the size chat apps unfurl), drawn with
Pillow from the share's own lines (`games.daily.sharing.share_lines`), so the image says no
more than the text."""

from __future__ import annotations

import functools
import io
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from games.daily.sharing import SYMBOLS, SharedResult, share_lines

WIDTH, HEIGHT = 1200, 630
_TABLE = (22, 101, 52)  # the page's green table
_INK = (255, 255, 255)
_MUTED = (200, 230, 205)
# The row's squares: none, a few, many cards home in a slice (as SYMBOLS).
_SQUARES = {SYMBOLS[0]: (235, 235, 235), SYMBOLS[1]: (234, 179, 8), SYMBOLS[2]: (34, 197, 94)}
# Debian's DejaVu (fonts-dejavu-core; the Dockerfile installs it) has every letter of our four
# languages; Pillow's own font, the fallback, may lack a few of them.
_FONT_FILES = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
)


@functools.cache
def _font(size: int, *, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = _FONT_FILES[0 if bold else 1]
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def share_card_png(result: SharedResult, *, row: str) -> bytes:
    """The card as PNG bytes: the share's lines, and `row` (the symbols) as coloured squares."""
    image = Image.new("RGB", (WIDTH, HEIGHT), _TABLE)
    draw = ImageDraw.Draw(image)
    title, figures, *rank = share_lines(result)
    draw.text((60, 50), title, font=_font(38, bold=True), fill=_INK)
    draw.text((60, 130), figures, font=_font(56, bold=True), fill=_INK)
    if rank:
        draw.text((60, 225), rank[0], font=_font(44, bold=False), fill=_MUTED)
    size, gap = 64, 14
    left = (WIDTH - len(row) * (size + gap) + gap) // 2
    for i, symbol in enumerate(row):
        x = left + i * (size + gap)
        draw.rounded_rectangle(
            (x, 360, x + size, 360 + size), radius=10, fill=_SQUARES.get(symbol, _MUTED)
        )
    draw.text((60, 540), result.username, font=_font(34, bold=False), fill=_MUTED)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
