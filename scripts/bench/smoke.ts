/**
 * Every `npm run bench:*` in its smoke size: the same code path end to end on a tiny load, so a bench that
 * no longer runs (an API it calls changed) fails the suite (tests/scripts/benches-*.test.ts) instead of the
 * next person who measures with it. A bench script without an entry here fails that test too.
 */
import { randomBytes } from "node:crypto";

/**
 * A database of this run's own: checkouts sharing one Postgres run their suites at once. Named as a test
 * database is (its time stamped in), so another run's sweep spares it while it is young and drops it if a
 * killed run leaves it behind (tests/helpers/pg.ts).
 */
export const BENCH_SMOKE_DB = `staking_test_${Date.now().toString(36)}_${randomBytes(6).toString("hex")}`;

export const BENCH_SMOKE: Record<string, Record<string, string>> = {
  "bench:gateway": {
    BENCH_LEVELS: "1",
    BENCH_ROUNDS: "1",
    BENCH_SECONDS: "0.3",
    BENCH_PIN: "off",
  },
  // Against this tree itself: the baseline's code path without a second installed worktree.
  "bench:gateway:baseline": {
    BENCH_BASELINE_DIR: ".",
    BENCH_BASELINE_ROUNDS: "1",
    BENCH_ROUNDS: "1",
    BENCH_SECONDS: "0.3",
    BENCH_PIN: "off",
  },
  "bench:gateway:side-by-side": {
    BENCH_BASELINE_DIR: ".",
    BENCH_ROUNDS: "1",
    BENCH_SECONDS: "0.5",
    BENCH_WARMUP_SECONDS: "0.5",
  },
  "bench:provision": { BENCH_RUNS: "1", BENCH_VALIDATORS: "3" },
  "bench:rewards": { ACCOUNTS: "3", EPOCHS: "3" },
  "bench:sui-rewards": { STAKES: "3", EPOCHS: "3", ROUNDS: "1" },
  "bench:beacon-data": {
    VALIDATORS: "16",
    EPOCHS: "2",
    INDEX_EPOCHS: "1",
    RUNS: "2",
    WARMUP: "1",
    BENCH_DB: BENCH_SMOKE_DB,
    BENCH_RESEED: "1",
  },
  "bench:beacon-consensus": { VALIDATORS: "16", SLOTS: "4", SECONDS_PER_SLOT: "1", EXECUTION: "0" },
  "bench:webhooks": { BENCH_EVENTS: "10" },
  "bench:statements": { VALIDATORS: "10", SMALL: "2", LARGE: "20", RUNS: "1" },
  "bench:settlement": { BENCH_RESERVATIONS: "60", BENCH_PARTIES: "2", BENCH_WORKERS: "1" },
  "bench:ledger-scripts": { BENCH_CALLS: "3", BENCH_ROUNDS: "1" },
  "bench:header-fields": { BENCH_ROUNDS: "1", BENCH_SECONDS: "0.3" },
};
