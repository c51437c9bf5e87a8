/**
 * The fields of the rewards API's `cl_breakdown` and `total_cl_breakdown` (docs/spec.md), written out here
 * rather than taken from the source, so a renamed or dropped field fails the tests that read them.
 */
export const CL_BREAKDOWN_FIELDS = [
  "attestation_source",
  "attestation_target",
  "attestation_head",
  "attestation_inactivity",
  "sync_committee",
  "proposer",
  "slashing",
  "unexplained",
  "not_broken_down",
] as const;
export type ClBreakdownField = (typeof CL_BREAKDOWN_FIELDS)[number];

/** A breakdown of all zeros but `not_broken_down` (a node without the rewards endpoints, or nothing indexed). */
export const notBrokenDown = (clReward: string): Record<ClBreakdownField, string> =>
  Object.fromEntries(CL_BREAKDOWN_FIELDS.map((f) => [f, f === "not_broken_down" ? clReward : "0"])) as Record<
    ClBreakdownField,
    string
  >;
