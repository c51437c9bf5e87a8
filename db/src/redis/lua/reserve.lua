-- reserve.lua: duplicate check + balance check + reservation, atomically (docs/architecture.md §6 step 4), for a batch.
-- A gateway process sends one call per party per event-loop turn carrying every reservation asked for in
-- that turn; items are processed in order exactly as that many separate calls would be.
-- KEYS[1]   the party's hash (gw:{party}:acct): balance, reserved, its counters and its keys' (below)
-- KEYS[2]   reservation event stream                (gw:{party}:log)
-- KEYS[2+i] reservation record hash of item i       (gw:{party}:rsv:<scopeHash>)
-- The party's counters, and its API keys' (fields below), are fields of KEYS[1] beside its balance, so one
-- HMGET reads and one HSET writes everything a lone request's call checks (it paid a command per counter
-- key): "d"/"dv" and "m"/"mv" the UTC day/month its spend counter is for and the coins in it (a counter of
-- an earlier window counts nothing), "rn"/"re" the requests counted in the request window and the ms it
-- ends, "fn"/"fe" the same for failed reservations (finalize.lua counts them).
-- ARGV[1] now (ms since epoch)   ARGV[2] requests allowed per window (0 = no limit)   ARGV[3] window (ms)
-- ARGV[4] failed reservations allowed per failure window (0 = no limit)
-- ARGV[5] the UTC day of now (2026-11-26)   ARGV[6] its month (2026-11)
-- ARGV[7] ms until today ends   ARGV[8] ms until this month ends (the spend caps' Retry-After)
-- ARGV[9+8(i-1)] .. ARGV[16+8(i-1)] item i: cost in coin base units (non-negative integer string, fits
--   int64), reservation id, idempotency key, provider key, costInUSD (decimal string), scope hash (the record
--   key's tail), API key id (the caller's key, kept in the record for the usage roll-up), and the budget
--   ("" = none; scripts.ts encodeBudget, once per key record): "<party daily cap>|<party monthly cap>|<key
--   daily cap>|<key monthly cap>|<key limits>", caps in base units ("" = none), the key's named limits as
--   "name:requests:windowMs;..." ("" = none)
-- Returns one reply per item: {"OK", r, t[, kw]} | {"DUPLICATE", r, t, kw, field, value, ...} |
--   {"INSUFFICIENT_BALANCE", r, t, kw} | {"SPEND_CAP", ms until the capped window ends, r, t, kw, which}
--   ("party-daily" | "party-monthly" | "key-daily" | "key-monthly") | {"RATE_LIMITED", ms until the window
--   ends, r, t, kw, which} ("party": the request window's; "failures": the failure window's, when the party
--   has had ARGV[4] failed reservations in it: each costs a record and a Postgres row, and is free; else the
--   name of the key's limit), where r is what is left of the request window once this item is counted and t
--   the ms until that window ends (integer replies, both "" when there is no request limit), and kw the
--   key's windows in the order of its limits, "r1 t1 r2 t2 ..." ("" without limits, and then left out of an
--   OK): the gateway's RateLimit header fields (docs/gateway.md, "RateLimit header fields"). Numbers are
--   answered as integers: a tostring per item cost more than the rest of the reply.
--   then {"MARK"} when this call appended to an empty stream: the caller then adds the party to the
--   settlement worker's dirty set (a cross-party key, so not touched here); a non-empty stream's party is
--   already marked or held by a worker that re-marks it if events remain after its last trim.
-- The record does not expire while open: finalize.lua (failed) and settle.lua give it its TTL, so funds
--   can never stay reserved by a record that vanished before settlement.
-- Amounts may exceed 2^53: below it they are Lua numbers (exact in a double), past it digit strings (below).

-- a > b for canonical non-negative integer strings (what HINCRBY stores: no sign, no leading zeros).
local function greater(a, b)
  if #a ~= #b then return #a > #b end
  return a > b
end

local now = ARGV[1]
local limit = tonumber(ARGV[2])
local failLimit = tonumber(ARGV[4])
local FIRST = 3 -- KEYS index of the first item's record
local STRIDE = 8 -- ARGV per item
-- Spend caps: what the party reserved in the UTC day and month, a reservation counted at once (so two
-- gateway processes can never pass a cap between them: this script is the one atomic step) and taken
-- back by finalize.lua when released. A charged reservation stays counted.
-- Amounts here are Lua numbers while below 2^53 (a double holds them exactly, and adding two costs no
-- string work: string.format was most of this script's time), digit strings past it. A number is stored
-- as it is (redis.call writes an integral double below 2^53 as its exact digits) and formatted only to be
-- compared with a cap.
local EXACT = 9007199254740992 -- 2^53
local function amount(s)
  if #s < 16 then return tonumber(s) end -- below 10^15
  return s
end
local function digits(a)
  if type(a) == "number" then return string.format("%.0f", a) end
  return a
end
-- a + b for non-negative integer strings of any length, digit by digit (no float on the way).
local function addDigits(a, b)
  local out, carry, i, j = {}, 0, #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local d = carry + (i > 0 and string.byte(a, i) - 48 or 0) + (j > 0 and string.byte(b, j) - 48 or 0)
    out[#out + 1] = string.char(48 + d % 10)
    carry = math.floor(d / 10)
    i, j = i - 1, j - 1
  end
  local text = string.reverse(table.concat(out)):gsub("^0+", "")
  return text == "" and "0" or text
end
local function plus(a, b)
  if type(a) == "number" and type(b) == "number" and a + b < EXACT then return a + b end
  return addDigits(digits(a), digits(b))
end
-- a + b > cap, cap a digit string.
local function over(a, b, cap)
  return greater(digits(plus(a, b)), cap)
end
local dayId, monthId = ARGV[5], ARGV[6]
local spendAdded = false
-- What this call reserves, added once per item; the day's and month's counters (and a key's, below) are
-- those read plus this, summed up where a cap is checked and at the end.
local batchCost = 0
-- The keys' counters: fields of the party's hash (so finalize.lua and the reaper reach them without
-- knowing the keys). Fields of key k: "k:u" last used (ms), "k:d"/"k:dv" and "k:m"/"k:mv" the UTC
-- day/month its spend counter is for and the coins in it, "k:l:<name>"/"k:e:<name>" a named limit's count and the ms its window
-- ends. Each key's spend counters are read once per call (the first item's key's with the party's own,
-- another key's in one HMGET) and everything is written back in one HSET at the end: a call carries a
-- turn's requests, mostly of one key.
local keyHash = KEYS[1]
local keys = {}
local function keyOf(k, read)
  local s = keys[k]
  if not s then
    local v = read or redis.call("HMGET", keyHash, k .. ":d", k .. ":dv", k .. ":m", k .. ":mv")
    -- A counter for an earlier window counts nothing now.
    s = {
      day = v[1] == dayId and amount(v[2] or "0") or 0,
      month = v[3] == monthId and amount(v[4] or "0") or 0,
      -- the windows its counters are for, as read (written again only when they change)
      dayId = v[1],
      monthId = v[3],
      added = 0,
      spent = false,
    }
    keys[k] = s
  end
  return s
end
-- The named limits' fields, read once per field and written back with the rest.
local limitFields, limitDirty = {}, {}
local function lget(f)
  local v = limitFields[f]
  if v == nil then
    v = redis.call("HGET", keyHash, f) or false
    limitFields[f] = v
  end
  return v or nil
end
local function lset(f, v)
  limitFields[f] = v
  limitDirty[f] = v
end
-- An item's budget, parsed once per distinct string: {party daily cap, party monthly cap, key daily cap,
-- key monthly cap, key limits}, "" for each one absent.
local budgets = {}
local function budgetOf(text)
  if text == "" then return nil end
  local b = budgets[text]
  if not b then
    b = {string.match(text, "^(%d*)|(%d*)|(%d*)|(%d*)|(.*)$")}
    budgets[text] = b
  end
  return b
end
local nowMs = tonumber(now)
-- Counts this request in each of the key's named windows (fixed windows that start with their first
-- request, like the party's), refused ones included. Returns "r t ..." per limit and the first limit
-- passed (its name and ms to its window's end), if any.
local function countKeyLimits(k, spec)
  local out, passed, passedMs = {}, nil, nil
  for name, quota, window in string.gmatch(spec, "([^:;]+):(%d+):(%d+)") do
    local cf, ef = k .. ":l:" .. name, k .. ":e:" .. name
    local count, ends = tonumber(lget(cf) or "0"), tonumber(lget(ef) or "0")
    if nowMs >= ends then count, ends = 0, nowMs + tonumber(window) end
    count = count + 1
    lset(cf, string.format("%d", count))
    lset(ef, string.format("%d", ends))
    -- Another gateway's clock (its `now`) may lag the one that started the window: never past a window.
    local q, left = tonumber(quota), math.min(ends - nowMs, tonumber(window))
    out[#out + 1] = string.format("%d %d", count < q and q - count or 0, left)
    if count > q and not passed then passed, passedMs = name, left end
  end
  return table.concat(out, " "), passed, passedMs
end
-- What the party has reserved, added up here item by item and written back once (the HSET at the end):
-- one command per batch where an HINCRBY and an HGET per item cost more than the rest of an item.
local firstKey = ARGV[9 + 6] or ""
local acct = redis.call("HMGET", KEYS[1], "balance", "reserved", "d", "dv", "m", "mv", "rn", "re", "fn", "fe",
  firstKey .. ":d", firstKey .. ":dv", firstKey .. ":m", firstKey .. ":mv")
if firstKey ~= "" then keyOf(firstKey, {acct[11], acct[12], acct[13], acct[14]}) end
local balance, reserved = amount(acct[1] or "0"), amount(acct[2] or "0")
local spentDay = acct[3] == dayId and amount(acct[4] or "0") or 0
local spentMonth = acct[5] == monthId and amount(acct[6] or "0") or 0
local reservedMoved = false
-- Never a reservation while the balance or what is reserved is below zero (a late charge can take the
-- balance there); a negative amount past 10^15 is no account this ledger writes, so it refuses all.
local function negative(x)
  if type(x) == "number" then return x < 0 end
  return string.byte(x, 1) == 45 -- "-"
end
local function exceeds(a, b)
  if type(a) == "number" and type(b) == "number" then return a > b end
  return greater(digits(a), digits(b))
end
local refuseAll = negative(balance) or (type(reserved) == "string" and negative(reserved))
local wasEmpty = redis.call("XLEN", KEYS[2]) == 0
local added = false
local replies = {}
-- Per-party fixed window, counted here because this script already runs once per party per turn, in the
-- party's hash (read above, written with the rest), so the limit costs no command of its own. Every
-- request asked for counts, refused ones included (a party hammering while limited gains nothing). The
-- window starts with its first request and ends by the callers' clocks (`now`); another gateway's clock
-- may lag the one that started it, so what is left is never past a window.
local count, windowLeft, windowEnds = 0, 0, 0
if limit > 0 then
  local asked = #KEYS - FIRST + 1
  count, windowEnds = tonumber(acct[7] or "0"), tonumber(acct[8] or "0")
  if nowMs >= windowEnds then count, windowEnds = 0, nowMs + tonumber(ARGV[3]) end
  windowLeft = math.min(windowEnds - nowMs, tonumber(ARGV[3]))
  -- Counted as the batch's requests: the items below count themselves from `count` on.
  acct[7] = count + asked
end
-- Failures so far in the party's failure window (read once: none can be added while this script runs).
local failsLeft = 0
if failLimit > 0 and nowMs < tonumber(acct[10] or "0") and tonumber(acct[9] or "0") >= failLimit then
  failsLeft = math.max(1, tonumber(acct[10]) - nowMs)
end
local t = limit > 0 and windowLeft or ""
for i = FIRST, #KEYS do
  local record = KEYS[i]
  local a = 9 + (i - FIRST) * STRIDE
  local cost = ARGV[a]
  local costN = amount(cost)
  local k, bt = ARGV[a + 6], ARGV[a + 7]
  local b = nil
  if bt ~= "" then b = budgetOf(bt) end
  count = count + 1
  local r = ""
  if limit > 0 then r = count < limit and limit - count or 0 end
  local kw, keyLimited, keyLimitedMs = "", nil, nil
  local key = nil
  if k ~= "" then
    key = keys[k] or keyOf(k)
    if b and b[5] ~= "" then kw, keyLimited, keyLimitedMs = countKeyLimits(k, b[5]) end
  end
  if limit > 0 and count > limit then
    replies[#replies + 1] = {"RATE_LIMITED", t, r, t, kw, "party"}
  elseif failsLeft > 0 then
    replies[#replies + 1] = {"RATE_LIMITED", tostring(failsLeft), r, t, kw, "failures"}
  elseif keyLimited then
    replies[#replies + 1] = {"RATE_LIMITED", string.format("%d", keyLimitedMs), r, t, kw, keyLimited}
  elseif b and b[1] ~= "" and over(plus(spentDay, batchCost), costN, b[1]) then
    replies[#replies + 1] = {"SPEND_CAP", ARGV[7], r, t, kw, "party-daily"}
  elseif b and b[2] ~= "" and over(plus(spentMonth, batchCost), costN, b[2]) then
    replies[#replies + 1] = {"SPEND_CAP", ARGV[8], r, t, kw, "party-monthly"}
  elseif b and key and b[3] ~= "" and over(plus(key.day, key.added), costN, b[3]) then
    replies[#replies + 1] = {"SPEND_CAP", ARGV[7], r, t, kw, "key-daily"}
  elseif b and key and b[4] ~= "" and over(plus(key.month, key.added), costN, b[4]) then
    replies[#replies + 1] = {"SPEND_CAP", ARGV[8], r, t, kw, "key-monthly"}
  elseif redis.call("EXISTS", record) == 1 then
    local rec = redis.call("HGETALL", record)
    table.insert(rec, 1, kw)
    table.insert(rec, 1, t)
    table.insert(rec, 1, r)
    table.insert(rec, 1, "DUPLICATE")
    replies[#replies + 1] = rec
  else
    local after, refused = nil, refuseAll
    if not refused then
      after = plus(reserved, costN)
      -- Numbers (the common case) compared as they are, without a call.
      if type(after) == "number" and type(balance) == "number" then
        refused = after < 0 or after > balance
      else
        refused = negative(after) or exceeds(after, balance)
      end
    end
    if refused then
      replies[#replies + 1] = {"INSUFFICIENT_BALANCE", r, t, kw}
    else
      reserved, reservedMoved = after, true
      local id, idem, provider, usd, scope = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
      -- Counted in the spend windows of its "t" (ARGV[5], ARGV[6] are those of `now`): finalize.lua gives
      -- a release back to them while they are the current ones.
      redis.call("HSET", record, "id", id, "i", idem, "k", provider, "u", usd, "c", cost, "a", k,
        "s", "request_in_flight", "t", now, "m", now)
      if cost ~= "0" then
        batchCost, spendAdded = plus(batchCost, costN), true
        if key then key.added, key.spent = plus(key.added, costN), true end
      end
      -- The full record (plus its scope hash) in every event, so the worker can upsert any event on its own.
      -- The fields of finalize.lua's events, in their order (its usage facts still empty): a stream entry
      -- with its stream's first fields is stored without their names (Redis's "same fields" flag). Measured
      -- against events without the empty facts: no slower in Redis, no slower to drain (docs/benchmarks.md).
      redis.call("XADD", KEYS[2], "*", "id", id, "h", scope, "i", idem, "k", provider, "u", usd, "c", cost,
        "a", k, "x", "", "l", "", "p", "", "s", "request_in_flight", "t", now, "m", now)
      added = true
      replies[#replies + 1] = kw == "" and {"OK", r, t} or {"OK", r, t, kw}
    end
  end
end

-- One HSET writes what moved (the party's and its keys' fields); a field that would be written with what it
-- already holds (a window's day or month, a window's end) is left out: each field written is a search and a
-- rewrite of the hash, and this write was a fifth of a lone request's call (docs/benchmarks.md). Amounts and
-- times go as Lua numbers while below 2^53 (Redis writes them as their exact digits).
local dirty, n = {}, 0
local function put(f, v)
  dirty[n + 1], dirty[n + 2] = f, v
  n = n + 2
end
if reservedMoved then put("reserved", reserved) end
if spendAdded then
  spentDay, spentMonth = plus(spentDay, batchCost), plus(spentMonth, batchCost)
  if acct[3] ~= dayId then put("d", dayId) end
  put("dv", spentDay)
  if acct[5] ~= monthId then put("m", monthId) end
  put("mv", spentMonth)
end
if limit > 0 then
  put("rn", acct[7])
  if windowEnds ~= tonumber(acct[8] or "0") then put("re", windowEnds) end
end
for f, v in pairs(limitDirty) do put(f, v) end
for k, key in pairs(keys) do
  put(k .. ":u", now)
  if key.spent then
    if key.dayId ~= dayId then put(k .. ":d", dayId) end
    put(k .. ":dv", plus(key.day, key.added))
    if key.monthId ~= monthId then put(k .. ":m", monthId) end
    put(k .. ":mv", plus(key.month, key.added))
  end
end
if n > 0 then redis.call("HSET", KEYS[1], unpack(dirty)) end
if wasEmpty and added then replies[#replies + 1] = {"MARK"} end
return replies
