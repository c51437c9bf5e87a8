import assert from "node:assert/strict";
import { test } from "node:test";
import {
  createSigningKeyDeriver,
  deriveChildSK,
  deriveFromMaster,
  deriveMasterSK,
  parsePath,
} from "./eip2333.ts";

// Chain notes §4.1: the official EIP-2333 cases.
const CASES = [
  {
    seed: "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
    master: 6083874454709270928345386274498605044986640685124978867557563392430687146096n,
    index: 0,
    child: 20397789859736650942317412262472558107875392172444076792671091975210932703118n,
  },
  {
    seed: "3141592653589793238462643383279502884197169399375105820974944592",
    master: 29757020647961307431480504535336562678282505419141012933316116377660817309383n,
    index: 3141592653,
    child: 25457201688850691947727629385191704516744796114925897962676248250929345014287n,
  },
  {
    seed: "0099FF991111002299DD7744EE3355BBDD8844115566CC55663355668888CC00",
    master: 27580842291869792442942448775674722299803720648445448686099262467207037398656n,
    index: 4294967295,
    child: 29358610794459428860402234341874281240803786294062035874021252734817515685787n,
  },
  {
    seed: "d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3",
    master: 19022158461524446591288038168518313374041767046816487870552872741050760015818n,
    index: 42,
    child: 31372231650479070279774297061823572166496564838472787488249775572789064611981n,
  },
];

test("EIP-2333 official vectors: master and child keys", () => {
  for (const c of CASES) {
    const master = deriveMasterSK(Buffer.from(c.seed, "hex"));
    assert.equal(master, c.master);
    assert.equal(deriveChildSK(master, c.index), c.child);
  }
});

test("EIP-2334 signing path equals level-by-level derivation", () => {
  const seed = Buffer.from(CASES[3]?.seed ?? "", "hex");
  const derive = createSigningKeyDeriver(seed);
  assert.equal(derive(7), deriveFromMaster(deriveMasterSK(seed), parsePath("m/12381/3600/7/0/0")));
  assert.notEqual(derive(7), derive(8));
});

test("seeds shorter than 32 bytes and bad paths are refused", () => {
  assert.throws(() => deriveMasterSK(new Uint8Array(31)));
  assert.throws(() => parsePath("x/1"));
  assert.throws(() => deriveChildSK(1n, -1));
});
