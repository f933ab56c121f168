"""Computer players: what a seat may know (:mod:`engine.ai.view`), hand planning
(:mod:`engine.ai.plan`) and the play strategy (:mod:`engine.ai.strategy`); decisions
outside play are in :mod:`engine.computer`."""
