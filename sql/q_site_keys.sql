-- perfdiff site: every scenario, cache state and tool with its runs.
SELECT scenario, cache, tool, count(*) FROM runs
GROUP BY scenario, cache, tool ORDER BY scenario, cache, tool
