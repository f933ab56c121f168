"""End to end with pictures on: the real bot as installed (no ``PAIZHUO_FONT``: the font
comes with the bot), 图片桌面 on, a whole game of 抓特务 over a real OneBot v11 reverse
WebSocket. After every move the group gets the table as a picture beside the text; after
the end message, the settlement (结算) as one picture; the details of the game, where the
end message points (``/对局 1``), come with the deal drawn as a picture on top; every
picture is a phone-sized palette PNG."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import SimPlayer, play_table

GROUP = 30002
TOKEN = "e2e-token"


def image_of(segments: list[dict]) -> Image.Image | None:
    """The PNG of a one-picture message, decoded; ``None`` for any other message."""
    if len(segments) != 1 or segments[0]["type"] != "image":
        return None
    file = str(segments[0]["data"]["file"])
    assert file.startswith("base64://")
    image = Image.open(io.BytesIO(base64.b64decode(file[9:])))
    image.load()
    return image


async def test_pictures_with_the_font_installed_with_the_bot(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                          database_url=f"sqlite+aiosqlite:///{db}",
                          env={"PAIZHUO_IMAGES": "true", "PAIZHUO_FONT": ""}) as bot:
        sim = OneBotSim(self_id=10001)
        players = [SimPlayer(2101 + i, name) for i, name in enumerate(["甲", "乙", "丙"])]
        for p in players:
            sim.add_member(GROUP, p.user_id, p.name, role="admin" if p is players[0] else "member")
            sim.add_friend(p.user_id, p.name)
        await sim.connect(bot.url, TOKEN)
        await sim.group_message(GROUP, players[0].user_id, "/设置 抓特务 图片桌面 开")
        await sim.wait_for_text("图片桌面", kind="group", target=GROUP, timeout=30)
        end = await play_table(sim, GROUP, players, "抓特务 三人", timeout=30)
        assert end is not None and "本局结束" in end.text and end.text.endswith("/对局 1")
        await sim.wait_idle(quiet=0.3)
        mark = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/对局 1")  # where the end points
        replay = await sim.wait_for(lambda s: s.kind == "group" and "【第 1 局】" in s.text,
                                    since=mark, timeout=30)
        log = bot.log_text()
    assert "noto_cjk_sans_otc" in log and "没有找到能显示中文的字体" not in log
    group = [s for s in sim.sent[:mark] if s.kind == "group" and s.target == GROUP]
    pictures = [(i, image_of(s.segments)) for i, s in enumerate(group)]
    pictures = [(i, image) for i, image in pictures if image is not None]
    moves = sum(1 for s in group if " 出 " in s.text or " 过" in s.text)
    ended = next(i for i, s in enumerate(group) if "本局结束" in s.text)
    tables = [image for i, image in pictures if i < ended]
    after = [image for i, image in pictures if i > ended]
    assert moves > 10 and len(tables) >= moves - 1  # a table picture after every move
    assert len(after) == 1  # the settlement only, no details: /对局 1 has them
    details = image_of(replay.segments[:1])  # the deal as cards, on top of the replay
    assert replay.forward and details is not None and "发牌：" in replay.text
    for image in [*tables, *after, details]:
        assert image.format == "PNG" and image.mode == "P" and image.width <= 1000
    assert details.height > max(image.height for image in tables)
