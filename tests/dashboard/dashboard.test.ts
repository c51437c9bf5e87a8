import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { eventually } from "../helpers/eventually.ts";
import { send } from "../helpers/http-client.ts";
import { contrastFailures, unlabelledControls } from "./a11y.ts";
import { ensureChromium, launchChromium, screenshots } from "./browser.ts";
import { type DashboardStack, startDashboardStack, watchConsole } from "./stack.ts";

// The gateway account dashboard in a real Chromium, over the real control plane and gateway.
// DASHBOARD_SCREENSHOTS=1 also writes the screenshots shown in docs/gateway.md (docs/dashboard/).
const chromium = ensureChromium();
if ("missing" in chromium) {
  console.error(`\n!!!!! DASHBOARD BROWSER TESTS SKIPPED: ${chromium.missing} !!!!!\n`);
}
const shot = screenshots("dashboard");
const password = "Sup3rSecret";
/** Runs browser-side source in the page (a string: this file is type-checked without the DOM library). */
const inPage = <T = unknown>(page: Page, source: string) => page.evaluate<T>(source);

describe("gateway account dashboard", { skip: "missing" in chromium && chromium.missing }, () => {
  let stack: DashboardStack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** One context per scenario: its own sessionStorage, nothing shared between scenarios. */
  const open = async (options: Parameters<Browser["newContext"]>[0] = {}) => {
    const context = await browser.newContext(options);
    contexts.push(context);
    const page = await context.newPage();
    return { page, errors: watchConsole(page) };
  };

  before(async () => {
    if (!("path" in chromium)) return;
    [stack, browser] = await Promise.all([startDashboardStack(), launchChromium(chromium.path)]);
  });
  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await stack?.close();
  });

  test("sign-up → log-in → party → key → paid request through the gateway → balance, request log, usage, funding, caps; deactivation", async () => {
    const { page, errors } = await open({ permissions: ["clipboard-read", "clipboard-write"] });
    const email = "journey@example.com";
    await page.goto(`${stack.url}/dashboard`);
    await page.getByRole("heading", { name: "Log in to your gateway account" }).waitFor();
    await shot(page, "1-log-in");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await shot(page, "2-sign-up");
    // Sign-up signs in: straight to the account, no second form.
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Gateway account", exact: true }).waitFor();
    const storage = await inPage(page, "[localStorage.length, document.cookie, sessionStorage.key(0)]");
    assert.deepEqual(storage, [0, "", "gateway-dashboard-session"]);
    await page.getByRole("button", { name: "Create party" }).waitFor();
    await shot(page, "3-no-party");

    await page.getByRole("button", { name: "Create party" }).click();
    const partyId = (await page.getByTestId("party-id").textContent()) ?? "";
    assert.match(partyId, /^party_/);
    await stack.fund(partyId, "10", "journey-funding");
    await page.locator("[data-testid=balance]", { hasText: /^10$/ }).waitFor();

    await page.getByLabel("Label (optional)").fill("laptop");
    await page.getByRole("button", { name: "Create API key" }).click();
    const key = await page.getByRole("textbox", { name: "New API key" }).inputValue();
    assert.match(key, /^gwk_/);
    await page.getByText("This is the only time the key is shown").waitFor();
    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByText("Copied.").waitFor();
    assert.equal(await inPage(page, "navigator.clipboard.readText()"), key);
    await shot(page, "4-new-key");
    await page.getByRole("button", { name: "I have stored it" }).click();
    assert.equal(
      await page.getByRole("textbox", { name: "New API key" }).count(),
      0,
      "the raw key is shown once",
    );
    const row = page.getByTestId("key-row");
    assert.equal(await row.count(), 1);
    assert.match((await row.textContent()) ?? "", new RegExp(`^laptop${key.slice(0, 8)}.*active`));
    // The id the operator CLI takes was nowhere on the page.
    // The first characters of the key, as the page names the key beside its label.
    const start = ((await row.locator("td").nth(1).textContent()) ?? "").replace(/…$/, "");
    assert.ok(start.length >= 8 && key.startsWith(start), start);
    const keyId = (await row.getByTestId("key-id").textContent()) ?? "";
    assert.equal(keyId, await row.getAttribute("data-key-id"));
    assert.match(keyId, /^gkid_/);
    await row.getByRole("button", { name: "Copy id of key laptop" }).click();
    assert.equal(await inPage(page, "navigator.clipboard.readText()"), keyId, "the key id is copyable");

    // The try-it box's command, run as printed: a paid request through the real gateway with the new key.
    const curl = (await page.getByTestId("curl").textContent()) ?? "";
    assert.ok(curl.startsWith(`curl -s '${stack.gatewayUrl}/gateway/demo/'`), curl);
    assert.ok(curl.includes(key), "the command carries the key made in this tab");
    // Asynchronously: the gateway answering it runs in this process.
    const { stdout } = await promisify(execFile)("sh", ["-c", curl], { encoding: "utf8", timeout: 10_000 });
    assert.equal(stdout, "paid response");

    // Shown by the page's own refresh: 0.25 USD at 0.5 USD a coin is 0.5 coins reserved.
    await page.locator("[data-testid=reserved]", { hasText: /^0\.5$/ }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByTestId("spendable").textContent(), "9.5");
    // The request log: time, path, HTTP status, latency, status, cost, key (by its label), idempotency key.
    const logged = page.getByTestId("request");
    await logged.first().waitFor({ timeout: 5000 });
    assert.equal(await logged.count(), 1);
    const cells = await logged.first().locator("td").allTextContents();
    assert.deepEqual(cells.slice(1, 3), ["/gateway/demo/", "200"]);
    assert.match(cells[3] ?? "", /^\d+ ms$/);
    assert.deepEqual(cells.slice(4, 7), ["registered", "0.5", `laptop (${start}…)`]);
    assert.match(cells[7] ?? "", /^try-[0-9a-f]{16}$/);
    // A request the provider refuses: logged with its path and 404, released, so it costs nothing.
    const missing = await send(`${stack.gatewayUrl}/gateway/demo/missing?token=secret`, {
      headers: ["x-gateway-api-key", key, "idempotency-key", "missing-1"],
    });
    assert.equal(missing.status, 404);
    // Reserved and released within the request: the balance did not move, so the user refreshes the log.
    await page.getByRole("button", { name: "Refresh request log" }).click();
    await page.locator("[data-testid=request]", { hasText: "/missing" }).waitFor();
    const failedCells = await logged.first().locator("td").allTextContents();
    assert.deepEqual(
      [failedCells[1], failedCells[2], failedCells[4], failedCells[5]],
      ["/gateway/demo/missing", "404", "failed", "0"],
    );

    // Funding history, the coin price and how to get funded.
    const credit = page.getByTestId("credit");
    assert.deepEqual((await credit.first().locator("td").allTextContents()).slice(1, 3), [
      "10",
      "journey-funding",
    ]);
    assert.equal(await page.getByTestId("coin-rate").textContent(), "0.5 USD");
    const howTo = (await page.getByTestId("how-to-fund").textContent()) ?? "";
    assert.ok(howTo.startsWith("To get funded, send the operator") && howTo.includes(partyId), howTo);

    // Usage counts a request once settled or failed: the worker's settlement pass charges the paid one.
    await stack.settle(partyId);
    await page.locator("[data-testid=balance]", { hasText: /^9\.5$/ }).waitFor();
    await page
      .getByTestId("usage-totals")
      .filter({ hasText: /^2 requests from .*: 0\.5 coins charged, 1 failed and released\.$/ })
      .waitFor();
    assert.deepEqual(await page.getByTestId("per-provider").locator("tbody td").allTextContents(), [
      "demo",
      "2",
      "1",
      "0.5",
    ]);
    assert.deepEqual(await page.getByTestId("per-key").locator("tbody td").allTextContents(), [
      `laptop (${start}…)`,
      "2",
      "1",
      "0.5",
    ]);
    const chart = page.getByTestId("usage-chart");
    assert.equal(await chart.locator("rect").count(), 1, "one day with a charge: one bar");
    assert.match(
      (await chart.locator("desc").textContent()) ?? "",
      /the most, 0\.5 coins, on \d{4}-\d{2}-\d{2}\./,
    );
    await page.getByText("Daily figures").click();
    await page.locator("[data-testid=request]", { hasText: "settled" }).waitFor();

    // Spend caps: a daily cap of what was spent today stops the next paid request with 402.
    await page
      .getByTestId("spent-today")
      .filter({ hasText: /^0\.5$/ })
      .waitFor();
    await page.getByLabel("Daily cap (coins)").fill("0.5");
    await page.getByRole("button", { name: "Save caps" }).click();
    const settings = page.getByRole("region", { name: "Limits and alerts" });
    await settings.getByText("Saved.").waitFor();
    const capped = await eventually(
      async () => {
        const r = await send(`${stack.gatewayUrl}/gateway/demo/`, {
          headers: ["x-gateway-api-key", key, "idempotency-key", `capped-${Date.now()}`],
        });
        return r.status === 402 && r;
      },
      { what: "the gateway applies the daily cap" },
    );
    assert.equal(capped.body.toString(), JSON.stringify({ message: "Spend cap reached" }));
    await page.getByLabel("Alert below (coins)").fill("9.25");
    // Its answer awaited: the reload below would otherwise abort a save still in flight on a busy machine.
    const alertSaved = page.waitForResponse(
      (r) => r.url().endsWith("/api/balance/low-threshold") && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Save alert" }).click();
    assert.equal((await alertSaved).status(), 200, "the alert is saved");
    await page.getByLabel("Alert below (coins)").press("Tab");
    await page.getByLabel("Monthly cap (coins)").fill("not a number");
    await page.getByRole("button", { name: "Save caps" }).click();
    await settings
      .getByRole("alert")
      .filter({ hasText: /Invalid monthly/i })
      .waitFor();
    assert.deepEqual(await unlabelledControls(page), []);
    assert.deepEqual(await contrastFailures(page), []);
    await shot(page, "5-account");
    await shot(page.getByRole("region", { name: "Usage" }), "10-usage");
    await shot(page.getByRole("region", { name: "Request log" }), "11-request-log");
    await shot(settings, "12-limits");
    // Read back after a reload: what the API holds, not what the form kept.
    await page.reload();
    await page.getByTestId("spent-today").waitFor();
    await eventually(async () => (await page.getByLabel("Daily cap (coins)").inputValue()) === "0.5", {
      what: "the daily cap read back",
    });
    // The caps and the alert come from two requests: each is waited for.
    await eventually(async () => (await page.getByLabel("Alert below (coins)").inputValue()) === "9.25", {
      what: "the alert read back",
    });
    assert.equal(await page.getByLabel("Monthly cap (coins)").inputValue(), "");
    await page.setViewportSize({ width: 375, height: 740 });
    const width = await inPage<number>(page, "document.documentElement.scrollWidth");
    assert.ok(width <= 375, `no sideways scrolling on a phone with every view filled (${width}px)`);
    await page.setViewportSize({ width: 1280, height: 720 });
    // On a laptop's 1280 px no table needs its sideways scroll (the phone may).
    const overflowing = await inPage<string[]>(
      page,
      `[...document.querySelectorAll(".scroll")].filter((e) => e.scrollWidth > e.clientWidth + 1)
        .map((e) => (e.closest("section")?.querySelector("h2")?.textContent ?? "?") + ": " + e.scrollWidth + " > " + e.clientWidth)`,
    );
    assert.deepEqual(overflowing, [], "every table fits at 1280 px with every view filled");

    await page.getByRole("button", { name: /^Deactivate key gwk_/ }).click();
    const dialog = page.getByRole("dialog", { name: /Deactivate key gwk_/ });
    await dialog.waitFor();
    assert.equal(await inPage(page, "document.activeElement?.textContent"), "Cancel");
    // The modal backdrop covers the viewport only: a full-page picture would show it cut off.
    await shot(page, "6-confirm-deactivate", false);
    await dialog.getByRole("button", { name: "Deactivate key" }).click();
    await page.locator("[data-testid=key-row]", { hasText: "deactivated" }).waitFor();
    assert.equal(await page.getByRole("dialog").count(), 0);

    // The gateway refuses the key within a second (cache invalidation by pub/sub).
    const deadline = Date.now() + 2000;
    let refused: Awaited<ReturnType<typeof send>>;
    do {
      refused = await send(`${stack.gatewayUrl}/gateway/demo/`, {
        headers: ["x-gateway-api-key", key, "idempotency-key", `after-${Date.now()}`],
      });
    } while (refused.status !== 403 && Date.now() < deadline);
    assert.deepEqual(
      [refused.status, refused.body.toString()],
      [403, JSON.stringify({ message: "API Key is no longer active" })],
    );
    // Chromium logs every 4xx answer; the one to the invalid cap above was asked for (the API validates).
    const invalidCap = /status of 400 \(Bad Request\) @ .*\/api\/party\/spend-caps$/;
    assert.equal(errors.filter((e) => invalidCap.test(e)).length, 1, errors.join("\n"));
    assert.deepEqual(
      errors.filter((e) => !invalidCap.test(e)),
      [],
    );
  });

  test("wrong password, duplicate sign-up, weak password and an expired token each show their message", async () => {
    const { page } = await open();
    const email = "errors@example.com";
    const { userId } = await stack.signup(email, password);
    await page.goto(`${stack.url}/dashboard`);

    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("Wrong-passw0rd");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").filter({ hasText: "Wrong e-mail or password." }).waitFor();
    await shot(page, "7-wrong-password");

    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "Invalid password: Must be at least 8 characters" })
      .waitFor();
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "An account with this e-mail already exists. Log in instead." })
      .waitFor();

    // A token past its expiry, signed with the deployment's own secret: the API answers 401 Invalid token.
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setIssuer("stake-gateway-account")
      .setAudience("stake-gateway-account-api")
      .setIssuedAt(now - 1000)
      .setExpirationTime(now - 100)
      .sign(new TextEncoder().encode(stack.config.gatewayAccount.jwtSecret));
    const session = JSON.stringify({ token: expired, email: "x@y.z" });
    await inPage(page, `sessionStorage.setItem("gateway-dashboard-session", ${JSON.stringify(session)})`);
    await page.reload();
    await page.getByText("Your session has expired or is no longer valid. Log in again.").waitFor();
    await page.getByRole("heading", { name: "Log in to your gateway account" }).waitFor();
    assert.equal(await inPage(page, "sessionStorage.length"), 0, "the dead token is forgotten");
  });

  test("the CSP blocks an injected inline script and an external origin", async () => {
    const { page, errors } = await open();
    const response = await page.goto(`${stack.url}/dashboard`);
    assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self';/);
    await page.getByRole("heading", { name: "Log in to your gateway account" }).waitFor();
    const outcome = await inPage(
      page,
      `(async () => {
        const violations = [];
        document.addEventListener("securitypolicyviolation", (e) => violations.push(e.effectiveDirective));
        const script = document.createElement("script");
        script.textContent = "window.injected = true";
        document.body.append(script);
        const outside = await fetch("https://example.com/").then(() => "reached", () => "blocked");
        await new Promise((r) => setTimeout(r, 100));
        return { ran: "injected" in window, outside, violations };
      })()`,
    );
    assert.deepEqual(outcome, {
      ran: false,
      outside: "blocked",
      violations: ["script-src-elem", "connect-src"],
    });
    // Chromium logs each refusal, the fetch one twice (the violation and the failed load).
    assert.ok(errors.length >= 2, errors.join("\n"));
    assert.ok(
      errors.every((e) => /Content Security Policy/.test(e)),
      errors.join("\n"),
    );
  });

  test("accessible: labels, keyboard-only use, focus, AA contrast, phone width", async () => {
    const { page, errors } = await open({ viewport: { width: 375, height: 740 } });
    const email = "keyboard@example.com";
    await stack.signup(email, password);
    await page.goto(`${stack.url}/dashboard`);
    await page.getByRole("heading", { name: "Log in to your gateway account" }).waitFor();
    assert.deepEqual(await unlabelledControls(page), []);
    assert.deepEqual(await contrastFailures(page), []);
    const focused = () => inPage(page, "document.activeElement?.id || document.activeElement?.textContent");

    // Keyboard only: the screen's heading has focus; Tab, type, Tab, type, Enter.
    assert.equal(await focused(), "Log in to your gateway account");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "login-email");
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Create party" }).waitFor();
    assert.equal(await focused(), "Gateway account");
    for (let i = 0; i < 10 && (await focused()) !== "Create party"; i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByTestId("party-id").waitFor();
    for (let i = 0; i < 40 && (await focused()) !== "Create API key"; i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("textbox", { name: "New API key" }).waitFor();
    assert.equal(await focused(), "new-key", "focus moves to the new key");
    await page.getByRole("button", { name: "I have stored it" }).press("Enter");
    assert.equal(await focused(), "keys-title", "focus returns to the keys heading");
    await page.getByTestId("balance").waitFor();

    assert.deepEqual(await unlabelledControls(page), []);
    assert.deepEqual(await contrastFailures(page), []);
    const width = await inPage<number>(page, "document.documentElement.scrollWidth");
    assert.ok(width <= 375, `no sideways scrolling on a phone (${width}px)`);
    await shot(page, "8-phone");
    assert.deepEqual(errors, []);
  });

  test("429 from the API reads as a message on the form", async () => {
    const limited = await startDashboardStack({ GATEWAY_ACCOUNT_RATE_LIMIT: "2" });
    try {
      const { page } = await open();
      await page.goto(`${limited.url}/dashboard`);
      for (let i = 0; i < 3; i++) {
        await page.getByLabel("E-mail").fill("nobody@example.com");
        await page.getByLabel("Password").fill("Wrong-passw0rd");
        await page.getByRole("button", { name: "Log in" }).click();
        await page.getByRole("button", { name: "Log in" }).waitFor();
      }
      await page
        .getByRole("alert")
        .filter({ hasText: /^Too many requests\. Try again in \d+ seconds\.$/ })
        .waitFor();
      await shot(page, "9-rate-limited");
    } finally {
      await limited.close();
    }
  });
});
