import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Hex, parseAbi, parseEther } from "viem";
import { DEPOSIT_CONTRACT } from "../../devnet/beacon/contracts.ts";
import { DEV_ACCOUNTS, type ExecutionNode, startExecutionNode } from "../../devnet/beacon/execution.ts";

/**
 * The deposit contract compiled from source (devnet/beacon/contracts/DepositContract.sol) and placed at its
 * canonical address on anvil behaves as published: the deposit roots after the two deposits of the Solidity
 * project's own test of this source (semanticTests/externalContracts/deposit_contract.sol) are reproduced.
 */
const ABI = parseAbi([
  "function deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root) payable",
  "function get_deposit_root() view returns (bytes32)",
  "function get_deposit_count() view returns (bytes)",
]);
const VECTORS: { value: bigint; pubkey: Hex; wc: Hex; signature: Hex; root: Hex; after: Hex }[] = [
  {
    value: parseEther("1"),
    pubkey:
      "0x933ad9491b62059dd065b560d256d8957a8c402cc6e8d8ee7290ae11e8f7329267a8811c397529dac52ae1342ba58c95",
    wc: "0x00f50428677c60f997aadeab24aabf7fceaef491c96a52b463ae91f95611cf71",
    signature:
      "0xa29d01cc8c6296a8150e515b5995390ef841dc18948aa3e79be6d7c1851b4cbb5d6ff49fa70b9c782399506a22a85193151b9b691245cebafd2063012443c1324b6c36debaedefb7b2d71b0503ffdc00150aaffd42e63358238ec888901738b8",
    root: "0xaa4a8d0b7d9077248630f1a4701ae9764e42271d7f22b7838778411857fd349e",
    after: "0x2089653123d9c721215120b6db6738ba273bbc5228ac093b1f983badcdc8a438",
  },
  {
    value: parseEther("32"),
    pubkey:
      "0xb2ce0f79f90e7b3a113ca5783c65756f96c4b4673c2b5c1eb4efc2228025944106d601211e8866dc5b50dc48a244dd7c",
    wc: "0x00344b6c73f71b11c56aba0d01b7d8ad83559f209d0a4101a515f6ad54c89771",
    signature:
      "0x945caaf82d18e78c033927d51f452ebcd76524497b91d7a11219cb3db6a1d3697595fc095ce489e46b2ef129591f2f6d079be4faaf345a02c5eb133c072e7c560c6c3617eee66b4b878165c502357d49485326bc6b31bc96873f308c8f19c09d",
    root: "0xdbd986dc85ceb382708cf90a3500f500f0a393c5ece76963ac3ed72eccd2c301",
    after: "0x40255975859377d912c53aa853245ebd939bdd2b33a28e084babdcc1ed8238ee",
  },
];

let node: ExecutionNode;
before(async () => {
  node = await startExecutionNode({ chainId: 560048 });
});
after(() => node.close());

const read = (functionName: "get_deposit_root" | "get_deposit_count") =>
  node.public.readContract({ address: DEPOSIT_CONTRACT, abi: ABI, functionName });

test("empty tree root, then the published roots after each deposit", async () => {
  assert.equal(
    await read("get_deposit_root"),
    "0xd70a234731285c6804c2a4f56711ddb8c82c99740f207854891028af34e27e5e",
  );
  for (const [i, v] of VECTORS.entries()) {
    const hash = await node.wallet.writeContract({
      chain: null,
      account: DEV_ACCOUNTS.user,
      address: DEPOSIT_CONTRACT,
      abi: ABI,
      functionName: "deposit",
      args: [v.pubkey, v.wc, v.signature, v.root],
      value: v.value,
    });
    await node.test.mine({ blocks: 1 });
    assert.equal((await node.public.getTransactionReceipt({ hash })).status, "success");
    assert.equal(await read("get_deposit_root"), v.after);
    assert.equal(await read("get_deposit_count"), `0x${(i + 1).toString(16).padStart(2, "0")}00000000000000`);
  }
});

test("a wrong deposit_data_root, a sub-Gwei value and a value under 1 ETH revert", async () => {
  const v = VECTORS[0] as (typeof VECTORS)[number];
  const wrongRoot = `${v.root.slice(0, -1)}f` as Hex;
  for (const [root, value] of [
    [wrongRoot, v.value],
    [v.root, v.value + 1n],
    [v.root, parseEther("0.5")],
  ] as const) {
    const hash = await node.wallet.writeContract({
      chain: null,
      account: DEV_ACCOUNTS.user,
      address: DEPOSIT_CONTRACT,
      abi: ABI,
      functionName: "deposit",
      args: [v.pubkey, v.wc, v.signature, root],
      value,
      gas: 300_000n,
    });
    await node.test.mine({ blocks: 1 });
    assert.equal((await node.public.getTransactionReceipt({ hash })).status, "reverted");
  }
});
