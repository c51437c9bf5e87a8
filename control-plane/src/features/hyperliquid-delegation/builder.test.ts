import assert from "node:assert/strict";
import { test } from "node:test";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import {
  actionDigest,
  addressOf,
  buildCDeposit,
  buildCWithdraw,
  buildTokenDelegate,
  CHAIN_PARAMS,
  domainSeparator,
  encodeUnsigned,
  parseHypeAmount,
  plainDecimal,
  recoverSigner,
  signDigest,
  typeHash,
} from "./builder.ts";

// Hardhat/Anvil #0: a public test key (docs/chains/hyperliquid.md §4c). Never fund it.
const KEY = hexToBytes("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487";
const NONCE = 1735689600000;
const hex = (b: Uint8Array) => `0x${bytesToHex(b)}`;
const at = (hyperliquidChain: "Mainnet" | "Testnet") => ({ hyperliquidChain, signatureChainId: "0x66eee" });

const VECTORS = [
  {
    id: "OWN-1",
    tx: buildTokenDelegate({
      chain: at("Mainnet"),
      validator: VALIDATOR,
      wei: 150000000n,
      isUndelegate: false,
      nonce: NONCE,
    }),
    digest: "0x37e3b03982185403c0831700ca7d30e22138aeec81abb5bb7b3ac23556a19345",
    r: "0x73957777cd72ce6110fa3b6b17d5a5bf61a3a9d61d08f3454b5a6d428e5c44b1",
    s: "0x5bba9f3740982422ada0a5e704b692224b0dbe55091629b6dadd6ce56789e328",
    v: 28,
  },
  {
    id: "OWN-2",
    tx: buildTokenDelegate({
      chain: at("Testnet"),
      validator: VALIDATOR,
      wei: 150000000n,
      isUndelegate: true,
      nonce: NONCE,
    }),
    digest: "0x5219e9a07bbef6a135c410499e322555c9afcc8b0a2f193b35c6220aeef58de3",
    r: "0x1d0d737f2d090700e27ee6d9ed536051e398bfa8cd0fb8976f9d5424012125fd",
    s: "0x621fd5ab86dd5a862168c1bee3228ea80352d54ca7cf823de49bac91c5d987ee",
    v: 28,
  },
  {
    id: "OWN-3",
    tx: buildCDeposit({ chain: at("Mainnet"), wei: 10000000n, nonce: NONCE }),
    digest: "0x6d0492ceacd98c3fe7b91732815aeeaf832d85a9d1baefef097c5615d4611aad",
    r: "0x92c75aaad9eab9a97dd599aa3b29bbb133c0f7e6f82d45a1a7221f337398fd5a",
    s: "0x6443a04a6df39ee4a4d00734739addcb2721fb705bfb96b0650e02b2b3fb9b9f",
    v: 27,
  },
  {
    id: "OWN-4",
    tx: buildCWithdraw({ chain: at("Testnet"), wei: 200000000n, nonce: NONCE }),
    digest: "0x658b149bf197ca49dd72e0ba76e4888ba85c4f1f6d866fc5ddb9a7bb6b383294",
    r: "0xd121f4e112b9cb28311a3ba3d768f980498ee446f87176841cc2ea27a452c4bb",
    s: "0x3ddaa489a2a0bc430180ce7a5a857921c7c8efabcbd09ca6c747274d3f8299ab",
    v: 27,
  },
];

test("type hashes and domain separators match docs/chains/hyperliquid.md §1", () => {
  assert.equal(
    hex(typeHash("tokenDelegate")),
    "0x92b330ec2490ea5985392c914fbd03684ac4860d6423151a947ad3022c58270b",
  );
  assert.equal(
    hex(typeHash("cDeposit")),
    "0xad1bf36b33cc8478b96fc8d7f333f55aaacc2d2d5f76e11c6f909ec0e6350d4c",
  );
  assert.equal(
    hex(typeHash("cWithdraw")),
    "0x5b373730cec30f6bfdd2055fe781ce6d5aaf3dbb95f9e41f30304bb7235cf434",
  );
  assert.equal(
    hex(domainSeparator(421614)),
    "0xfeb1393ca4412a4ca577bd51d04f0a77033514c602f4d0a11490fb95f7428df6",
  );
  assert.equal(
    hex(domainSeparator(42161)),
    "0x2f54e643b38c9c2b65cb731aaf11c54f01705ee0cdf45aea16e2ac0a5ce7531a",
  );
});

for (const v of VECTORS) {
  test(`${v.id}: digest, signature and recovered signer byte for byte`, () => {
    assert.equal(addressOf(KEY), ADDRESS);
    const digest = actionDigest(v.tx.action);
    assert.equal(hex(digest), v.digest);
    assert.deepEqual(signDigest(digest, KEY), { r: v.r, s: v.s, v: v.v });
    assert.equal(recoverSigner(digest, { r: v.r, s: v.s, v: v.v }), ADDRESS);
    assert.equal(recoverSigner(digest, { r: v.r, s: v.s, v: v.v - 27 }), ADDRESS);
  });
}

test("OWN-1 unsigned JSON layout and signed transaction base64 are byte-identical", () => {
  const [own1] = VECTORS;
  assert.ok(own1);
  assert.equal(
    JSON.stringify(own1.tx),
    '{"action":{"type":"tokenDelegate","signatureChainId":"0x66eee","hyperliquidChain":"Mainnet","validator":"0x5ac99df645f3414876c816caa18b2d234024b487","wei":150000000,"isUndelegate":false,"nonce":1735689600000},' +
      '"domain":{"name":"HyperliquidSignTransaction","version":"1","chainId":421614,"verifyingContract":"0x0000000000000000000000000000000000000000"},' +
      '"types":{"HyperliquidTransaction:TokenDelegate":[{"name":"hyperliquidChain","type":"string"},{"name":"validator","type":"address"},{"name":"wei","type":"uint64"},{"name":"isUndelegate","type":"bool"},{"name":"nonce","type":"uint64"}]},' +
      '"primaryType":"HyperliquidTransaction:TokenDelegate","nonce":1735689600000}',
  );
  assert.equal(Buffer.from(encodeUnsigned(own1.tx), "base64").toString(), JSON.stringify(own1.tx));
  const signed = {
    action: own1.tx.action,
    nonce: NONCE,
    signature: signDigest(actionDigest(own1.tx.action), KEY),
  };
  assert.equal(
    Buffer.from(JSON.stringify(signed)).toString("base64"),
    "eyJhY3Rpb24iOnsidHlwZSI6InRva2VuRGVsZWdhdGUiLCJzaWduYXR1cmVDaGFpbklkIjoiMHg2NmVlZSIsImh5cGVybGlxdWlkQ2hhaW4iOiJNYWlubmV0IiwidmFsaWRhdG9yIjoiMHg1YWM5OWRmNjQ1ZjM0MTQ4NzZjODE2Y2FhMThiMmQyMzQwMjRiNDg3Iiwid2VpIjoxNTAwMDAwMDAsImlzVW5kZWxlZ2F0ZSI6ZmFsc2UsIm5vbmNlIjoxNzM1Njg5NjAwMDAwfSwibm9uY2UiOjE3MzU2ODk2MDAwMDAsInNpZ25hdHVyZSI6eyJyIjoiMHg3Mzk1Nzc3N2NkNzJjZTYxMTBmYTNiNmIxN2Q1YTViZjYxYTNhOWQ2MWQwOGYzNDU0YjVhNmQ0MjhlNWM0NGIxIiwicyI6IjB4NWJiYTlmMzc0MDk4MjQyMmFkYTBhNWU3MDRiNjkyMjI0YjBkYmU1NTA5MTYyOWI2ZGFkZDZjZTU2Nzg5ZTMyOCIsInYiOjI4fX0=",
  );
});

test("unpadded r/s (Python SDK form) recover the same signer", () => {
  const strip = (h: string) => `0x${h.slice(2).replace(/^0+/, "")}`;
  let checked = 0;
  for (let nonce = 1; nonce <= 200 && checked < 2; nonce++) {
    const digest = actionDigest(buildCDeposit({ chain: CHAIN_PARAMS.testnet, wei: 1n, nonce }).action);
    const sig = signDigest(digest, KEY);
    if (!sig.r.startsWith("0x0") && !sig.s.startsWith("0x0")) continue;
    const short = { r: strip(sig.r), s: strip(sig.s), v: sig.v };
    assert.ok(short.r.length < 66 || short.s.length < 66);
    assert.equal(recoverSigner(digest, short), ADDRESS);
    checked++;
  }
  assert.equal(checked, 2);
});

test("network parameters: mainnet signs with 0xa4b1, testnet with 0x66eee", () => {
  const m = buildCWithdraw({ chain: CHAIN_PARAMS.mainnet, wei: 1n, nonce: 5 });
  assert.equal(m.action.hyperliquidChain, "Mainnet");
  assert.equal(m.domain.chainId, 42161);
  const t = buildCWithdraw({ chain: CHAIN_PARAMS.testnet, wei: 1n, nonce: 5 });
  assert.equal(t.action.hyperliquidChain, "Testnet");
  assert.equal(t.domain.chainId, 421614);
  const d = buildTokenDelegate({
    chain: CHAIN_PARAMS.testnet,
    validator: VALIDATOR.toUpperCase().replace("0X", "0x"),
    wei: 1n,
    isUndelegate: false,
    nonce: 1,
  });
  assert.equal((d.action as { validator: string }).validator, VALIDATOR);
});

test("amount parsing reads the decimal text and says why it refuses", () => {
  assert.equal(plainDecimal(1e-9), "0.000000001");
  assert.equal(plainDecimal(1.5e21), "1500000000000000000000");
  assert.equal(plainDecimal(1.005), "1.005");
  assert.deepEqual(parseHypeAmount(0.1), { ok: true, wei: 10000000n, text: "0.1" });
  assert.deepEqual(parseHypeAmount(1.005), { ok: true, wei: 100500000n, text: "1.005" });
  assert.deepEqual(parseHypeAmount(90071992.5474099), {
    ok: true,
    wei: 9007199254740990n,
    text: "90071992.5474099",
  });
  const reason = (n: number) => {
    const r = parseHypeAmount(n);
    return r.ok ? "ok" : r.reason;
  };
  assert.match(reason(0.09), /at least 0\.1/);
  assert.match(reason(0), /at least 0\.1/);
  assert.match(reason(-1), /at least 0\.1/);
  assert.match(reason(1e-9), /8 decimal places/);
  assert.match(reason(0.123456789), /8 decimal places/);
  assert.match(reason(90071993), /largest integer a JSON number/);
  assert.match(reason(9007199254740992), /at most 9007199254740991/);
});
