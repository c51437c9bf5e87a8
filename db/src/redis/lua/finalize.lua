-- finalize.lua: request_in_flight -> registered (funds stay reserved) | failed (funds released), for a batch
-- of one party's reservations (one call per party per event-loop turn, items processed in order); and
-- registered -> failed ("failed-mid-body": the provider answered 2xx/3xx, then broke off its body).
-- KEYS[1]   account hash {balance, reserved}       (gw:{party}:acct)
-- KEYS[2]   reservation event stream                (gw:{party}:log)
-- KEYS[2+i] reservation record hash of item i       (gw:{party}:rsv:<scopeHash>)
-- ARGV[1] now (ms since epoch)   ARGV[2] record TTL in seconds once failed (the idempotency window)
-- ARGV[2i+1], ARGV[2i+2] item i: outcome "registered" | "failed" | "failed-mid-body", expected reservation id or "" for any (the
--   reaper passes it: a scope reused after its record expired is another reservation)
-- Returns one reply per item: {"OK"} | {"NOT_FOUND"} | {"NOT_IN_FLIGHT", status}, then {"MARK"} when this
--   call appended to an empty stream (the caller marks the party dirty; see reserve.lua)
-- Only an in-flight (or, for failed-mid-body, a registered) reservation moves, so a repeated finalize can
-- never release twice, and one already settled stays charged.

local now, ttl = ARGV[1], ARGV[2]
local wasEmpty = redis.call("XLEN", KEYS[2]) == 0
local added = false
local replies = {}
for i = 3, #KEYS do
  local record = KEYS[i]
  local outcome, expected = ARGV[2 * (i - 2) + 1], ARGV[2 * (i - 2) + 2]
  local rec = redis.call("HMGET", record, "s", "id", "i", "k", "u", "c", "t")
  local status = rec[1]
  local from = "request_in_flight"
  if outcome == "failed-mid-body" then from, outcome = "registered", "failed" end
  if not status or (expected ~= "" and expected ~= rec[2]) then
    replies[#replies + 1] = {"NOT_FOUND"}
  elseif status ~= from then
    replies[#replies + 1] = {"NOT_IN_FLIGHT", status}
  else
    -- HINCRBY refuses "-0" (a free provider), and subtracting nothing is a no-op anyway.
    if outcome == "failed" and rec[6] ~= "0" then redis.call("HINCRBY", KEYS[1], "reserved", "-" .. rec[6]) end
    redis.call("HSET", record, "s", outcome, "m", now)
    -- A registered record stays until settled; a failed one is closed and lives out the idempotency window.
    if outcome == "failed" then redis.call("EXPIRE", record, ttl) end
    redis.call("XADD", KEYS[2], "*", "id", rec[2], "h", string.match(record, ":rsv:(.+)$"), "i", rec[3],
      "k", rec[4], "u", rec[5], "c", rec[6], "s", outcome, "t", rec[7], "m", now)
    added = true
    replies[#replies + 1] = {"OK"}
  end
end
if wasEmpty and added then replies[#replies + 1] = {"MARK"} end
return replies
