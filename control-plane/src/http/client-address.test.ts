import assert from "node:assert/strict";
import { test } from "node:test";
import { clientAddressKey } from "./client-address.ts";

test("IPv6 addresses count per /64; IPv4 and IPv4-mapped addresses as the IPv4", () => {
  assert.equal(clientAddressKey("2001:db8:5:6::1"), "2001:db8:5:6::/64");
  assert.equal(clientAddressKey("2001:DB8:5:6:ffff:1:2:3"), "2001:db8:5:6::/64");
  assert.equal(clientAddressKey("2001:0db8:0005:0006:0000:0000:0000:0009"), "2001:db8:5:6::/64");
  assert.equal(clientAddressKey("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(clientAddressKey("::1"), "0:0:0:0::/64");
  assert.equal(clientAddressKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(clientAddressKey("64:ff9b::192.0.2.1"), "64:ff9b:0:0::/64");
  assert.equal(clientAddressKey("::ffff:203.0.113.7"), "203.0.113.7");
  assert.equal(clientAddressKey("::ffff:cb00:7107"), "203.0.113.7");
  assert.equal(clientAddressKey("203.0.113.7"), "203.0.113.7");
  assert.equal(clientAddressKey("unknown"), "unknown");
});
