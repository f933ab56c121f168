"""The host bot's own plugin: ``/hello`` answers with the names of the host's own ``db``
and ``engine`` modules, so a test sees that they are the host's and not the game's."""

import db
import engine
from nonebot import logger, on_command

logger.info(f"greeter: {db.NAME} {engine.NAME}")
hello = on_command("hello")


@hello.handle()
async def _() -> None:
    await hello.finish(f"你好 {db.NAME} {engine.NAME}")
