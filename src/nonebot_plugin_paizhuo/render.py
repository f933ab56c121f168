"""Pictures (Pillow): the table after a move (图片桌面), the settlement at the end of a game
(结算), the end-of-game details with every hand as dealt, the /战绩 card with a
points-over-time chart and the /排行 board.

Each drawer takes plain data (a scene: names, card ids, text lines), so it can run in the
drawing thread (``pictures.draw``) without touching a game, and returns a :class:`Picture`:
the PNG bytes and every item it placed (names, cards, texts with their boxes), which is
what the tests read back. Pictures are palette PNGs (one fixed palette, :func:`palette`),
at most :data:`WIDTH` pixels wide, drawn for a phone screen.

The font is found once (:func:`font_path`): ``PAIZHUO_FONT`` when set, else the Noto Sans
CJK font installed with the bot (the ``noto-cjk-sans-otc`` package, SIL OFL 1.1), else
a system font that renders Chinese. Characters the font has no glyph for (an emoji in a
name) are left out rather than drawn as boxes. Red suits (♥ ♦) and 大王 are drawn red.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

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
``fonts-wqy-microhei`` / ``fonts-wqy-zenhei`` / ``fonts-noto-cjk``, macOS, Windows), used
when the packaged font is missing."""

WIDTH = 720
"""Width in pixels of the table and details pictures (a phone shows it full width)."""
MAX_LINES = 80
"""Longest text drawn; longer texts stay text."""

PAPER = (247, 244, 236)
FELT = (30, 98, 74)
FELT_DARK = (22, 72, 54)
PANEL = (250, 249, 244)
PANEL_ACTING = (255, 243, 205)
GOLD = (226, 168, 38)
INK = (32, 32, 32)
MUTED = (118, 116, 108)
RED = (200, 30, 42)
WHITE = (255, 255, 255)
CARD_EDGE = (150, 150, 142)
BACK = (58, 94, 170)
CHIP = (226, 232, 226)
STRIPE = (238, 234, 222)
GRID = (200, 196, 185)
LINE = (40, 110, 190)
BACKGROUND = PAPER


# ---- font --------------------------------------------------------------------------------
def packaged_font() -> str | None:
    """The Noto Sans CJK collection installed with the bot (``noto-cjk-sans-otc``), or
    ``None`` when that package is missing."""
    try:
        import noto_cjk_sans_otc
    except ImportError:
        return None
    path = Path(str(noto_cjk_sans_otc.FONT_PATH))
    return str(path) if path.is_file() else None


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


def find_font(configured: str = "") -> str | None:
    """The font file for pictures: ``configured`` (``PAIZHUO_FONT``) when given, else the
    packaged font, else the first of :data:`FONT_CANDIDATES` that exists, else what
    ``fc-list :lang=zh`` finds; ``None`` when none exists."""
    chosen = configured or packaged_font() or next(
        (p for p in FONT_CANDIDATES if Path(p).is_file()), None) or _fc_list_font()
    return chosen if chosen and Path(chosen).is_file() else None


@functools.cache
def font_path() -> str | None:
    """:func:`find_font` with ``PAIZHUO_FONT`` from the plugin config; ``None`` (pictures
    off, texts only) when there is none. Logged once."""
    from nonebot import logger

    from .config import plugin_config

    chosen = find_font(plugin_config().paizhuo_font)
    if chosen:
        logger.info(f"牌桌: 图片用的字体：{chosen}")
        return chosen
    logger.warning("牌桌: 没有找到能显示中文的字体，图片（/排行、/战绩、/对局 N 的详情、结算、桌面）"
                   "改发文字。重装机器人（pip install -e .）即可带上字体，或用 PAIZHUO_FONT "
                   "指定一个 .ttf / .ttc / .otf 字体文件。")
    return None


def usable() -> bool:
    """Whether pictures can be drawn with a font that renders Chinese."""
    return font_path() is not None


