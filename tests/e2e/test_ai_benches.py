"""The computer player's benchmark scripts run at their smallest size, to prove they still
work (their figures go to docs/ai.md, not to assertions)."""

from __future__ import annotations

import re

from bench_support import ROOT, run


def test_endgame_check_smallest_size() -> None:
    out = run("bench/endgame_check.py", "--games", "2", "--only", "挖坑 标准", timeout=300)
    row = next(line for line in out.splitlines() if line.startswith("| 挖坑 标准 |"))
    assert "/ 2 (" in row


def test_tournament_hard_smallest_size() -> None:
    out = run("bench/tournament.py", "--deals", "1", "--jobs", "1", "--hero", "困难",
              "--field", "普通", "--samples", "1", "--games", "挖坑 标准", "手把一 2 人",
              timeout=300)
    lines = out.splitlines()
    for game in ("挖坑 标准", "手把一 2 人"):  # 挖坑: its bids and burial searched too
        assert any(line.startswith(f"| {game} | 普通 |") for line in lines)


def test_hard_budget_smallest_size() -> None:
    out = run("bench/hard_budget.py", "--games", "1", "--budget-ms", "30", "--only", "挖坑 标准",
              timeout=300)
    assert any(line.startswith("| 挖坑 标准 |") for line in out.splitlines())


def test_hard_budget_before_play_smallest_size() -> None:
    out = run("bench/hard_budget.py", "--setup", "--games", "1", "--budget-ms", "30",
              "--only", "挖坑 标准", "抓特务 4 人", timeout=300)
    lines = out.splitlines()
    assert any(line.startswith("| 挖坑 标准 |") for line in lines)
    assert "budget 60 ms (2 × 30" in out


def test_ai_load_smallest_size() -> None:
    out = run("bench/ai_load.py", "--tables", "2", "--seconds", "2", "--delay", "0.2", timeout=300)
    assert "decision time: p50" in out and "event-loop stalls" in out


def test_search_cpu_smallest_size_against_itself() -> None:
    """Compared with its own checkout, the same positions give the same decisions."""
    out = run("bench/search_cpu.py", "--games", "1", "--samples", "2", "--rounds", "1",
              "--only", "手把一 2 人", "--compare", str(ROOT), timeout=300)
    row = next(line for line in out.splitlines() if line.startswith("| 手把一 2 人 |"))
    assert row.rstrip().endswith("| 是 |")


def test_search_tries_smallest_size() -> None:
    out = run("bench/search_tries.py", "--try", "lead-evidence", "--game", "手把一 2 人",
              "--seeds", "0", "--samples", "2", "--jobs", "1", timeout=300)
    assert "shipped (2 samples): 困难 − 普通 " in out
    assert "lead-evidence (2 samples): 困难 − 普通 " in out
    assert "paired (lead-evidence − shipped, 困难's points): " in out


def test_search_tries_lead_match_smallest_size() -> None:
    out = run("bench/search_tries.py", "--lead-match", "1", "--game", "手把一 2 人", timeout=300)
    line = next(x for x in out.splitlines() if x.startswith("手把一 2 人, 1 deals of 普通"))
    seen = [int(n) for n in re.findall(r"\d+", line.split(":", 1)[1])]
    assert seen[0] + seen[2] + seen[3] == seen[1] > 0  # same + same type + other = all leads


def test_move_scan_smallest_size() -> None:
    out = run("bench/move_scan.py", "--games", "2", "--levels", "普通", "--only", "抓特务 4 人",
              "挖坑 标准", "--jobs", "1", timeout=300)
    lines = out.splitlines()
    for game in ("抓特务 4 人", "挖坑 标准"):
        assert any(line.startswith(f"| {game} | 普通 |") for line in lines)
    assert any(line.startswith("| 普通 | ") for line in lines)  # 挖坑's burials by bid


def test_pimc_baseline_smallest_size(tmp_path) -> None:
    """The baseline's game is played once and cached: a second run plays only 困难's."""
    cache = tmp_path / "cache.jsonl"
    args = ("bench/pimc_baseline.py", "--games", "手把一 2 人", "--deals", "1", "--jobs", "1",
            "--samples", "1", "--cache", str(cache))
    out = run(*args, timeout=300)
    assert any(line.startswith("| 手把一 2 人 | 1 | ") for line in out.splitlines())
    assert len(cache.read_text(encoding="utf-8").splitlines()) == 2  # one game per seat
    again = run(*args, timeout=300)
    assert len(cache.read_text(encoding="utf-8").splitlines()) == 2
    assert ", 2 games)" in again
