/** Lodestar for the consensus devnet's tests, its preset (minimal, the devnet's) set first (lodestar.ts). */
export async function loadLodestar() {
  process.env.LODESTAR_PRESET = "minimal";
  return import("./lodestar.ts");
}
