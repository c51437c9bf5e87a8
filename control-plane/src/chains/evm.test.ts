import assert from "node:assert/strict";
import { test } from "node:test";
import { evmAddress, isEthAddress, toChecksumAddress } from "./evm.ts";

test("EIP-55 addresses", () => {
  assert.equal(
    toChecksumAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"),
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  );
  assert.ok(isEthAddress("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"));
  assert.ok(isEthAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"));
  assert.ok(isEthAddress("0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359"));
  assert.ok(!isEthAddress("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d358".replace("fB", "Fb")));
  assert.ok(!isEthAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d35"));
});

test("evmAddress: 0x + 40 hex digits, any case, handed on lower-case", () => {
  assert.equal(
    evmAddress().parse("0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359"),
    "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359",
  );
  for (const bad of ["fb6916095ca1df60bb79ce92ce3ea74c37c5d359", "0xfb69", `0x${"zz".repeat(20)}`]) {
    const r = evmAddress().safeParse(bad);
    assert.equal(r.success ? "" : r.error.issues[0]?.message, "Must be 0x followed by 40 hex digits");
  }
});
