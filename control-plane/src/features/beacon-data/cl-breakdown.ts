import { type SQL, sql } from "drizzle-orm";

/**
 * The parts of a CL reward (our addition; docs/beacon-data.md, "CL reward breakdown"), written once here for
 * the indexer's rows, the daily rollups and the reads: signed Gwei, penalties negative.
 */
export interface ClBreakdown {
  attSource: bigint;
  attTarget: bigint;
  attHead: bigint;
  attInactivity: bigint;
  syncCommittee: bigint;
  proposer: bigint;
  slashing: bigint;
  /** `cl_reward` − the parts above: what the node's report leaves unaccounted for (0 when it agrees). */
  unexplained: bigint;
}

/** Each part: its key, its field in the API, its column in `beacon_rewards` and both rollups. */
export const CL_PARTS = [
  { key: "attSource", field: "attestation_source", column: "cl_att_source_gwei" },
  { key: "attTarget", field: "attestation_target", column: "cl_att_target_gwei" },
  { key: "attHead", field: "attestation_head", column: "cl_att_head_gwei" },
  { key: "attInactivity", field: "attestation_inactivity", column: "cl_att_inactivity_gwei" },
  { key: "syncCommittee", field: "sync_committee", column: "cl_sync_committee_gwei" },
  { key: "proposer", field: "proposer", column: "cl_proposer_gwei" },
  { key: "slashing", field: "slashing", column: "cl_slashing_gwei" },
  { key: "unexplained", field: "unexplained", column: "cl_unexplained_gwei" },
] as const satisfies readonly { key: keyof ClBreakdown; field: string; column: string }[];

/** The rollups' extra column: Σ CL reward of rows without a breakdown, so the parts still sum to it. */
const NOT_BROKEN_DOWN = "cl_not_broken_down_gwei";
const PART_COLUMNS: string[] = CL_PARTS.map((p) => p.column);
/** Every breakdown column of the rollups, in one order. */
const ROLLUP_COLUMNS = [...PART_COLUMNS, NOT_BROKEN_DOWN];
const list = (xs: string[]) => sql.raw(xs.join(", "));
const prefix = (r: string) => (r ? `${r}.` : "");
const named = (exprs: string[], as: boolean) =>
  as ? exprs.map((e, i) => `${e} as ${ROLLUP_COLUMNS[i]}`) : exprs;

/** `beacon_rewards`' breakdown columns, `a, b, …`. */
export const partColumns = list(PART_COLUMNS);
/** The rollups' breakdown columns, `a, b, …` (the order of every expression list below). */
export const rollupColumns = list(ROLLUP_COLUMNS);

/**
 * What `beacon_rewards` rows (alias `r`) add to each rollup column: their parts, or their whole CL reward
 * as not broken down when they have none; each in `agg(…)` when given ("sum", "-sum"), `as` the column.
 */
export function rowParts(r: string, agg = "", as = false): SQL {
  const c = prefix(r);
  const exprs = [
    ...PART_COLUMNS.map((col) => `coalesce(${c}${col}, 0)`),
    `case when ${c}${PART_COLUMNS[0]} is null then ${c}cl_reward_gwei else 0 end`,
  ];
  return list(named(agg ? exprs.map((e) => `${agg}(${e})`) : exprs, as));
}

/** `agg(r.col)` for each rollup column of rollup rows (alias `r`), cast by `cast`, `as` the column. */
export const rollupSums = (r: string, agg = "sum", as = false, cast = "") =>
  list(
    named(
      ROLLUP_COLUMNS.map((col) => `${agg}(${prefix(r)}${col})${cast}`),
      as,
    ),
  );

/** `col = d.col + excluded.col` for each rollup column (the rollups' upsert). */
export const addRollupSums = list(ROLLUP_COLUMNS.map((c) => `${c} = d.${c} + excluded.${c}`));

/**
 * Per epoch, each part of the validators' rows as a text array in validator order, and `broken_down`: which
 * rows have parts.
 */
export const partArrays = list([
  ...PART_COLUMNS.map((c) => `array_agg(coalesce(${c}, 0)::text order by validator_index) as ${c}`),
  // Apart: the driver reads a NULL inside a text array as the text "NULL".
  `array_agg(${PART_COLUMNS[0]} is not null order by validator_index) as broken_down`,
]);

/** The API's breakdown object: every part and `not_broken_down`, Gwei strings; their sum is `cl_reward`. */
export type ClBreakdownJson = Record<(typeof CL_PARTS)[number]["field"] | "not_broken_down", string>;

/** Rollup-shaped sums (column names as keys; strings, numbers or null) as the API's object. */
export function breakdownJson(row: Record<string, unknown>): ClBreakdownJson {
  const out = {} as ClBreakdownJson;
  for (const p of CL_PARTS) out[p.field] = String(row[p.column] ?? 0);
  out.not_broken_down = String(row[NOT_BROKEN_DOWN] ?? 0);
  return out;
}

/**
 * The `i`-th validator's breakdown in an epoch read with `partArrays` (one array per part column), as the
 * API's object: everything not broken down when its row has none.
 */
export function rowBreakdownJson(
  arrays: Record<string, unknown>,
  i: number,
  clReward: string,
): ClBreakdownJson {
  if ((arrays.broken_down as boolean[] | undefined)?.[i] !== true)
    return breakdownJson({ [NOT_BROKEN_DOWN]: clReward });
  return breakdownJson(Object.fromEntries(PART_COLUMNS.map((c) => [c, (arrays[c] as string[])[i]])));
}

/** The column values of a computed breakdown (null: none), in `partColumns` order. */
export const partValues = (b: ClBreakdown | null | undefined): (bigint | null)[] =>
  CL_PARTS.map((p) => (b ? b[p.key] : null));
