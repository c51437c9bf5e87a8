-- reserve.lua: duplicate check + balance check + reservation, atomically (docs/architecture.md §6 step 4), for a batch.
-- A gateway process sends one call per party per event-loop turn carrying every reservation asked for in
-- that turn; items are processed in order exactly as that many separate calls would be.
-- KEYS[1]   account hash {balance, reserved}       (gw:{party}:acct)
-- KEYS[2]   reservation event stream                (gw:{party}:log)
-- KEYS[3]   request counter of the current window  (gw:{party}:rate)
-- KEYS[4]   failed reservations of the failure window (gw:{party}:fails; finalize.lua counts them)
-- KEYS[5]   coins reserved today (UTC)             (gw:{party}:spend:d:<YYYY-MM-DD>)
-- KEYS[6]   coins reserved this month (UTC)        (gw:{party}:spend:m:<YYYY-MM>)
-- KEYS[6+i] reservation record hash of item i       (gw:{party}:rsv:<scopeHash>)
-- ARGV[1] now (ms since epoch)   ARGV[2] requests allowed per window (0 = no limit)   ARGV[3] window (ms)
-- ARGV[4] failed reservations allowed per failure window (0 = no limit)
-- ARGV[5] ms since epoch when KEYS[5] expires (a day after its day ends)   ARGV[6] the same for KEYS[6]
-- ARGV[7] ms until today ends   ARGV[8] ms until this month ends (the spend caps' Retry-After)
-- ARGV[9+9(i-1)] .. ARGV[17+9(i-1)] item i: cost in coin base units (non-negative integer string, fits
--   int64), reservation id, idempotency key, provider key, costInUSD (decimal string), scope hash (the record
--   key's tail), API key id (the caller's key, kept in the record for the usage roll-up), the party's daily
--   and monthly spend caps in base units ("" = none)
-- Returns one reply per item: {"OK", r, t} | {"DUPLICATE", r, t, field, value, ...} |
--   {"INSUFFICIENT_BALANCE", r, t} | {"SPEND_CAP", ms until the capped window ends, r, t} | {"RATE_LIMITED", ms until the window ends, r, t} (the request window's,
--   or the failure window's when the party has had ARGV[4] failed reservations in it: each costs a record
--   and a Postgres row, and is free), where r is what is left of the request window once this item is
--   counted and t the ms until that window ends (both "" when there is no request limit): the gateway's
--   RateLimit header fields (docs/gateway.md, "RateLimit header fields"),
--   then {"MARK"} when this call appended to an empty stream: the caller then adds the party to the
--   settlement worker's dirty set (a cross-party key, so not touched here); a non-empty stream's party is
--   already marked or held by a worker that re-marks it if events remain after its last trim.
-- The record does not expire while open: finalize.lua (failed) and settle.lua give it its TTL, so funds
--   can never stay reserved by a record that vanished before settlement.
-- Amounts exceed 2^53, so arithmetic is done by HINCRBY (int64) and compared as digit strings, never as Lua numbers.

-- a > b for canonical non-negative integer strings (what HINCRBY stores: no sign, no leading zeros).
local function greater(a, b)
  if #a ~= #b then return #a > #b end
  return a > b
end

local now = ARGV[1]
local limit = tonumber(ARGV[2])
local failLimit = tonumber(ARGV[4])
local FIRST = 7 -- KEYS index of the first item's record
-- Spend caps: what the party reserved in the UTC day and month, a reservation counted at once (so two
-- gateway processes can never pass a cap between them: this script is the one atomic step) and taken
-- back by finalize.lua when released. A charged reservation stays counted.
local dayKey, monthKey = KEYS[5], KEYS[6]
local spentDay = redis.call("GET", dayKey) or "0"
local spentMonth = redis.call("GET", monthKey) or "0"
local dayId, monthId = string.match(dayKey, ":spend:d:(.+)$"), string.match(monthKey, ":spend:m:(.+)$")
local spendAdded = false
-- a + b for non-negative integer strings of any length (no float on the way).
local function add(a, b)
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
local balance = redis.call("HGET", KEYS[1], "balance") or "0"
local wasEmpty = redis.call("XLEN", KEYS[2]) == 0
local added = false
local replies = {}
-- Per-party fixed window, counted here because this script already runs once per party per turn: one
-- INCRBY for the whole batch, so the limit costs no round trip. Every request asked for counts, refused
-- ones included (a party hammering while limited gains nothing); the window restarts when the key expires.
local count, windowLeft = 0, 0
if limit > 0 then
  local asked = #KEYS - FIRST + 1
  count = redis.call("INCRBY", KEYS[3], asked) - asked
  windowLeft = redis.call("PTTL", KEYS[3])
  if windowLeft < 0 then -- the first batch of a window (a counter without a TTL would never reset)
    redis.call("PEXPIRE", KEYS[3], ARGV[3])
    windowLeft = tonumber(ARGV[3])
  end
end
-- Failures so far in the party's failure window (read once: none can be added while this script runs).
local failsLeft = 0
if failLimit > 0 and tonumber(redis.call("GET", KEYS[4]) or "0") >= failLimit then
  failsLeft = redis.call("PTTL", KEYS[4])
  if failsLeft < 1 then failsLeft = 1 end
end
local t = limit > 0 and tostring(windowLeft) or ""
for i = FIRST, #KEYS do
  local record = KEYS[i]
  local a = 9 + (i - FIRST) * 9
  local cost = ARGV[a]
  local dayCap, monthCap = ARGV[a + 7], ARGV[a + 8]
  count = count + 1
  local r = ""
  if limit > 0 then r = tostring(count < limit and limit - count or 0) end
  if limit > 0 and count > limit then
    replies[#replies + 1] = {"RATE_LIMITED", t, r, t}
  elseif failsLeft > 0 then
    replies[#replies + 1] = {"RATE_LIMITED", tostring(failsLeft), r, t}
  elseif dayCap ~= "" and greater(add(spentDay, cost), dayCap) then
    replies[#replies + 1] = {"SPEND_CAP", ARGV[7], r, t}
  elseif monthCap ~= "" and greater(add(spentMonth, cost), monthCap) then
    replies[#replies + 1] = {"SPEND_CAP", ARGV[8], r, t}
  elseif redis.call("EXISTS", record) == 1 then
    local rec = redis.call("HGETALL", record)
    table.insert(rec, 1, t)
    table.insert(rec, 1, r)
    table.insert(rec, 1, "DUPLICATE")
    replies[#replies + 1] = rec
  else
    redis.call("HINCRBY", KEYS[1], "reserved", cost)
    -- Read back as the stored string: HINCRBY's reply reaches Lua as a double.
    local reserved = redis.call("HGET", KEYS[1], "reserved")
    if string.byte(reserved, 1) == 45 or string.byte(balance, 1) == 45 or greater(reserved, balance) then -- 45: "-"
      if cost ~= "0" then redis.call("HINCRBY", KEYS[1], "reserved", "-" .. cost) end -- no "-0" in HINCRBY
      replies[#replies + 1] = {"INSUFFICIENT_BALANCE", r, t}
    else
      local id, idem, provider, usd, scope = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
      local key = ARGV[a + 6]
      redis.call("HSET", record, "id", id, "i", idem, "k", provider, "u", usd, "c", cost, "a", key,
        "d", dayId, "n", monthId, "s", "request_in_flight", "t", now, "m", now)
      if cost ~= "0" then
        spentDay, spentMonth = add(spentDay, cost), add(spentMonth, cost)
        spendAdded = true
      end
      -- The full record (plus its scope hash) in every event, so the worker can upsert any event on its own.
      redis.call("XADD", KEYS[2], "*", "id", id, "h", scope, "i", idem, "k", provider, "u", usd, "c", cost,
        "a", key, "s", "request_in_flight", "t", now, "m", now)
      added = true
      replies[#replies + 1] = {"OK", r, t}
    end
  end
end

if spendAdded then
  redis.call("SET", dayKey, spentDay, "PXAT", ARGV[5])
  redis.call("SET", monthKey, spentMonth, "PXAT", ARGV[6])
end
if wasEmpty and added then replies[#replies + 1] = {"MARK"} end
return replies
