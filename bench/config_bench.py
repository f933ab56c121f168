"""Cost of reading the plugin's settings: ``python bench/config_bench.py [--calls 2000]``.

Prints the CPU time per call of NoneBot's ``get_plugin_config(Config)`` (validates the
whole driver config into the plugin's model on every call) and of the plugin's
``plugin_config()`` (read once, then kept; ``src/nonebot_plugin_paizhuo/config.py``). The bot read
the settings on every OneBot call, every command's bare-word check, every re-arm of a
table's timers and every deal.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nonebot  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    calls = parser.parse_args().calls
    nonebot.init(driver="~fastapi", command_start={"/"}, log_level="WARNING")
    from nonebot_plugin_paizhuo.config import Config, plugin_config

    for name, read in (("get_plugin_config(Config)", lambda: nonebot.get_plugin_config(Config)),
                       ("plugin_config()", plugin_config)):
        read()
        start = time.process_time()
        for _ in range(calls):
            read()
        per_call = (time.process_time() - start) / calls
        print(f"{name}: {per_call * 1e6:.1f} µs CPU per call", flush=True)


if __name__ == "__main__":
    main()
