"""The other bot's own commands: ``/帮助`` (``/help``) and ``/hello``."""

from __future__ import annotations

from nonebot import on_command
from nonebot.plugin import PluginMetadata

__plugin_meta__ = PluginMetadata(name="hello", description="另一个机器人的命令",
                                 usage="/帮助 /hello", type="application",
                                 supported_adapters={"~onebot.v11"})

HELP_TEXT = "另一个机器人的帮助：/hello 打招呼"
HELLO_TEXT = "你好，我是另一个机器人"

help_cmd = on_command("帮助", aliases={"help"}, priority=10, block=True)
hello_cmd = on_command("hello", priority=10, block=True)


@help_cmd.handle()
async def _help() -> None:
    await help_cmd.finish(HELP_TEXT)


@hello_cmd.handle()
async def _hello() -> None:
    await hello_cmd.finish(HELLO_TEXT)
