import { PresetName, setActivePreset } from "@lodestar/params/setPreset";

/**
 * The devnet runs Lodestar's `minimal` preset (8 slots an epoch, 32-member sync committees, 4-member beacon
 * committees): small enough for 64 validators at 2-second slots. Lodestar fixes its preset when
 * `@lodestar/params` is first loaded, so this module must be imported before anything that loads it
 * (`@lodestar/types`, `@lodestar/api`, ...): the devnet's consensus modules import it first. That holds
 * where modules load as written (tsx); in a bundle, a package's chunk is evaluated before the importing
 * module's own code, so an entry that may be bundled sets LODESTAR_PRESET before it imports these modules
 * dynamically (devnet/beacon/main.ts, tests/beacon-consensus/load.ts). config.ts checks the outcome.
 */
if (process.env.LODESTAR_PRESET === undefined) {
  process.env.LODESTAR_PRESET = PresetName.minimal;
  try {
    setActivePreset(PresetName.minimal);
  } catch {
    // Already frozen: config.ts checks the preset in force and says so.
  }
}
