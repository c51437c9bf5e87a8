-- Next Hyperliquid nonce for one delegator: max(now, last + 1), so nonces are millisecond times that
-- strictly increase per address across every API process, even with clock skew between them.
-- KEYS[1] = hyperliquidNonce(address)
-- ARGV[1] = caller's current time in ms; ARGV[2] = key TTL in ms (beyond Hyperliquid's nonce window)
-- Returns the nonce (integer). Lua numbers are doubles: ms timestamps (< 2^53) stay exact.
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local now = tonumber(ARGV[1])
local nonce = now
if last >= now then nonce = last + 1 end
redis.call('SET', KEYS[1], string.format('%d', nonce), 'PX', ARGV[2])
return nonce
