-- reserve.lua: duplicate check + balance check + reservation, atomically (DESIGN §6 step 4).
-- KEYS[1] account hash {balance, reserved}      (gw:{party}:acct)
-- KEYS[2] reservation record hash               (gw:{party}:rsv:<scopeHash>)
-- KEYS[3] reservation index zset                 (gw:{party}:rsvidx)
-- KEYS[4] reservation event stream               (gw:{party}:log)
-- ARGV[1] cost in coin base units (non-negative integer string, fits int64)
-- ARGV[2] reservation id   ARGV[3] idempotency key   ARGV[4] provider key   ARGV[5] costInUSD (decimal string)
-- ARGV[6] now (ms since epoch)   ARGV[7] record TTL in seconds
-- Returns {"OK"} | {"DUPLICATE", field, value, ...} | {"INSUFFICIENT_BALANCE"}
-- Amounts exceed 2^53, so arithmetic is done by HINCRBY (int64) and compared as digit strings, never as Lua numbers.

local function cmp(a, b) -- non-negative integer strings
  a = string.gsub(a, "^0+(%d)", "%1"); b = string.gsub(b, "^0+(%d)", "%1")
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end

if redis.call("EXISTS", KEYS[2]) == 1 then
  local rec = redis.call("HGETALL", KEYS[2])
  table.insert(rec, 1, "DUPLICATE")
  return rec
end

local balance = redis.call("HGET", KEYS[1], "balance") or "0"
redis.call("HINCRBY", KEYS[1], "reserved", ARGV[1])
local reserved = redis.call("HGET", KEYS[1], "reserved")
if string.sub(reserved, 1, 1) == "-" or cmp(reserved, balance) > 0 then
  redis.call("HINCRBY", KEYS[1], "reserved", "-" .. ARGV[1])
  return {"INSUFFICIENT_BALANCE"}
end

redis.call("HSET", KEYS[2], "id", ARGV[2], "i", ARGV[3], "k", ARGV[4], "u", ARGV[5], "c", ARGV[1],
  "s", "request_in_flight", "t", ARGV[6], "m", ARGV[6])
redis.call("EXPIRE", KEYS[2], ARGV[7])
local scope = string.match(KEYS[2], ":rsv:(.+)$")
redis.call("ZADD", KEYS[3], ARGV[6], scope)
redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", tonumber(ARGV[6]) - tonumber(ARGV[7]) * 1000)
-- The full record (plus its scope hash) in every event, so the worker can upsert any event on its own.
redis.call("XADD", KEYS[4], "*", "id", ARGV[2], "h", scope, "i", ARGV[3], "k", ARGV[4], "u", ARGV[5],
  "c", ARGV[1], "s", "request_in_flight", "t", ARGV[6], "m", ARGV[6])
return {"OK"}
