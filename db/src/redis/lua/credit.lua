-- credit.lua: apply one ledger credit to the Redis balance exactly once.
-- KEYS[1] account hash {balance, reserved}      (gw:{party}:acct)
-- KEYS[2] set of applied ledger entry ids       (gw:{party}:applied)
-- ARGV[1] ledger entry id   ARGV[2] amount in coin base units (positive integer string, fits int64)
-- Returns {"OK", balance} | {"ALREADY_APPLIED", balance}

if redis.call("SADD", KEYS[2], ARGV[1]) == 0 then
  return {"ALREADY_APPLIED", redis.call("HGET", KEYS[1], "balance") or "0"}
end
-- HINCRBY's reply becomes a Lua double; HGET reads the exact digits back.
redis.call("HINCRBY", KEYS[1], "balance", ARGV[2])
redis.call("HSETNX", KEYS[1], "reserved", "0")
return {"OK", redis.call("HGET", KEYS[1], "balance")}
