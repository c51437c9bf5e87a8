// `npm run test:under-load`: the README's test command (`npm test`) while busy processes, one per core,
// compete for every CPU, as on a shared CI machine. Plain JavaScript: it runs before any install.
// RUNS (default 1) runs one after another; the exit code is the first failed run's, and each run's time
// is printed. The busy processes die with this one: killed on exit, and each checks now and then that its
// parent is still this one (when this one is SIGKILLed it is not).
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const runs = Number(process.env.RUNS ?? 1);
const busy = Array.from({ length: availableParallelism() }, () =>
  spawn(
    process.execPath,
    ["-e", `let i = 0; for (;;) if (++i % 5e7 === 0 && process.ppid !== ${process.pid}) process.exit();`],
    { stdio: "ignore" },
  ),
);
const stop = () => {
  for (const b of busy) b.kill("SIGKILL");
};
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => process.exit(130));

const times = [];
let code = 0;
for (let i = 1; i <= runs && code === 0; i++) {
  console.error(`\n### under load (${busy.length} busy processes): run ${i} of ${runs}`);
  const t = Date.now();
  const r = spawnSync("npm", ["test"], { cwd: ROOT, stdio: "inherit" });
  code = r.status ?? 1;
  times.push(`${((Date.now() - t) / 1000).toFixed(0)} s${code === 0 ? "" : " (failed)"}`);
}
console.error(`\n### npm test under load: ${times.join(", ")}`);
process.exit(code);
