-- finalize.lua: request_in_flight -> registered (funds stay reserved) | failed (funds released), for a batch
-- of one party's reservations (one call per party per event-loop turn, items processed in order).
-- KEYS[1]   account hash {balance, reserved}       (gw:{party}:acct)
-- KEYS[1+i] reservation record hash of item i       (gw:{party}:rsv:<scopeHash>)
-- ARGV[1] now (ms since epoch)   ARGV[1+i] outcome of item i: "registered" | "failed"
-- Returns one reply per item: {"OK"} | {"NOT_FOUND"} | {"NOT_IN_FLIGHT", status}
-- Only an in-flight reservation moves, so a repeated finalize can never release twice.

local replies = {}
for i = 2, #KEYS do
  local record, outcome = KEYS[i], ARGV[i]
  local status = redis.call("HGET", record, "s")
  if not status then
    replies[#replies + 1] = {"NOT_FOUND"}
  elseif status ~= "request_in_flight" then
    replies[#replies + 1] = {"NOT_IN_FLIGHT", status}
  else
    if outcome == "failed" then
      redis.call("HINCRBY", KEYS[1], "reserved", "-" .. redis.call("HGET", record, "c"))
    end
    redis.call("HSET", record, "s", outcome, "m", ARGV[1])
    replies[#replies + 1] = {"OK"}
  end
end
return replies
