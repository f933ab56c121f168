"""Group settings every game shares (timers, the 记牌器), appended to each game's own
schema so that ``/规则`` and ``/设置`` show and change them per game like any other
setting."""

from __future__ import annotations

from paizhuo_engine.settings import Schema, Setting

SHARED: tuple[Setting, ...] = (
    Setting("出牌限时", "turn_seconds", "int", 60,
            "每步出牌的秒数，快到时提醒，超时机器人代打（跟牌过、首出出最小的牌）；0 = 不限时",
            "G-3", low=0, high=600),
    Setting("空桌关闭", "idle_minutes", "int", 10, "等人入座或等 /继续 超过这么多分钟自动关桌",
            "G-2", low=1, high=240),
    Setting("超时代打", "timeout_play", "choice", "电脑",
            "出牌超时时机器人怎么代打：电脑（按电脑难度，和电脑玩家、托管一样）；简单（跟牌就过，首出出最小的单张）",
            "G-3", choices=("电脑", "简单")),
    Setting("电脑难度", "ai_level", "choice", "普通",
            "电脑玩家、托管和超时代打的打法：简单（跟牌就过，首出出最小的）；普通（按牌型规划，能稳赢就走完）；"
            "困难（在普通之上，出牌和电脑的叫分、扣底、明暗都把几种选择在随机补全的牌上各打到底再选）",
            "G-6", choices=("简单", "普通", "困难")),
    Setting("困难用时", "ai_budget_ms", "int", 300,
            "困难电脑每步最多想多少毫秒（超时或机器忙时按普通出）", "G-6", low=50, high=2000),
    Setting("要不起自动过", "auto_pass", "bool", False,
            "轮到的人没有能大过桌面的牌时，机器人立即替他过", "G-3"),
    Setting("图片桌面", "picture_table", "bool", False,
            "每步之后再发一张桌面图片（文字消息照发，便于复制）", ""),
    Setting("上榜局数", "board_min_games", "int", 3, "/排行 只列出本期打满这么多局的人",
            "", low=1, high=100),
    Setting("记牌器", "card_counter", "bool", True,
            "玩家可发 /记牌，私聊查看自己还没见过的牌（由自己的手牌和已出的牌算出）", "G-4"),
)
"""Shared settings (timers, pictures, the board, the 记牌器)."""


def with_shared(schema: Schema) -> Schema:
    """``schema`` followed by the shared settings."""
    return Schema(schema.game, (*schema.settings, *SHARED), schema.rule)
