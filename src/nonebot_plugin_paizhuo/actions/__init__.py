"""What each command does to the tables: game-independent, chat-shaped (collects the
messages to send), with the table lock held while the state changes and released before
anything is sent. One module per stage; import from the module that owns a name:

* :mod:`.commit` — save before effect: ``run_locked``, ``undo``, ``_commit``, ``says_to_outs``.
* :mod:`.deadlines` — the tables' timers: ``schedule``, ``cancel_timers``, ``resume_timers``.
* :mod:`.seating` — the table's life: open, join, leave, kick, start, continue, end.
* :mod:`.computer_seats` — ``/加机器人``, ``/踢机器人``.
* :mod:`.turns` — playing: moves, private answers, 托管, hints, and what a due timer does.
* :mod:`.automatic` — moves nobody decides: computer players, 托管, 要不起自动过.
* :mod:`.house_rules` — ``/规则`` and ``/设置``.
* :mod:`.announce` — ``/牌桌`` and the posts when a bot account (re)connects.
* :mod:`.basics` — replies, log lines and small table helpers every stage uses.

Layers (each may call those below it): basics and deadlines; automatic; commit;
seating; computer_seats, turns, house_rules; announce. ``deadlines`` calls none of them:
``turns`` installs what a due timer does, so ``accounts`` can arm timers without an
import cycle. This package imports none of its modules: importing one loads only what
it needs.
"""
