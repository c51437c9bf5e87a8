import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

/**
 * Feature boundaries (docs/architecture.md §12), checked from the imports themselves: a feature of the
 * control plane (`control-plane/src/features/<area>/`) reaches another feature only through that feature's
 * declared ports below, never its repository, indexer, jobs or other files, and uses only the schema
 * modules (tables) of its own domain. The composition root (compose.ts) and the cross-cutting modules
 * outside `features/` may wire anything.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const FEATURES = path.join(ROOT, "control-plane/src/features");

/** Each feature's declared ports: the only files of it another feature may import, and who does. */
export const PORTS: Record<string, { file: string; users: string[]; why: string }[]> = {
  "account-v2": [
    {
      file: "schemas.ts",
      users: ["account-v1", "gateway-account", "console"],
      why: "the shared e-mail and scope schemas; the console page's organisation and key wire types",
    },
  ],
  "beacon-data": [
    {
      file: "tracking.ts",
      users: ["beacon-provisioning"],
      why: "track(...) new validators; their lifecycle",
    },
    {
      file: "lifecycle.ts",
      users: ["beacon-provisioning"],
      why: "the lifecycle and beacon status vocabulary",
    },
    { file: "client.ts", users: ["beacon-provisioning"], why: "the one Beacon API client (add-stake)" },
    { file: "schemas.ts", users: ["console"], why: "the console page reads validators and daily rewards" },
    { file: "rates-schemas.ts", users: ["console"], why: "the console page's rate against the network" },
  ],
  "beacon-provisioning": [
    { file: "schemas.ts", users: ["console"], why: "the console page's exits and withdrawal requests" },
  ],
  statements: [{ file: "schemas.ts", users: ["console"], why: "the console page's statements" }],
  "hyperliquid-delegation": [
    {
      file: "rewards.ts",
      users: ["statements"],
      why: "a delegator's daily distributions and withdrawals, the statements' Hyperliquid rows",
    },
  ],
  "solana-stake": [
    { file: "schemas.ts", users: ["console"], why: "the console page's stake accounts" },
    {
      file: "statement-reads.ts",
      users: ["statements"],
      why: "a stake account's credited rewards and withdrawals, the statements' Solana rows",
    },
  ],
  "polygon-rewards": [
    {
      file: "statement-reads.ts",
      users: ["statements"],
      why: "a delegator's days from the ValidatorShare's accounting, the statements' Polygon rows",
    },
  ],
  "sui-rewards": [
    {
      file: "statement-reads.ts",
      users: ["statements"],
      why: "a delegator's epoch rewards and withdrawals, the statements' Sui rows",
    },
  ],
  "gateway-account": [
    { file: "schemas.ts", users: ["dashboard"], why: "the dashboard page speaks the gateway account API" },
  ],
  "gateway-settlement": [
    { file: "funding.ts", users: ["gateway-account"], why: "a party's balance as settlement keeps it" },
    {
      file: "archive.ts",
      users: ["partitions"],
      why: "a month of reservations archived without breaking the ledger check",
    },
  ],
  webhooks: [
    {
      file: "schemas.ts",
      users: ["dashboard", "console"],
      why: "the dashboard and console pages list the owner's webhook endpoints (and deliveries)",
    },
  ],
};

/** Which features own each schema module of db/src/schema (the tables they may query). */
export const SCHEMA_OWNERS: Record<string, string[]> = {
  accounts: ["account-v2", "account-v1"],
  audit: [],
  "beacon-data": ["beacon-data"],
  provisioning: ["beacon-provisioning"],
  gateway: ["gateway-account", "gateway-settlement"],
  polygon: ["polygon-rewards"],
  solana: ["solana-stake"],
  sui: ["sui-rewards"],
  statements: ["statements"],
  webhooks: ["webhooks"],
};

