-- The Lua interpreter's work in the real-program benchmark: tables,
-- strings, closures and sorting, from a fixed seed; N (arg 1) scales it.
local N = tonumber(arg and arg[1]) or 1
local seed = 12345
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

-- binary trees: allocation and the collector
local function tree(d)
  if d == 0 then return {} end
  return { tree(d - 1), tree(d - 1) }
end
local function check(t)
  if not t[1] then return 1 end
  return 1 + check(t[1]) + check(t[2])
end

-- string building and pattern matching
local function words(n)
  local parts = {}
  for i = 1, n do
    local w = {}
    for j = 1, 3 + rand(6) do w[j] = string.char(97 + rand(26)) end
    parts[i] = table.concat(w)
  end
  return table.concat(parts, " ")
end
local function count_words(s)
  local c = {}
  for w in s:gmatch("%a+") do c[w] = (c[w] or 0) + 1 end
  local n = 0
  for _, v in pairs(c) do n = n + v end
  return n
end

-- closures and numeric loops
local function accumulator()
  local s = 0
  return function(x) s = s + x * x % 7; return s end
end

local total = 0
for round = 1, 4 * N do
  total = total + check(tree(14))
  total = total + count_words(words(40000))
  local acc = accumulator()
  for i = 1, 300000 do total = total + acc(i) % 3 end
  local a = {}
  for i = 1, 60000 do a[i] = rand(1000000) end
  table.sort(a)
  total = total + a[1] + a[#a]
  local m = {}
  for i = 1, 60000 do m["k" .. (i % 5000)] = (m["k" .. (i % 5000)] or 0) + i end
  total = total + m.k7
end
print(total)
