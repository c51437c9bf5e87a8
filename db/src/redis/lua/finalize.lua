-- finalize.lua: request_in_flight -> registered (funds stay reserved) | failed (funds released), for a batch
-- of one party's reservations (one call per party per event-loop turn, items processed in order); and
-- registered -> failed ("failed-mid-body": the provider answered 2xx/3xx, then broke off its body); and
-- failed -> a new registered reservation ("late-registered", below).
-- KEYS[1]   the party's hash (gw:{party}:acct): balance, reserved, and the counters reserve.lua describes
--           (the day's and month's spend "d"/"dv", "m"/"mv"; the failure window "fn"/"fe", counted here;
--           its keys' counters)
-- KEYS[2]   reservation event stream                (gw:{party}:log)
-- KEYS[2+i] reservation record hash of item i       (gw:{party}:rsv:<scopeHash>)
-- ARGV[1] now (ms since epoch)   ARGV[2] record TTL in seconds once failed (the idempotency window)
-- ARGV[3] record TTL in seconds of one failed before any provider byte ("failed-unanswered")
-- ARGV[4] failure window in ms (0: this call's failures are not counted; the reaper's, say)
-- ARGV[5], ARGV[6] the UTC day and month of now (the spend counters' "d", "m")
-- ARGV[7], ARGV[8] the first ms of that day and of the next; ARGV[9], ARGV[10] the same for its month
-- ARGV[11+6(i-1)] .. ARGV[16+6(i-1)] item i: outcome "registered" | "failed" |
--   "failed-unanswered" | "failed-mid-body" | "late-registered", expected reservation id or "" for any (the
--   reaper passes it: a scope reused after its record expired is another reservation), for
--   "late-registered" the new reservation's id (else ""), the HTTP status the client got and the provider's
--   latency to its response headers in ms, the path asked of the provider (each "" when unknown: the
--   reaper's), carried by the event with the record's API key id for the usage roll-up and the request log
--   (not kept in the record: nothing in Redis reads them)
-- Returns one reply per item: {"OK"} | {"NOT_FOUND"} | {"NOT_IN_FLIGHT", status}, then {"MARK"} when this
--   call appended to an empty stream (the caller marks the party dirty; see reserve.lua)
-- Only an in-flight (or, for failed-mid-body, a registered) reservation moves, so a repeated finalize can
-- never release twice, and one already settled stays charged.
--
-- "failed-unanswered" is "failed" for a request no provider byte came back for (refused connection, timeout,
-- the client gone before its request was delivered): nothing was served and nothing can be disputed, so
-- its record keeps the idempotency key for ARGV[3] seconds (minutes) rather than the idempotency window.
-- Every failure (but the reaper's) adds one to the party's failure counter, which reserve.lua checks.
--
-- "late-registered": the provider answered 2xx/3xx, but the reaper had already failed the reservation (its
-- gateway could not finalize in time) and released its funds. A served request must be paid, so the cost
-- is reserved again, without the balance check (the balance may go below zero; the party's next requests
-- are then refused as insufficient), under a NEW reservation id that takes over the record as `registered`,
-- and the settlement worker charges it like any other. A new id rather than moving the old one back: the
-- failed reservation stays exactly what Postgres and the event stream already hold (a status never moves
-- back there, docs/architecture.md §6), and the charge is an ordinary registered reservation, so neither
-- the drain nor the upsert guard needs an exception. The two share the scope (party, provider, idempotency
-- key), which links them. Never twice: only a failed record still holding the expected (old) id moves, and
-- afterwards it holds the new one.

local now, ttl, unansweredTtl, failWindow = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local FIRST = 3 -- KEYS index of the first item's record
local STRIDE, ITEM = 6, 11 -- ARGV per item, ARGV index of the first item's
-- A release gives its cost back to the spend windows it was counted in, those its "t" falls in, if they are
-- still the current ones; an earlier window is over and no cap looks at it any more.
local dayId, monthId = ARGV[5], ARGV[6]
local dayStart, dayEnd = tonumber(ARGV[7]), tonumber(ARGV[8])
local monthStart, monthEnd = tonumber(ARGV[9]), tonumber(ARGV[10])
-- A spend counter of `hash` ("<prefix>d"/"<prefix>dv", the month's the same with "m"), which says the window
-- it is for: the party's (no prefix) and a key's ("<key>:").
local function spend(hash, prefix, which, window, delta)
  if redis.call("HGET", hash, prefix .. which) == window then
    redis.call("HINCRBY", hash, prefix .. which .. "v", delta)
  elseif string.byte(delta, 1) ~= 45 then -- a charge starts the new window; a release never does
    redis.call("HSET", hash, prefix .. which, window, prefix .. which .. "v", delta)
  end
end
local keyHash = KEYS[1]
local function keySpend(k, which, window, delta)
  if not k or k == "" then return end
  spend(keyHash, k .. ":", which, window, delta)
end
local wasEmpty = redis.call("XLEN", KEYS[2]) == 0
local added = false
local failures = 0
local replies = {}
for i = FIRST, #KEYS do
  local record = KEYS[i]
  local a = ITEM + STRIDE * (i - FIRST)
  local outcome, expected, newId, http, upstreamMs = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local path = ARGV[a + 5]
  local recordTtl = ttl
  if outcome == "failed-unanswered" then outcome, recordTtl = "failed", unansweredTtl end
  local rec = redis.call("HMGET", record, "s", "id", "i", "k", "u", "c", "t", "a")
  local status = rec[1]
  local from = "request_in_flight"
  if outcome == "failed-mid-body" then from, outcome = "registered", "failed" end
  local late = outcome == "late-registered"
  if late then from, outcome = "failed", "registered" end
  if not status or (expected ~= "" and expected ~= rec[2]) or (late and (expected == "" or newId == "")) then
    replies[#replies + 1] = {"NOT_FOUND"}
  elseif status ~= from then
    replies[#replies + 1] = {"NOT_IN_FLIGHT", status}
  else
    local id, created = rec[2], rec[7]
    -- HINCRBY refuses "-0" (a free provider), and subtracting nothing is a no-op anyway.
    if outcome == "failed" and rec[6] ~= "0" then
      redis.call("HINCRBY", KEYS[1], "reserved", "-" .. rec[6])
      local t = tonumber(rec[7]) or 0
      if t >= dayStart and t < dayEnd then
        spend(KEYS[1], "", "d", dayId, "-" .. rec[6])
        keySpend(rec[8], "d", dayId, "-" .. rec[6])
      end
      if t >= monthStart and t < monthEnd then
        spend(KEYS[1], "", "m", monthId, "-" .. rec[6])
        keySpend(rec[8], "m", monthId, "-" .. rec[6])
      end
    end
    if late then
      if rec[6] ~= "0" then
        redis.call("HINCRBY", KEYS[1], "reserved", rec[6])
        -- Served, so counted against the caps (never refused by them), in the current windows.
        spend(KEYS[1], "", "d", dayId, rec[6])
        spend(KEYS[1], "", "m", monthId, rec[6])
        keySpend(rec[8], "d", dayId, rec[6])
        keySpend(rec[8], "m", monthId, rec[6])
      end
      -- Created now (and so counted in the current windows), so a rebuild from Postgres (records written oldest first) leaves this one in the record.
      id, created = newId, now
      redis.call("HSET", record, "id", id, "t", created)
      redis.call("PERSIST", record)
    end
    redis.call("HSET", record, "s", outcome, "m", now)
    -- A registered record stays until settled; a failed one is closed and lives out the idempotency window.
    if outcome == "failed" then
      redis.call("EXPIRE", record, recordTtl)
      failures = failures + 1
    end
    -- The same fields in the same order as reserve.lua's events (why: there).
    redis.call("XADD", KEYS[2], "*", "id", id, "h", string.match(record, ":rsv:(.+)$"), "i", rec[3],
      "k", rec[4], "u", rec[5], "c", rec[6], "a", rec[8] or "", "x", http, "l", upstreamMs, "p", path,
      "s", outcome, "t", created, "m", now)
    added = true
    replies[#replies + 1] = {"OK"}
  end
end
if failures > 0 and failWindow > 0 then
  -- The failure window starts with its first failure (reserve.lua reads "fn"/"fe"; why `now`: there).
  local w = redis.call("HMGET", KEYS[1], "fn", "fe")
  local n, ends, nowMs = tonumber(w[1] or "0"), tonumber(w[2] or "0"), tonumber(now)
  if nowMs >= ends then n, ends = 0, nowMs + failWindow end
  redis.call("HSET", KEYS[1], "fn", string.format("%d", n + failures), "fe", string.format("%d", ends))
end
if wasEmpty and added then replies[#replies + 1] = {"MARK"} end
return replies