@functools.cache
def _face_index(path: str) -> int:
    """The Simplified Chinese face of a font collection (Noto Sans CJK SC is face 2 of
    ``NotoSansCJK-Regular.ttc``), else the first face."""
    if not path.lower().endswith((".ttc", ".otc")):
        return 0
    for index in range(16):
        try:
            family = ImageFont.truetype(path, 12, index=index).getname()[0] or ""
        except OSError:
            break
        if family.endswith(" SC") or " SC " in family:
            return index
    return 0


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = font_path()
    if path is not None:
        return ImageFont.truetype(path, size, index=_face_index(path),
                                  layout_engine=ImageFont.Layout.BASIC)
    return ImageFont.load_default(size)


_NOTDEF: dict[int, bytes] = {}
_HAS_GLYPH: dict[str, bool] = {}


def _glyph_bytes(font, ch: str) -> bytes:
    image = Image.new("L", (40, 40))
    ImageDraw.Draw(image).text((4, 0), ch, font=font, fill=255)
    return image.tobytes()


def has_glyph(ch: str) -> bool:
    """Whether the picture font draws ``ch`` (rather than its empty box); cached."""
    known = _HAS_GLYPH.get(ch)
    if known is not None:
        return known
    if ch.isspace() or ord(ch) < 0x2000:
        ok = True
    else:
        font = _font(24)
        if 0 not in _NOTDEF:
            _NOTDEF[0] = _glyph_bytes(font, "\U0010fffd")
        ok = _glyph_bytes(font, ch) != _NOTDEF[0]
    _HAS_GLYPH[ch] = ok
    return ok


def drawable(text: str) -> str:
    """``text`` without the characters the font cannot draw (emoji, rare symbols) and
    without control characters."""
    return "".join(ch for ch in text if ch.isprintable() and has_glyph(ch))


# ---- what a picture is -------------------------------------------------------------------
@dataclass(slots=True)
class Placed:
    """One thing drawn: ``kind`` (``title``, ``text``, ``name``, ``card``, ``count``,
    ``badge``, ``label``, ``pass``), its ``value`` (the text as drawn, or a card id) and
    its ``box`` (left, top, right, bottom) in pixels."""

    kind: str
    value: str | int
    box: tuple[int, int, int, int]


@dataclass(slots=True)
class Picture:
    """A drawn picture: ``data`` (PNG bytes), its ``size`` in pixels and every
    :class:`Placed` item, in drawing order."""

    data: bytes
    size: tuple[int, int]
    items: list[Placed]

    def values(self, kind: str) -> list[str | int]:
        """The values of the items of one ``kind``, in drawing order."""
        return [p.value for p in self.items if p.kind == kind]

    def texts(self) -> str:
        """Every text drawn (names, texts, labels…), one per line."""
        return "\n".join(str(p.value) for p in self.items if p.kind != "card")


