-- finalize.lua: request_in_flight -> registered (funds stay reserved) | failed (funds released).
-- KEYS[1] account hash {balance, reserved}      (gw:{party}:acct)
-- KEYS[2] reservation record hash               (gw:{party}:rsv:<scopeHash>)
-- ARGV[1] outcome "registered" | "failed"   ARGV[2] now (ms since epoch)
-- Returns {"OK"} | {"NOT_FOUND"} | {"NOT_IN_FLIGHT", status}
-- Only an in-flight reservation moves, so a repeated finalize can never release twice.

local status = redis.call("HGET", KEYS[2], "s")
if not status then return {"NOT_FOUND"} end
if status ~= "request_in_flight" then return {"NOT_IN_FLIGHT", status} end
if ARGV[1] == "failed" then
  local cost = redis.call("HGET", KEYS[2], "c")
  redis.call("HINCRBY", KEYS[1], "reserved", "-" .. cost)
end
redis.call("HSET", KEYS[2], "s", ARGV[1], "m", ARGV[2])
return {"OK"}
