"""Computer players, all in this package: the strategy interface and the simple play
(:mod:`paizhuo_engine.ai.simple`: ``Action``, ``PASS``, ``LowestStrategy``, ``FollowingStrategy``),
手把一's simple play (:mod:`paizhuo_engine.ai.shoubayi`), decisions outside play — bids, burying,
明/暗, tribute returns (:mod:`paizhuo_engine.ai.decisions`) — what a seat may know
(:mod:`paizhuo_engine.ai.view`), hand planning (:mod:`paizhuo_engine.ai.plan`), the 普通 play strategy
(:mod:`paizhuo_engine.ai.strategy`), sound endgames (:mod:`paizhuo_engine.ai.endgame`), the 困难 search
(:mod:`paizhuo_engine.ai.search`) and the levels 简单/普通/困难 (:mod:`paizhuo_engine.ai.levels`)."""
