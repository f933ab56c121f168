"""The host bot's own plugin: ``/hello`` answers with the names of the host's own ``db``
and ``engine`` modules, so a test sees that they are the host's and not the game's; and the
host has its own ``/帮助`` (``/help``), the word the README tells the owner to leave to it."""

import db
import engine
from nonebot import logger, on_command

logger.info(f"greeter: {db.NAME} {engine.NAME}")
hello = on_command("hello")
help_cmd = on_command("帮助", aliases={"help"})


@hello.handle()
async def _() -> None:
    await hello.finish(f"你好 {db.NAME} {engine.NAME}")


@help_cmd.handle()
async def _help() -> None:
    await help_cmd.finish("宿主的帮助")
