-- settle.lua: the Redis half of settlement (docs/architecture.md §6 step 7) for a batch of one party's reservations:
-- registered (or queued, a state older releases left behind) -> settled, with balance -= cost and
-- reserved -= cost, in one step, so a provider breaking off its body afterwards finds it settled and it
-- stays charged.
-- KEYS[1]   account hash {balance, reserved}       (gw:{party}:acct)
-- KEYS[1+i] reservation record hash of item i       (gw:{party}:rsv:<scopeHash>)
-- ARGV[1] now (ms since epoch)   ARGV[2] record TTL in seconds once settled (the idempotency window)
-- ARGV[2+i] reservation id of item i (a scope reused after its record expired is another reservation)
-- Returns one reply per item: {"OK"} | {"ALREADY"} | {"NOT_FOUND"} | {"WRONG_STATUS", status}
-- Idempotent by status: a reservation already settled answers ALREADY and changes nothing, so re-running a
-- settlement pass after a crash can never debit twice. The cost is read from the record.
-- No stream event: the worker that runs this records the debit in Postgres itself, in the same pass.

local now, ttl = ARGV[1], ARGV[2]
local replies = {}
for i = 2, #KEYS do
  local record = KEYS[i]
  local rec = redis.call("HMGET", record, "s", "id", "c")
  local status, cost = rec[1], rec[3]
  if not status or rec[2] ~= ARGV[1 + i] then
    replies[#replies + 1] = {"NOT_FOUND"}
  elseif status == "settled" then
    replies[#replies + 1] = {"ALREADY"}
  elseif status ~= "registered" and status ~= "queued" then
    replies[#replies + 1] = {"WRONG_STATUS", status}
  else
    -- HINCRBY refuses "-0" (a free provider), and subtracting nothing is a no-op anyway.
    if cost ~= "0" then
      redis.call("HINCRBY", KEYS[1], "balance", "-" .. cost)
      redis.call("HINCRBY", KEYS[1], "reserved", "-" .. cost)
    end
    redis.call("HSET", record, "s", "settled", "m", now)
    redis.call("EXPIRE", record, ttl)
    replies[#replies + 1] = {"OK"}
  end
end
return replies
