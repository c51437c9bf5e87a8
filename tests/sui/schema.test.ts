import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  buildClientSchema,
  buildSchema,
  type GraphQLSchema,
  isInputObjectType,
  isObjectType,
  isUnionType,
  parse,
  validate,
} from "graphql";
import { SUI_QUERIES } from "../../control-plane/src/features/sui-rewards/client.ts";
import { SUI_GRAPHQL_SUBSET } from "../../devnet/sui/schema.ts";
import { startSuiEnv } from "./setup.ts";

/**
 * Sui's public GraphQL schema as `@mysten/sui` ships it (the introspection its gql.tada types are built
 * from, `dist/graphql/generated/tada-env.d.mts`), read back into a schema.
 */
function suiSchema(): GraphQLSchema {
  const file = fileURLToPath(
    new URL(
      "../../control-plane/node_modules/@mysten/sui/dist/graphql/generated/tada-env.d.mts",
      import.meta.url,
    ),
  );
  const src = readFileSync(file, "utf8");
  const start = src.indexOf("declare const introspection:") + "declare const introspection:".length;
  const end = src.lastIndexOf("};", src.indexOf("//#endregion")) + 1;
  const json = src
    .slice(start, end)
    .replace(/readonly /g, "")
    .replace(/;(\s*[}\]])/g, "$1")
    .replace(/;/g, ",")
    .replace(/([{,]\s*)([A-Za-z_]\w*):/g, '$1"$2":');
  return buildClientSchema(JSON.parse(json));
}

interface FieldShape {
  name: string;
  type: unknown;
  args?: { name: string; type: unknown }[];
}

describe("Sui GraphQL: only standard queries of Sui's public schema", () => {
  const sui = suiSchema();
  const subset = buildSchema(SUI_GRAPHQL_SUBSET);

  it("every query document of the client validates against Sui's full schema", () => {
    for (const [name, doc] of Object.entries(SUI_QUERIES)) {
      const errors = validate(sui, parse(doc));
      assert.deepEqual(
        errors.map((e) => e.message),
        [],
        name,
      );
    }
  });

  it("the simulated node's schema is a subset of Sui's: same types, fields, arguments", () => {
    for (const type of Object.values(subset.getTypeMap())) {
      if (type.name.startsWith("__")) continue;
      const real = sui.getType(type.name);
      assert.ok(real, `type ${type.name} is not in Sui's schema`);
      if (isObjectType(type) || isInputObjectType(type)) {
        assert.ok(isObjectType(real) || isInputObjectType(real), type.name);
        const realFields = real.getFields() as Record<string, FieldShape>;
        for (const field of Object.values(type.getFields()) as FieldShape[]) {
          const r = realFields[field.name];
          assert.ok(r, `${type.name}.${field.name} is not in Sui's schema`);
          assert.equal(String(field.type), String(r.type), `${type.name}.${field.name}`);
          for (const arg of field.args ?? []) {
            const ra: { name: string; type: unknown } | undefined = r.args?.find((a) => a.name === arg.name);
            assert.ok(ra, `${type.name}.${field.name}(${arg.name}) is not in Sui's schema`);
            assert.equal(String(arg.type), String(ra.type), `${type.name}.${field.name}(${arg.name})`);
          }
        }
      }
      if (isUnionType(type)) {
        assert.ok(isUnionType(real));
        const members = new Set(real.getTypes().map((t) => t.name));
        for (const t of type.getTypes()) assert.ok(members.has(t.name), `${type.name} | ${t.name}`);
      }
    }
  });

  it("the client sends exactly these documents (the node logs each operation it serves)", async () => {
    const env = await startSuiEnv();
    try {
      await env.indexer.syncDelegator(env.scenario.validators.operator, null);
      const names = new Set(env.dev.operations);
      const expected = Object.values(SUI_QUERIES).map((d) => /query (\w+)/.exec(d)![1]);
      assert.deepEqual([...names].sort(), [...expected].sort());
    } finally {
      await env.close();
    }
  });
});
