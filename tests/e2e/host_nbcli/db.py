"""The host bot's own ``db`` module (a name the 牌桌 plugin must not take)."""

NAME = "host-db"
