import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/**
 * Debian's chromium, installed with apt-get when missing (the test machine and CI run as root). Where it
 * cannot be installed the caller skips, saying so loudly: never a silent pass.
 */
export function ensureChromium(): { path: string } | { missing: string } {
  if (existsSync(CHROMIUM)) return { path: CHROMIUM };
  const apt = (args: string[]) =>
    spawnSync("apt-get", args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  console.error(`[dashboard tests] ${CHROMIUM} is missing: installing Debian's chromium with apt-get…`);
  let r = apt(["install", "-y", "-qq", "chromium"]);
  if (r.status !== 0) {
    apt(["update", "-qq"]);
    r = apt(["install", "-y", "-qq", "chromium"]);
  }
  if (existsSync(CHROMIUM)) return { path: CHROMIUM };
  return { missing: `chromium could not be installed (apt-get exit ${r.status ?? r.error?.message})` };
}

/** One headless browser for the whole file; every scenario opens its own context. */
export async function launchChromium(path: string): Promise<Browser> {
  // Root (CI, this machine) cannot use Chromium's user-namespace sandbox.
  return chromium.launch({ executablePath: path, args: ["--no-sandbox", "--disable-gpu"] });
}

/**
 * Screenshots into `docs/<folder>/` when DASHBOARD_SCREENSHOTS=1 (the pages' docs show them), nothing
 * otherwise: a whole page, or one element.
 */
export function screenshots(folder: string) {
  const dir =
    process.env.DASHBOARD_SCREENSHOTS === "1" ? new URL(`../../docs/${folder}/`, import.meta.url) : null;
  return async (target: Page | Locator, name: string, fullPage = true) => {
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    const path = new URL(`${name}.png`, dir).pathname;
    await ("goto" in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path }));
  };
}
