import assert from "node:assert/strict";
import { BlockList } from "node:net";
import { test } from "node:test";
import { createAddressPolicy } from "./address-policy.ts";

test("SSRF: loopback, private, link-local, metadata, ULA, unspecified and mapped addresses are refused", () => {
  const policy = createAddressPolicy(new BlockList());
  for (const a of [
    "127.0.0.1",
    "127.8.9.10",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.100.100.200",
    "0.0.0.0",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "fd00:ec2::254",
    "fe80::1%eth0",
    "ff02::1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "224.0.0.1",
    "255.255.255.255",
  ])
    assert.ok(policy.refusal(a), `${a} should be refused`);
  for (const a of ["1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
    assert.equal(policy.refusal(a), null, `${a} should be allowed`);
  assert.ok(policy.refusal("example.com"), "a name is never judged as an address");
});

test("SSRF: the operator's allowlist reaches a refused range, and only that range", () => {
  const allowed = new BlockList();
  allowed.addSubnet("127.0.0.1", 32, "ipv4");
  const policy = createAddressPolicy(allowed);
  assert.equal(policy.refusal("127.0.0.1"), null);
  assert.equal(policy.refusal("::ffff:127.0.0.1"), null);
  assert.ok(policy.refusal("127.0.0.2"));
  assert.ok(policy.refusal("::1"));
});
