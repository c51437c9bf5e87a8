-- finalize.lua: request_in_flight -> registered (funds stay reserved) | failed (funds released).
-- KEYS[1] account hash {balance, reserved}      (gw:{party}:acct)
-- KEYS[2] reservation record hash               (gw:{party}:rsv:<scopeHash>)
-- KEYS[3] reservation event stream               (gw:{party}:log)
-- ARGV[1] outcome "registered" | "failed"   ARGV[2] now (ms since epoch)
-- ARGV[3] optional expected reservation id (the reaper passes it: a scope reused after expiry is another reservation)
-- Returns {"OK"} | {"NOT_FOUND"} | {"NOT_IN_FLIGHT", status}
-- Only an in-flight reservation moves, so a repeated finalize can never release twice.

local rec = redis.call("HMGET", KEYS[2], "s", "id", "i", "k", "u", "c", "t")
local status = rec[1]
if not status or (ARGV[3] and ARGV[3] ~= rec[2]) then return {"NOT_FOUND"} end
if status ~= "request_in_flight" then return {"NOT_IN_FLIGHT", status} end
if ARGV[1] == "failed" then
  -- HINCRBY refuses "-0" (a free provider), and subtracting nothing is a no-op anyway.
  if rec[6] ~= "0" then redis.call("HINCRBY", KEYS[1], "reserved", "-" .. rec[6]) end
end
redis.call("HSET", KEYS[2], "s", ARGV[1], "m", ARGV[2])
local scope = string.match(KEYS[2], ":rsv:(.+)$")
redis.call("XADD", KEYS[3], "*", "id", rec[2], "h", scope, "i", rec[3], "k", rec[4], "u", rec[5],
  "c", rec[6], "s", ARGV[1], "t", rec[7], "m", ARGV[2])
return {"OK"}