class Canvas:
    """An RGB image being drawn, with the log of what was placed on it."""

    def __init__(self, width: int, height: int, color: tuple[int, int, int]) -> None:
        self.image = Image.new("RGB", (width, height), color)
        self.draw = ImageDraw.Draw(self.image)
        self.items: list[Placed] = []

    def text(self, xy: tuple[float, float], text: str, size: int,
             color: tuple[int, int, int] = INK, kind: str = "text", bold: bool = False,
             suits: bool = True) -> int:
        """``text`` at ``xy`` (left, top) in runs: after ♥ ♦ (and in 大王) red, when
        ``suits``. Returns the right edge."""
        text = drawable(text)
        font = _font(size)
        x, y = xy
        left = x
        for run, red in (_runs(text) if suits else [(text, False)]):
            self.draw.text((x, y), run, font=font, fill=RED if red else color,
                           stroke_width=1 if bold else 0, stroke_fill=RED if red else color)
            x += text_width(run, size)
        self.items.append(Placed(kind, text, (int(left), int(y), int(x), int(y + size * 1.3))))
        return int(x)

    def card(self, xy: tuple[int, int], card: int, size: str = "play") -> None:
        """One card face (:func:`card_face`) with its top-left corner at ``xy``."""
        sprite = card_face(card, size)
        self.image.paste(sprite, xy, sprite)
        w, h = sprite.size
        self.items.append(Placed("card", card, (xy[0], xy[1], xy[0] + w, xy[1] + h)))

    def cards(self, xy: tuple[int, int], cards: Sequence[int], width: int, size: str = "play",
              step: int | None = None) -> int:
        """``cards`` fanned left to right from ``xy``, overlapping so that they fit in
        ``width`` (each card's corner stays visible as long as it can); returns the right
        edge."""
        if not cards:
            return xy[0]
        w, _ = CARD_SIZES[size]
        step = step or CARD_STEP[size]
        if len(cards) > 1:
            step = max(8, min(step, (width - w) // (len(cards) - 1)))
        x = xy[0]
        for c in cards:
            self.card((x, xy[1]), c, size)
            x += step
        return x - step + w

    def chip(self, xy: tuple[int, int], text: str, size: int, fill: tuple[int, int, int],
             color: tuple[int, int, int] = INK, kind: str = "badge") -> int:
        """``text`` on a rounded label; returns its right edge."""
        text = drawable(text)
        w = text_width(text, size) + size
        h = int(size * 1.45)
        x, y = xy
        self.draw.rounded_rectangle((x, y, x + w, y + h), radius=h // 2, fill=fill)
        self.draw.text((x + size // 2, y + h / 2), text, font=_font(size), fill=color,
                       anchor="lm")
        self.items.append(Placed(kind, text, (x, y, x + w, y + h)))
        return x + w

    def png(self) -> Picture:
        """The picture as a palette PNG (:func:`palette`)."""
        image = self.image.quantize(palette=palette(), dither=Image.Dither.NONE)
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=COMPRESS_LEVEL)
        return Picture(out.getvalue(), self.image.size, self.items)


COMPRESS_LEVEL = 6
"""zlib level of the PNGs."""
RAMPS = (
    (INK, (PAPER, PANEL, PANEL_ACTING, WHITE, STRIPE, CHIP)),
    (RED, (WHITE, PAPER, STRIPE, PANEL, PANEL_ACTING)),
    (WHITE, (FELT_DARK, FELT, GOLD)),
    (MUTED, (PAPER, CHIP, STRIPE)),
    (GOLD, (PANEL, PANEL_ACTING, FELT)),
    (CARD_EDGE, (PANEL, PANEL_ACTING, PAPER, STRIPE, WHITE)),
    (FELT, (PANEL, PANEL_ACTING, PAPER, STRIPE)),
    (LINE, (PAPER,)),
    (GRID, (PAPER,)),
    (BACK, (WHITE,)),
)
"""Each colour drawn over the backgrounds it is drawn on: the anti-aliased edges between
them are in the palette (6 steps each)."""


@functools.cache
def palette() -> Image.Image:
    """The one palette every picture is reduced to: the flat colours of the design and
    the blends of each drawn colour with its backgrounds (:data:`RAMPS`), at most 256."""
    colors: list[tuple[int, int, int]] = []
    for fg, bgs in RAMPS:
        for bg in bgs:
            for step in range(7):
                t = step / 7
                c = tuple(round(b + (f - b) * t) for f, b in zip(fg, bg, strict=True))
                if c not in colors:
                    colors.append(c)  # type: ignore[arg-type]
        if fg not in colors:
            colors.append(fg)
    assert len(colors) <= 256, len(colors)
    flat = [v for c in colors for v in c] + [0] * (3 * (256 - len(colors)))
    image = Image.new("P", (1, 1))
    image.putpalette(flat)
    return image


_WIDTHS: dict[tuple[int, str], float] = {}


def text_width(text: str, size: int) -> int:
    """Width in pixels of ``text`` at ``size`` (character widths cached)."""
    font = _font(size)
    total = 0.0
    for ch in text:
        w = _WIDTHS.get((size, ch))
        if w is None:
            w = _WIDTHS[(size, ch)] = font.getlength(ch)
        total += w
    return int(round(total))


def _runs(text: str) -> list[tuple[str, bool]]:
    """``text`` split into (run, red) parts: a ♥ / ♦ and the card after it are red, and
    so is 大王."""
    parts: list[tuple[str, bool]] = []
    red = False
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        now = red
        if ch in "♥♦":
            now = True
        elif ch in "♠♣ ｜，,；：（）、" or ch.isspace():
            now = False
        if text.startswith("大王", i):
            if i > start:
                parts.append((text[start:i], red))
            parts.append(("大王", True))
            i += 2
            start = i
            red = False
            continue
        if now != red and i > start:
            parts.append((text[start:i], red))
            start = i
        red = now
        i += 1
    if start < len(text):
        parts.append((text[start:], red))
    return parts


def wrap(text: str, size: int, width: int) -> list[str]:
    """``text`` broken into lines no wider than ``width`` pixels, at a space or a
    Chinese comma when one is near, else between any two characters."""
    text = drawable(text)
    lines: list[str] = []
    while text:
        if text_width(text, size) <= width:
            lines.append(text)
            break
        cut = 1
        while cut < len(text) and text_width(text[:cut + 1], size) <= width:
            cut += 1
        soft = max(text.rfind(" ", 0, cut), text.rfind("，", 0, cut) + 1, text.rfind("；", 0, cut) + 1)
        if soft > cut // 2:
            cut = soft
        lines.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    return lines or [""]


# ---- cards -------------------------------------------------------------------------------
CARD_SIZES = {"play": (50, 70), "hand": (48, 67)}
"""Card face sizes in pixels: a play on the table, a hand in the end-of-game details."""
CARD_STEP = {"play": 28, "hand": 38}
"""How far the next card of a fan starts, at most (its corner stays readable)."""
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS = "♠♥♣♦"


@functools.cache
def card_face(card: int, size: str = "play") -> Image.Image:
    """The RGBA face of card id ``card`` (0..51 ``rank * 4 + suit``, 52 小王, 53 大王):
    a white rounded card with the rank and suit in its top-left corner and a large suit
    at its bottom right; jokers read 小王 / 大王 down the corner, 大王 red."""
    w, h = CARD_SIZES[size]
    sprite = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(sprite)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=max(4, w // 8), fill=WHITE,
                           outline=CARD_EDGE, width=1)
    corner = int(w * 0.40)
    if card >= 52:
        color = RED if card == 53 else INK
        label = "大王" if card == 53 else "小王"
        font = _font(int(w * 0.34))
        for i, ch in enumerate(label):
            draw.text((4, 2 + i * int(w * 0.36)), ch, font=font, fill=color)
        big = _font(int(w * 0.5))
        draw.text((w - int(w * 0.52) - 3, h - int(w * 0.62) - 3), "★", font=big, fill=color)
        return sprite
    rank, suit = RANKS[card // 4], SUITS[card % 4]
    color = RED if card % 4 in (1, 3) else INK
    font = _font(corner if rank != "10" else int(corner * 0.86))
    x = 3 if rank != "10" else 1
    draw.text((x, 1), rank, font=font, fill=color, stroke_width=0)
    suit_font = _font(int(w * 0.34))
    draw.text((3, int(corner * 1.15)), suit, font=suit_font, fill=color)
    big = _font(int(w * 0.56))
    draw.text((w - int(w * 0.56) - 4, h - int(w * 0.72) - 4), suit, font=big, fill=color)
    return sprite


@functools.cache
def card_back(height: int) -> Image.Image:
    """A small card back (blue, white border), for a card count."""
    w = int(height * 0.72)
    sprite = Image.new("RGBA", (w, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(sprite)
    draw.rounded_rectangle((0, 0, w - 1, height - 1), radius=3, fill=WHITE, outline=CARD_EDGE)
    draw.rounded_rectangle((2, 2, w - 3, height - 3), radius=2, fill=BACK)
    for y in range(5, height - 4, 4):
        draw.line((4, y, w - 5, y), fill=(86, 124, 196))
    return sprite


# ---- the table (图片桌面) ---------------------------------------------------------------
@dataclass(slots=True)
class MoveView:
    """A seat's move in the trick: ``cards`` in reading order (empty: 过), the type
    ``label`` (``连对``), whether it is the play to beat (``beat``) and whether it belongs
    to the trick just won (``done``: drawn faded)."""

    cards: list[int]
    label: str = ""
    beat: bool = False
    done: bool = False


@dataclass(slots=True)
class SeatPanel:
    """One seat on the table picture: ``number`` (1-based), ``name``, ``badges`` (庄,
    挖坑者 3 分, 明特务, 第 1 名…), ``count`` (cards left; ``None`` where the rules hide it),
    ``move`` in the trick, whether it ``acting``, and an ``open_hand`` (明牌)."""

    number: int
    name: str
    badges: list[str] = field(default_factory=list)
    count: int | None = None
    move: MoveView | None = None
    acting: bool = False
    open_hand: list[int] = field(default_factory=list)
    low: bool = False


@dataclass(slots=True)
class TableView:
    """The table picture's content: ``title`` (``【抓特务】4 人局``), the ``seats`` in seat
    order and the ``footer`` lines (who acts and the play to beat, names written out)."""

    title: str
    seats: list[SeatPanel]
    footer: list[str] = field(default_factory=list)


PAD = 16
PANEL_W = (WIDTH - 3 * PAD) // 2


def ring_slots(n: int) -> list[tuple[int, str]]:
    """Where each seat sits, clockwise in seat order: ``(row, column)`` with column
    ``L`` / ``R`` / ``C`` (the top middle, for an odd number of seats)."""
    if n % 2:
        rows = (n - 1) // 2
        return [(0, "C")] + [(r, "R") for r in range(1, rows + 1)] + \
            [(r, "L") for r in range(rows, 0, -1)]
    rows = n // 2
    return [(0, "L")] + [(r, "R") for r in range(rows)] + [(r, "L") for r in range(rows - 1, 0, -1)]


NAME_ROW = 44
BADGE_ROW = 34


def _panel_height(seat: SeatPanel, cards_row: bool) -> int:
    h = 12 + NAME_ROW + (CARD_SIZES["play"][1] + 14 if cards_row else 0)
    if seat.badges or seat.acting:
        h += BADGE_ROW
    if seat.open_hand:
        h += CARD_SIZES["hand"][1] + 10
    return h


def draw_table(view: TableView) -> Picture:
    """The table picture: the seats around a green table (clockwise in seat order), each
    with its name, badges, card count where shown and its move in this trick as cards;
    the play to beat outlined in gold, the seat to act highlighted; below, who acts."""
    slots = ring_slots(len(view.seats))
    rows = max(r for r, _ in slots) + 1
    row_h = [0] * rows
    cards_row = any(seat.move or seat.open_hand for seat in view.seats)  # none while bidding
    for seat, (r, _) in zip(view.seats, slots, strict=True):
        row_h[r] = max(row_h[r], _panel_height(seat, cards_row))
    head = 60
    footer_lines = [line for text in view.footer for line in wrap(text, 24, WIDTH - 2 * PAD - 8)]
    foot = 20 + 34 * len(footer_lines) if footer_lines else 0
    height = head + sum(row_h) + PAD * (rows + 1) + foot
    canvas = Canvas(WIDTH, height, FELT)
    draw = canvas.draw
    draw.rectangle((0, 0, WIDTH, head), fill=FELT_DARK)
    canvas.text((PAD, 12), view.title, 30, WHITE, kind="title")
    y = head + PAD
    tops = []
    for r in range(rows):
        tops.append(y)
        y += row_h[r] + PAD
    for seat, (r, col) in zip(view.seats, slots, strict=True):
        x = {"L": PAD, "R": 2 * PAD + PANEL_W, "C": (WIDTH - PANEL_W) // 2}[col]
        _draw_panel(canvas, seat, x, tops[r], row_h[r])
    if footer_lines:
        fy = height - foot
        draw.rectangle((0, fy, WIDTH, height), fill=PAPER)
        fy += 12
        for line in footer_lines:
            canvas.text((PAD + 4, fy), line, 24, INK, kind="footer")
            fy += 34
    return canvas.png()


def _draw_panel(canvas: Canvas, seat: SeatPanel, x: int, y: int, h: int) -> None:
    draw = canvas.draw
    fill = PANEL_ACTING if seat.acting else PANEL
    draw.rounded_rectangle((x, y, x + PANEL_W, y + h), radius=14, fill=fill,
                           outline=GOLD if seat.acting else None, width=4 if seat.acting else 0)
    inner, right = x + 12, x + PANEL_W - 12
    top = y + 12
    # the seat number, the name and, on the right, the count
    draw.ellipse((inner, top + 2, inner + 30, top + 32), fill=FELT)
    number = str(seat.number)
    draw.text((inner + 15, top + 17), number, font=_font(20), fill=WHITE, anchor="mm")
    count_w = 0
    if seat.count is not None:
        back = card_back(28)
        label = str(seat.count)
        count_w = back.width + 6 + text_width(label, 24)
        cx = right - count_w
        canvas.image.paste(back, (cx, top + 3), back)
        canvas.text((cx + back.width + 6, top), label, 24, RED if seat.low else INK,
                    kind="count")
    name_x = inner + 40
    name = _fit(seat.name or f"{seat.number}号位", 26, right - count_w - 10 - name_x)
    canvas.text((name_x, top - 1), name, 26, INK, kind="name", bold=True, suits=False)
    row_y = top + NAME_ROW
    badges = [*seat.badges] + (["轮到"] if seat.acting else [])
    if badges:
        bx = inner
        for badge in badges:
            color, chip = INK, CHIP
            if badge == "轮到":
                color, chip = WHITE, GOLD
            elif badge.startswith("第"):
                color, chip = WHITE, FELT
            bx = canvas.chip((bx, row_y - 4), badge, 18, chip, color) + 6
        row_y += BADGE_ROW
    move = seat.move
    if move is not None:
        if not move.cards:
            canvas.chip((inner, row_y + 16), "过", 24, CHIP, MUTED, kind="pass")
        else:
            label_w = text_width(move.label, 18) + 18 if move.label else 0
            room = right - inner - (label_w + 10 if label_w else 0)
            end = canvas.cards((inner, row_y), move.cards, room, "play")
            if move.beat:
                draw.rounded_rectangle((inner - 4, row_y - 4, end + 4,
                                        row_y + CARD_SIZES["play"][1] + 4),
                                       radius=8, outline=GOLD, width=3)
            if move.label:
                canvas.chip((end + 10, row_y + 22), move.label, 18,
                            GOLD if move.beat else CHIP, WHITE if move.beat else INK,
                            kind="label")
        if move.done:
            box = (inner - 5, row_y - 5, right, row_y + CARD_SIZES["play"][1] + 5)
            region = canvas.image.crop(box)
            canvas.image.paste(Image.blend(region, Image.new("RGB", region.size, fill), 0.5),
                               box[:2])
    if seat.open_hand:
        hy = row_y + CARD_SIZES["play"][1] + 10
        canvas.cards((inner, hy), seat.open_hand, right - inner, "hand", step=22)


def _fit(text: str, size: int, width: int) -> str:
    """``text`` cut with … to fit ``width`` pixels."""
    text = drawable(text)
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


# ---- the end-of-game details -------------------------------------------------------------
@dataclass(slots=True)
class HandRow:
    """One seat's hand as dealt in the details: ``head`` (``1. 甲``), ``role`` (平民,
    挖坑者…, may be empty) and the ``cards`` in the game's rank order."""

    head: str
    role: str
    cards: list[int]


@dataclass(slots=True)
class DetailsView:
    """The end-of-game details: ``title``, the result ``lines`` (as the end message), the
    ``hands`` as dealt, then ``notes`` (dealer, spy cards, tribute, bottom) and the
    ``footer`` (how to see every move)."""

    title: str
    lines: list[str]
    hands: list[HandRow]
    notes: list[str] = field(default_factory=list)
    footer: str = ""


def draw_details(view: DetailsView) -> Picture:
    """The end-of-game details picture: the result lines, then every hand as dealt drawn
    as cards under its player's name and role, then the notes."""
    text_w = WIDTH - 2 * PAD - 8
    lines = [line for text in view.lines for line in wrap(text, 24, text_w)]
    notes = [line for text in view.notes for line in wrap(text, 22, text_w)]
    card_h = CARD_SIZES["hand"][1]
    hand_h = 36 + card_h + 14
    head = 64
    height = (head + 14 + 34 * len(lines) + 16 + 34 + hand_h * len(view.hands) + 8
              + 30 * len(notes) + (40 if view.footer else 0) + PAD)
    canvas = Canvas(WIDTH, height, PAPER)
    draw = canvas.draw
    draw.rectangle((0, 0, WIDTH, head), fill=FELT_DARK)
    canvas.text((PAD, 13), view.title, 30, WHITE, kind="title")
    y = head + 14
    for line in lines:
        canvas.text((PAD + 4, y), line, 24, INK)
        y += 34
    y += 16
    canvas.text((PAD + 4, y), "发牌", 22, MUTED, kind="section")
    y += 34
    for i, row in enumerate(view.hands):
        if i % 2 == 0:
            draw.rectangle((0, y - 4, WIDTH, y + hand_h - 6), fill=STRIPE)
        end = canvas.text((PAD + 4, y), row.head, 24, INK, kind="name", bold=True, suits=False)
        if row.role:
            canvas.chip((end + 10, y + 1), row.role, 18, FELT if row.role in SIDE_ROLES else CHIP,
                        WHITE if row.role in SIDE_ROLES else INK)
        canvas.text((WIDTH - PAD - 4 - text_width(f"{len(row.cards)} 张", 20), y + 4),
                    f"{len(row.cards)} 张", 20, MUTED, kind="count")
        canvas.cards((PAD + 4, y + 36), row.cards, WIDTH - 2 * PAD - 8, "hand")
        y += hand_h
    y += 8
    return _notes_and_footer(canvas, y, notes, view.footer)


SIDE_ROLES = ("特务", "明特务", "明牌特务", "挖坑者")
"""Roles drawn on a dark chip (the side that plays alone)."""


# ---- the settlement at the end of a game (结算) -------------------------------------------
@dataclass(slots=True)
class SettleRow:
    """One seat in the settlement: ``head`` (``1. 甲``), ``role`` (特务, 挖坑者…, may be
    empty), ``place`` (``第 1 名``, empty when not out), ``result`` (胜 / 平 / 负, 不赔),
    ``points``, the ``cards`` it held at the end (in the game's rank order) and a short
    ``note`` of why it scored so (``对 乙，明特务 ×2``, ``把一不赔``)."""

    head: str
    role: str
    place: str
    result: str
    points: int
    cards: list[int] = field(default_factory=list)
    note: str = ""


@dataclass(slots=True)
class SettlementView:
    """The settlement picture: ``title`` (``【抓特务】第 3 局 结算``), the ``headline``
    (``平民胜！``), one row per seat in seat order, ``notes`` (multipliers, the bottom, a
    draw's reason) and the ``footer`` (where every move is)."""

    title: str
    headline: str
    rows: list[SettleRow]
    notes: list[str] = field(default_factory=list)
    footer: str = ""


def draw_settlement(view: SettlementView) -> Picture:
    """The settlement picture: the result, then per seat its name, role, place, result and
    points (green won, red lost), the cards it still held drawn as cards, and why it scored
    so; then the notes."""
    text_w = WIDTH - 2 * PAD - 8
    notes = [line for text in view.notes for line in wrap(text, 22, text_w)]
    card_h = CARD_SIZES["hand"][1]
    heights = [44 + (card_h + 10 if row.cards else 0) + (30 if row.note else 0) + 10
               for row in view.rows]
    head = 64
    height = (head + 64 + sum(heights) + 12 + 30 * len(notes) + (40 if view.footer else 0) + PAD)
    canvas = Canvas(WIDTH, height, PAPER)
    draw = canvas.draw
    draw.rectangle((0, 0, WIDTH, head), fill=FELT_DARK)
    canvas.text((PAD, 13), view.title, 30, WHITE, kind="title")
    canvas.text((PAD + 4, head + 12), view.headline, 34, INK, kind="headline", bold=True)
    y = head + 64
    for i, (row, h) in enumerate(zip(view.rows, heights, strict=True)):
        if i % 2 == 0:
            draw.rectangle((0, y - 4, WIDTH, y + h - 6), fill=STRIPE)
        points = f"{row.points:+d}" if row.points else "0"
        color = FELT if row.points > 0 else RED if row.points < 0 else MUTED
        pw = text_width(points, 32)
        canvas.text((WIDTH - PAD - 4 - pw, y - 2), points, 32, color, kind="points", bold=True,
                    suits=False)
        x = canvas.text((PAD + 4, y), _fit(row.head, 26, 300), 26, INK, kind="name", bold=True,
                        suits=False)
        for chip, fill, ink in ((row.role, FELT if row.role in SIDE_ROLES else CHIP,
                                 WHITE if row.role in SIDE_ROLES else INK),
                                (row.place, CHIP, INK),
                                (row.result, FELT if row.result == "胜" else CHIP,
                                 WHITE if row.result == "胜" else INK)):
            if chip and x < WIDTH - PAD - pw - 80:
                x = canvas.chip((x + 10, y + 3), chip, 18, fill, ink) + 0
        ry = y + 44
        if row.cards:
            left = f"剩 {len(row.cards)} 张"
            lw = text_width(left, 20)
            canvas.cards((PAD + 4, ry), row.cards, WIDTH - 2 * PAD - 24 - lw, "hand")
            canvas.text((WIDTH - PAD - 4 - lw, ry + card_h // 2 - 12), left, 20, MUTED, kind="count")
            ry += card_h + 10
        if row.note:
            canvas.text((PAD + 4, ry), _fit(row.note, 22, text_w), 22, MUTED, kind="note")
        y += h
    y += 12
    return _notes_and_footer(canvas, y, notes, view.footer)


# ---- the /排行 board and the /战绩 card --------------------------------------------------
def card(title: str, lines: Sequence[str], chart: Sequence[int] | None = None,
         chart_title: str = "积分走势") -> Picture:
    """A text card: ``title`` on a green band, then ``lines`` on alternating stripes,
    then (optional) a line chart of ``chart`` (cumulative points, oldest first). Raises
    ``ValueError`` for more than :data:`MAX_LINES` lines."""
    if len(lines) > MAX_LINES:
        raise ValueError("too many lines for a picture")
    pad, step, size = 24, 36, 24
    widest = max([text_width(drawable(title), 30)] + [text_width(drawable(s), size) for s in lines]
                 + [420])
    width = min(WIDTH, widest + 2 * pad)
    body = [part for line in lines for part in wrap(line, size, width - 2 * pad)]
    chart_h = 200 if chart and len(chart) >= 2 else 0
    head = 64
    height = head + 12 + step * len(body) + (chart_h + 40 if chart_h else 0) + pad
    canvas = Canvas(width, height, PAPER)
    canvas.draw.rectangle((0, 0, width, head), fill=FELT_DARK)
    canvas.text((pad, 13), _fit(title, 30, width - 2 * pad), 30, WHITE, kind="title")
    y = head + 12
    for i, line in enumerate(body):
        if i % 2:
            canvas.draw.rectangle((0, y - 3, width, y + step - 3), fill=STRIPE)
        canvas.text((pad, y), line, size, INK)
        y += step
    if chart_h and chart:
        y += 16
        canvas.text((pad, y), chart_title, 18, MUTED, kind="section")
        _chart(canvas.draw, (pad, y + 26, width - pad, y + 26 + chart_h - 30), list(chart),
               _font(16))
    return canvas.png()


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


def text_card(text: str, chart: Sequence[int] | None = None) -> Picture:
    """:func:`card` of a text whose first line is its title."""
    lines = text.splitlines() or [""]
    return card(lines[0], lines[1:], chart)


def _notes_and_footer(canvas: Canvas, y: int, notes: list[str], footer: str) -> bytes:
    """Draw the wrapped ``notes`` from ``y`` down, then ``footer`` (if any); the PNG."""
    for line in notes:
        canvas.text((PAD + 4, y), line, 22, INK)
        y += 30
    if footer:
        canvas.text((PAD + 4, y + 6), footer, 22, MUTED, kind="footer")
    return canvas.png()
