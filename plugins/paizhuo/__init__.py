"""牌桌 plugin (placeholder while the chat layer is built)."""

from nonebot.plugin import PluginMetadata

__plugin_meta__ = PluginMetadata(name="牌桌", description="抓特务 / 挖坑 / 手把一", usage="/帮助")
