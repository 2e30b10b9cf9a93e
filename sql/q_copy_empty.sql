-- db copy writes only into an empty history: how much is there.
SELECT (SELECT count(*) FROM bundles) + (SELECT count(*) FROM functions)
       + (SELECT count(*) FROM alerts)
