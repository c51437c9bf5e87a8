-- lease.lua: renew or release a settlement worker's lease on one party, only while the caller holds it
-- (a plain PEXPIRE or DEL could extend or drop the lease another worker took after this one's expired).
-- KEYS[1] the party's settlement lease            (gw:{party}:lease), its value the holder's token
-- ARGV[1] "renew" | "release"   ARGV[2] the caller's token   ARGV[3] lease length in ms (renew)
-- Returns 1 when the caller held the lease (now renewed or released), 0 when it had lost it

if redis.call("GET", KEYS[1]) ~= ARGV[2] then
  return 0
end
if ARGV[1] == "release" then
  redis.call("DEL", KEYS[1])
else
  redis.call("PEXPIRE", KEYS[1], ARGV[3])
end
return 1
