import { createHash, hash, hkdfSync } from "node:crypto";

/** BLS12-381 group order r: every secret key is reduced modulo it (EIP-2333). */
export const BLS_CURVE_ORDER = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

const sha256 = (data: Uint8Array): Buffer => createHash("sha256").update(data).digest();

function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
}

/** I2OSP(sk, 32): big-endian, fixed 32 bytes, the form BLS libraries take. */
export function secretKeyToBytes(sk: bigint): Uint8Array {
  return Buffer.from(sk.toString(16).padStart(64, "0"), "hex");
}

/**
 * HKDF_mod_r (EIP-2333, v4 "salt rehash" form): IKM is suffixed with one zero byte, the salt is re-hashed
 * each round, and 48 bytes of OKM are reduced mod r so the bias is negligible. Node's HKDF is Extract then
 * Expand, exactly the spec's two steps.
 */
function hkdfModR(ikm: Uint8Array, keyInfo: Uint8Array = new Uint8Array(0)): bigint {
  let salt: Uint8Array = Buffer.from("BLS-SIG-KEYGEN-SALT-", "ascii");
  let sk = 0n;
  const ikm0 = Buffer.concat([ikm, Buffer.from([0])]);
  const info = Buffer.concat([keyInfo, Buffer.from([0, 48])]);
  while (sk === 0n) {
    salt = sha256(salt);
    sk = bytesToBigInt(new Uint8Array(hkdfSync("sha256", ikm0, salt, info, 48))) % BLS_CURVE_ORDER;
  }
  return sk;
}

/**
 * Feeds SHA256 of each of the 255 32-byte chunks of HKDF(salt, ikm) into `acc` (255·32 = 8160 is exactly
 * HKDF-SHA256's output limit). The one-shot `crypto.hash` avoids a Hash object per chunk (510 per level).
 */
function addLamportHashes(acc: ReturnType<typeof createHash>, ikm: Uint8Array, salt: Uint8Array): void {
  const okm = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.alloc(0), 255 * 32));
  for (let i = 0; i < 255; i++) acc.update(hash("sha256", okm.subarray(i * 32, i * 32 + 32), "buffer"));
}

/** EIP-2333 parent_SK_to_lamport_PK: the compressed Lamport public key of the parent, salted by index. */
function parentToLamportPk(parent: bigint, index: number): Buffer {
  const salt = Buffer.alloc(4);
  salt.writeUInt32BE(index);
  const ikm = Buffer.from(secretKeyToBytes(parent));
  const notIkm = Buffer.from(ikm.map((b) => b ^ 0xff));
  const acc = createHash("sha256");
  addLamportHashes(acc, ikm, salt);
  addLamportHashes(acc, notIkm, salt);
  return acc.digest();
}

/** EIP-2333 derive_master_SK. The seed must be at least 32 bytes. */
export function deriveMasterSK(seed: Uint8Array): bigint {
  if (seed.length < 32) throw new Error("EIP-2333 seed must be at least 32 bytes");
  return hkdfModR(seed);
}

/** EIP-2333 derive_child_SK (hardened by construction; index is a uint32). */
export function deriveChildSK(parent: bigint, index: number): bigint {
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new Error("index must be uint32");
  return hkdfModR(parentToLamportPk(parent, index));
}

/** EIP-2334 path parsing: "m/12381/3600/0/0/0" → [12381, 3600, 0, 0, 0]. */
export function parsePath(path: string): number[] {
  const [m, ...rest] = path.split("/");
  if (m !== "m") throw new Error(`invalid EIP-2334 path ${path}`);
  return rest.map((p) => {
    if (!/^\d+$/.test(p)) throw new Error(`invalid EIP-2334 path ${path}`);
    return Number(p);
  });
}

export function deriveFromMaster(master: bigint, indices: readonly number[]): bigint {
  return indices.reduce((sk, i) => deriveChildSK(sk, i), master);
}

/** EIP-2334 signing-key path of validator `i`. */
export const signingKeyPath = (i: number) => `m/12381/3600/${i}/0/0`;

/**
 * Derives signing keys m/12381/3600/i/0/0 from one seed. The m/12381/3600 prefix is computed once, since
 * each EIP-2333 level costs two 8160-byte HKDF expansions and 510 SHA-256 calls.
 */
export function createSigningKeyDeriver(seed: Uint8Array) {
  const base = deriveFromMaster(deriveMasterSK(seed), [12381, 3600]);
  return (i: number): bigint => deriveFromMaster(base, [i, 0, 0]);
}
