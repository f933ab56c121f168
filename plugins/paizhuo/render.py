"""Pictures (Pillow): the /排行 board, the /战绩 card with a points-over-time chart, the
end-of-game summary with every hand as dealt, and the table after a move (图片桌面).

Every picture is a PNG drawn from the same lines the text version shows, so the text is
always there as the fallback: when no font that renders Chinese is found at start-up
(one log line says so and how to install one), when drawing fails, or when the OneBot
implementation refuses the image. Red suits (♥ ♦) are drawn red.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from nonebot import logger
from PIL import Image, ImageDraw, ImageFont

from plugins.paizhuo.config import plugin_config

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti Medium.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/simhei.ttf",
)
"""Where fonts that render Chinese and the suit symbols usually are (Debian
``fonts-wqy-microhei`` / ``fonts-wqy-zenhei`` / ``fonts-noto-cjk``, macOS, Windows)."""

BACKGROUND = (250, 248, 240)
INK = (30, 30, 30)
RED = (200, 30, 40)
GRID = (200, 196, 185)
LINE = (40, 110, 190)
MAX_LINES = 80
"""Longest text drawn; longer texts stay text."""


def _fc_list_font() -> str | None:
    if shutil.which("fc-list") is None:
        return None
    try:
        out = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True,
                             timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    paths = sorted(line.split(":")[0].strip() for line in out.splitlines() if line.strip())
    return paths[0] if paths else None


@functools.cache
def font_path() -> str | None:
    """The font file used for pictures: ``PAIZHUO_FONT`` when set, else the first of
    :data:`FONT_CANDIDATES` that exists, else what ``fc-list :lang=zh`` finds; ``None``
    (pictures off, texts only) when there is none. Logged once."""
    chosen = plugin_config().paizhuo_font or next(
        (p for p in FONT_CANDIDATES if Path(p).is_file()), None) or _fc_list_font()
    if chosen and Path(chosen).is_file():
        logger.info(f"牌桌: pictures use the font {chosen}")
        return chosen
    logger.warning("牌桌: no font that renders Chinese was found, so /排行, /战绩 and the "
                   "end-of-game summary are sent as text. Install one (e.g. apt-get install "
                   "fonts-wqy-microhei) or set PAIZHUO_FONT to a .ttf/.ttc file.")
    return None


def usable() -> bool:
    """Whether pictures can be drawn with a font that renders Chinese."""
    return font_path() is not None


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = font_path()
    if path is not None:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def _width(draw: ImageDraw.ImageDraw, text: str, font) -> float:
    return draw.textlength(text, font=font) if text else 0.0


def _draw_line(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, font,
               color: tuple[int, int, int] = INK) -> None:
    """``text`` with each red suit symbol and the card after it in red."""
    x, y = xy
    red = False
    for ch in text:
        if ch in "♥♦":
            red = True
        elif ch in "♠♣ ｜，；：（）" or ch.isspace():
            red = False
        draw.text((x, y), ch, font=font, fill=RED if red else color)
        x += _width(draw, ch, font)


def card(title: str, lines: Sequence[str], chart: Sequence[int] | None = None,
         chart_title: str = "积分走势") -> bytes:
    """A PNG: ``title`` in bold size, then ``lines``, then (optional) a line chart of
    ``chart`` (cumulative points, oldest first). Raises ``ValueError`` for more than
    :data:`MAX_LINES` lines."""
    if len(lines) > MAX_LINES:
        raise ValueError("too many lines for a picture")
    head, body, small = _font(30), _font(22), _font(16)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    pad, step = 24, 32
    width = max([_width(probe, title, head)] + [_width(probe, s, body) for s in lines] + [360])
    width = int(width) + 2 * pad
    chart_h = 200 if chart and len(chart) >= 2 else 0
    height = pad + 44 + step * len(lines) + (chart_h + 40 if chart_h else 0) + pad
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((pad, pad), title, font=head, fill=INK)
    y = pad + 44
    for line in lines:
        _draw_line(draw, (pad, y), line, body)
        y += step
    if chart_h and chart:
        y += 16
        draw.text((pad, y), chart_title, font=small, fill=INK)
        _chart(draw, (pad, y + 22, width - pad, y + 22 + chart_h - 30), list(chart), small)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _chart(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], values: list[int],
           font) -> None:
    left, top, right, bottom = box
    low, high = min([*values, 0]), max([*values, 0])
    span = high - low or 1

    def at(i: int, v: int) -> tuple[float, float]:
        x = left + 40 + (right - left - 40) * i / (len(values) - 1)
        return x, bottom - (bottom - top) * (v - low) / span

    draw.rectangle(box, outline=GRID)
    zero = at(0, 0)[1]
    draw.line([(left + 40, zero), (right, zero)], fill=GRID, width=1)
    draw.text((left + 4, top), f"{high:+d}" if high else "0", font=font, fill=INK)
    draw.text((left + 4, bottom - 18), f"{low:+d}" if low else "0", font=font, fill=INK)
    draw.line([at(i, v) for i, v in enumerate(values)], fill=LINE, width=3)
    x, y = at(len(values) - 1, values[-1])
    draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=LINE)


def text_card(text: str, chart: Sequence[int] | None = None) -> bytes:
    """:func:`card` of a text whose first line is its title."""
    lines = text.splitlines() or [""]
    return card(lines[0], lines[1:], chart)
