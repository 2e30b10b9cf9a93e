-- SQLite's work in the real-program benchmark: tables filled by recursive
-- CTEs, an index, joins, group-by and sorting; deterministic.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, region INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, amount INTEGER,
                    day INTEGER, note TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO customer SELECT i, 'cust' || (i * 7919 % 100003), i % 17 FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000)
INSERT INTO orders SELECT i, (i * 104729) % 20000 + 1, (i * 31337) % 1000,
       i % 365, printf('n%08d', (i * 2654435761) % 1000000007) FROM c;
CREATE INDEX orders_customer ON orders(customer);
SELECT region, count(*), sum(amount) FROM orders JOIN customer
       ON customer.id = orders.customer GROUP BY region ORDER BY region;
SELECT day, avg(amount) FROM orders GROUP BY day ORDER BY 2 DESC LIMIT 5;
SELECT name, total FROM (SELECT customer, sum(amount) AS total FROM orders
       GROUP BY customer) JOIN customer ON id = customer
       ORDER BY total DESC LIMIT 5;
SELECT count(DISTINCT note) FROM orders WHERE note LIKE 'n1%';
SELECT substr(note, 2, 3) AS k, count(*) FROM orders GROUP BY k
       ORDER BY 2 DESC LIMIT 3;