/** Schema modules a feature outside their owners reads, and why (a table read, never a write). */
export const SCHEMA_PORTS: { module: string; users: string[]; why: string }[] = [
  {
    module: "accounts",
    users: ["sui-rewards", "statements"],
    why: "the indexer follows every delegator in an organisation's scope; statement.ready per organisation",
  },
  {
    module: "accounts",
    users: ["console"],
    why: "a console session carries its organisation's scope (the type only; read through the accounts repo)",
  },
  {
    module: "beacon-data",
    users: ["partitions"],
    why: "the indexer's cursor places the beacon_rewards ranges and bounds their retention",
  },
];

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) return filesOf(p);
    return /\.(ts|tsx)$/.test(entry) && !/\.test\.ts$/.test(entry) ? [p] : [];
  });
}

/** What `source` (the text of a file of feature `feature`, at `file`) imports that it may not. */
export function violations(feature: string, file: string, source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2]) as string;
    const schema = /^@stake\/db\/schema\/(.+)$/.exec(spec);
    if (schema) {
      const module = schema[1] as string;
      const owners = SCHEMA_OWNERS[module];
      const ported = SCHEMA_PORTS.some((p) => p.module === module && p.users.includes(feature));
      if (!owners) out.push(`${spec}: name the schema module (owners are declared per module)`);
      else if (!owners.includes(feature) && !ported) out.push(`${spec}: tables of ${owners.join("/")}`);
      continue;
    }
    if (!spec.startsWith(".")) continue;
    const target = path.relative(FEATURES, path.resolve(path.dirname(file), spec));
    if (target.startsWith("..")) continue;
    const [owner, ...rest] = target.split(path.sep);
    if (owner === feature) continue;
    const port = PORTS[owner as string]?.find((p) => p.file === rest.join("/"));
    if (!port?.users.includes(feature)) out.push(`${spec}: not a port of ${owner} declared for ${feature}`);
  }
  return out;
}

describe("feature boundaries", () => {
  it("every feature reaches another only through its declared ports, and only its own tables", () => {
    const found: string[] = [];
    for (const feature of readdirSync(FEATURES)) {
      for (const file of filesOf(path.join(FEATURES, feature))) {
        for (const v of violations(feature, file, readFileSync(file, "utf8")))
          found.push(`${path.relative(ROOT, file)}: ${v}`);
      }
    }
    assert.deepEqual(found, []);
  });

  it("every declared port exists and is used (a port nobody imports is taken off the list)", () => {
    for (const [owner, ports] of Object.entries(PORTS)) {
      for (const p of ports) {
        assert.ok(statSync(path.join(FEATURES, owner, p.file)).isFile(), `${owner}/${p.file}`);
        for (const user of p.users) {
          const uses = filesOf(path.join(FEATURES, user)).some((f) =>
            readFileSync(f, "utf8").includes(`../${owner}/${p.file}`),
          );
          assert.ok(uses, `${user} does not import ${owner}/${p.file}`);
        }
      }
    }
  });

  it("the check refuses a repository, an indexer, a job module or a foreign table", () => {
    const file = path.join(FEATURES, "beacon-provisioning/service.ts");
    const probe = (line: string) => violations("beacon-provisioning", file, line);
    assert.equal(probe(`import { createBeaconDataRepo } from "../beacon-data/repo.ts";`).length, 1);
    assert.equal(probe(`import type { IndexerRepo } from "../beacon-data/indexer-repo.ts";`).length, 1);
    assert.equal(probe(`import { QUEUES } from "../beacon-data/jobs.ts";`).length, 1);
    assert.equal(probe(`import { beaconValidators } from "@stake/db/schema/beacon-data";`).length, 1);
    assert.equal(probe(`import { parties } from "@stake/db/schema/index";`).length, 1);
    assert.deepEqual(probe(`import type { Tracking } from "../beacon-data/tracking.ts";`), []);
    assert.deepEqual(probe(`import { provisions } from "@stake/db/schema/provisioning";`), []);
  });
});
