-- settle.lua: the Redis half of settlement (DESIGN §6 step 7), one reservation per call.
-- KEYS[1] account hash {balance, reserved}      (gw:{party}:acct)
-- KEYS[2] reservation record hash               (gw:{party}:rsv:<scopeHash>)
-- KEYS[3] reservation event stream               (gw:{party}:log)
-- ARGV[1] step "queue" (registered -> queued, still reserved) | "settle" (queued -> settled, debits)
-- ARGV[2] reservation id (a scope reused after the record expired is another reservation)
-- ARGV[3] now (ms since epoch)
-- Returns {"OK"} | {"ALREADY", status} | {"NOT_FOUND"} | {"WRONG_STATUS", status}
-- Idempotent by status: a step already taken answers ALREADY and changes nothing, so re-running a
-- settlement pass after a crash can never debit twice. The cost is read from the record.

local rec = redis.call("HMGET", KEYS[2], "s", "id", "i", "k", "u", "c", "t")
local status = rec[1]
if not status or rec[2] ~= ARGV[2] then return {"NOT_FOUND"} end

local next
if ARGV[1] == "queue" then
  if status == "queued" or status == "settled" then return {"ALREADY", status} end
  if status ~= "registered" then return {"WRONG_STATUS", status} end
  next = "queued"
else
  if status == "settled" then return {"ALREADY", status} end
  if status ~= "queued" then return {"WRONG_STATUS", status} end
  next = "settled"
  -- HINCRBY refuses "-0" (a free provider), and subtracting nothing is a no-op anyway.
  if rec[6] ~= "0" then
    redis.call("HINCRBY", KEYS[1], "balance", "-" .. rec[6])
    redis.call("HINCRBY", KEYS[1], "reserved", "-" .. rec[6])
  end
end
redis.call("HSET", KEYS[2], "s", next, "m", ARGV[3])
local scope = string.match(KEYS[2], ":rsv:(.+)$")
redis.call("XADD", KEYS[3], "*", "id", rec[2], "h", scope, "i", rec[3], "k", rec[4], "u", rec[5],
  "c", rec[6], "s", next, "t", rec[7], "m", ARGV[3])
return {"OK"}
