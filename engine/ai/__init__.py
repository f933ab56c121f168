"""Computer players, all in this package: the strategy interface and the simple play
(:mod:`engine.ai.simple`: ``Action``, ``PASS``, ``LowestStrategy``, ``FollowingStrategy``),
手把一's simple play (:mod:`engine.ai.shoubayi`), decisions outside play — bids, burying,
明/暗, tribute returns (:mod:`engine.ai.decisions`) — what a seat may know
(:mod:`engine.ai.view`), hand planning (:mod:`engine.ai.plan`), the 普通 play strategy
(:mod:`engine.ai.strategy`), sound endgames (:mod:`engine.ai.endgame`), the 困难 search
(:mod:`engine.ai.search`) and the levels 简单/普通/困难 (:mod:`engine.ai.levels`)."""
