"""The host bot's own ``engine`` module (a name the 牌桌 plugin must not take)."""

NAME = "host-engine"
