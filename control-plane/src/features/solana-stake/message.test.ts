import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  StakeProgram,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { decodeOrSkip, decodeTransaction } from "./message.ts";

// A v0 transaction built by the reference library, with accounts drawn from an address lookup table:
// the decoded instructions must name the same programs and accounts as the library's own view.
const payer = Keypair.fromSeed(new Uint8Array(32).fill(1));
const stakeAccount = Keypair.fromSeed(new Uint8Array(32).fill(3)).publicKey;
const vote = Keypair.fromSeed(new Uint8Array(32).fill(2)).publicKey;
const recipient = Keypair.fromSeed(new Uint8Array(32).fill(4)).publicKey;
const table = new AddressLookupTableAccount({
  key: Keypair.fromSeed(new Uint8Array(32).fill(5)).publicKey,
  state: {
    deactivationSlot: BigInt("18446744073709551615"),
    lastExtendedSlot: 0,
    lastExtendedSlotStartIndex: 0,
    addresses: [
      recipient,
      vote,
      StakeProgram.programId,
      new PublicKey("SysvarC1ock11111111111111111111111111111111"),
    ],
  },
});
const instructions = [
  SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 5000 }),
  ...StakeProgram.delegate({ stakePubkey: stakeAccount, authorizedPubkey: payer.publicKey, votePubkey: vote })
    .instructions,
];
const message = new TransactionMessage({
  payerKey: payer.publicKey,
  recentBlockhash: new PublicKey(new Uint8Array(32).fill(7)).toBase58(),
  instructions,
}).compileToV0Message([table]);
const wire = new VersionedTransaction(message).serialize();
// What getTransaction's meta.loadedAddresses holds: the looked-up addresses, writable ones first.
const loaded = {
  writable: message.addressTableLookups.flatMap((l) =>
    l.writableIndexes.map((i) => table.state.addresses[i]!.toBase58()),
  ),
  readonly: message.addressTableLookups.flatMap((l) =>
    l.readonlyIndexes.map((i) => table.state.addresses[i]!.toBase58()),
  ),
};

test("a v0 message with lookup-table accounts decodes like the reference library reads it", () => {
  assert.ok(loaded.writable.length + loaded.readonly.length > 0, "the fixture really uses the lookup table");
  const decoded = decodeTransaction(wire, loaded);
  const keys = message.getAccountKeys({ addressLookupTableAccounts: [table] });
  const expected = message.compiledInstructions.map((ix) => ({
    programId: keys.get(ix.programIdIndex)!.toBase58(),
    accounts: ix.accountKeyIndexes.map((i) => keys.get(i)!.toBase58()),
    data: Buffer.from(ix.data).toString("hex"),
  }));
  assert.deepEqual(
    decoded.instructions.map((ix) => ({ ...ix, data: Buffer.from(ix.data).toString("hex") })),
    expected,
  );
  assert.equal(decoded.instructions[0]?.accounts[1], recipient.toBase58(), "a looked-up account resolved");
});

test("a v0 message without its loaded addresses is skipped, not a failure", () => {
  assert.throws(() => decodeTransaction(wire), /without its loaded addresses/);
  assert.equal(decodeOrSkip({ transaction: [Buffer.from(wire).toString("base64"), "base64"] }), null);
  const ok = decodeOrSkip({
    transaction: [Buffer.from(wire).toString("base64"), "base64"],
    meta: { loadedAddresses: loaded },
  });
  assert.equal(ok?.instructions.length, instructions.length);
});
