"""The benchmark scripts run at their smallest size, to prove they still work (their
figures go to docs/benchmarks.md, not to assertions): the load benchmark against the real bot
and its echo floor (also with table pictures), the CPU per event, the per-move save
benchmark, the pictures benchmark, the group posts per game as the bot sends them and
the announcements with pictures hanging, and the per-move save on PostgreSQL."""

from __future__ import annotations

import re

from bench_support import run


def test_load_benchmark_smallest_size() -> None:
    out = run("bench/load.py", "--tables", "1", "--moves", "6")
    row = next(line for line in out.splitlines() if line.startswith("| 1 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[1]) >= 6  # accepted moves measured
    assert cells[2].endswith("ms") and cells[4].endswith("ms")  # announcement and floor p50
    assert cells[8] == "0"  # no failed move


def test_save_benchmark_smallest_size() -> None:
    out = run("bench/save_bench.py", "--saves", "20", "--tables", "5")
    assert re.search(r"Store\.save_live_text\s+median [\d.]+ ms", out)
    assert "'database is locked': 0" in out


def test_event_cpu_benchmark_smallest_size() -> None:
    out = run("bench/event_cpu.py", "--events", "3", "--gap", "0.01", "--computer-games", "1")
    rows = [line for line in out.splitlines() if line.startswith("| ") and " ms |" in line]
    assert len(rows) == 5 and rows[0].startswith("| echo |")
    assert re.search(r"电脑对局：1 局 挖坑，[1-9]\d* 步，每步 CPU [\d.]+ ms", out)


def test_stages_benchmark_smallest_size() -> None:
    out = run("bench/stages.py", "--tables", "1", "--moves", "20", "--think", "0.05",
              "--loop", "asyncio")
    total = next(line for line in out.splitlines() if line.startswith("| 合计 |"))
    assert total.count(" ms |") == 2  # both the plays and the echo commands were traced
    assert re.search(r"出牌：从收到帧到调发送，事件循环 p50 \d+ 轮", out)


def test_config_benchmark_smallest_size() -> None:
    out = run("bench/config_bench.py", "--calls", "10")
    assert re.search(r"get_plugin_config\(Config\): [\d.]+ µs CPU per call", out)
    assert re.search(r"plugin_config\(\): [\d.]+ µs CPU per call", out)


def test_pictures_benchmark_smallest_size() -> None:
    out = run("bench/pictures.py", "--rounds", "1")
    rows = [line for line in out.splitlines() if line.startswith("| ") and " | 720×" in line]
    assert len(rows) == 6  # the table and the details of three games
    assert "| 绘图线程（现在） |" in out and "| 事件循环上（以前） |" in out


def test_load_benchmark_with_table_pictures() -> None:
    out = run("bench/load.py", "--tables", "1", "--moves", "6", "--picture-table")
    row = next(line for line in out.splitlines() if line.startswith("| 1 |"))
    assert [c.strip() for c in row.strip("|").split("|")][8] == "0"  # no failed move
    pictures = int(re.search(r"收到图片 (\d+) 张", out).group(1))
    assert pictures >= 6  # a table picture after every move


def test_message_counts_chat_smallest_size() -> None:
    out = run("bench/message_counts.py", "--chat", "--games", "1")
    rows = [line for line in out.splitlines() if line.startswith("| 抓特务") or line.startswith("| 挖坑")
            or line.startswith("| 手把一")]
    assert len(rows) == 10
    one_and_three = [c.strip() for c in rows[0].strip("|").split("|")]
    assert float(one_and_three[1]) > 0 and float(one_and_three[4].split("（")[0]) > 0
    # Group posts per decision of a person (start and end included): all-person tables
    # post once per decision at most.
    for row in rows[3:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[3]) > 0 and float(cells[6].strip("*")) <= 1.0, row


def test_media_hang_benchmark_smallest_size() -> None:
    out = run("bench/media_hang.py", "--moves", "3", "--think", "0.05", "--rate", "20",
              "--modes", "off", "hang", timeout=300)
    rows = {line.split("|")[1].strip(): line for line in out.splitlines()
            if line.startswith("| off |") or line.startswith("| hang |")}
    assert rows.keys() == {"off", "hang"}
    cells = [c.strip() for c in rows["hang"].strip("|").split("|")]
    assert int(cells[1]) >= 3 and cells[2].endswith(" s") and cells[6].endswith("×")
    assert int(cells[8]) >= 1  # a picture call hung


async def test_pg_save_benchmark_smallest_size() -> None:
    from pg_support import fresh_pg_url

    out = run("bench/pg_save.py", "--url", await fresh_pg_url(), "--saves", "10")
    rows = [line for line in out.splitlines() if line.startswith("| ") and " ms |" in line]
    assert [r.split("|")[1].strip() for r in rows] == ["now", "without the token", "before"]
