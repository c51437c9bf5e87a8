import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import request from "supertest";
import { contrastFailures, unlabelledControls } from "../dashboard/a11y.ts";
import { ensureChromium, launchChromium, screenshots } from "../dashboard/browser.ts";
import { watchConsole } from "../dashboard/stack.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { seedEthereum, seedRollups } from "../statements/seed.ts";

// The organisations' console in a real Chromium over the real control plane (Postgres, Redis, the webhook
// worker and a receiver): October 2026 of indexed Ethereum data for one organisation (and a third one's, so the
// network is more than it), nothing for another.
// DASHBOARD_SCREENSHOTS=1 also writes the screenshots of docs/console.md (docs/console/).
const chromium = ensureChromium();
if ("missing" in chromium)
  console.error(`\n!!!!! CONSOLE BROWSER TESTS SKIPPED: ${chromium.missing} !!!!!\n`);
const shot = screenshots("console");
const MONTH = "2026-10";

type Rates = Record<`${"cl" | "el" | "total"}_${7 | 30}d`, number | null>;
type RateDay = { date: string; organisation: Rates; network: Rates; validator?: Rates };

describe("organisations' console", { skip: "missing" in chromium && chromium.missing }, () => {
  let h: ControlPlaneHarness;
  let server: Server;
  let url: string;
  let browser: Browser;
  let jobs: Awaited<ReturnType<typeof startJobs>>;
  let receiver: Receiver;
  let full: TestOrganisation;
  let empty: TestOrganisation;
  const contexts: BrowserContext[] = [];

  before(async () => {
    if (!("path" in chromium)) return;
    [h, browser, receiver] = await Promise.all([
      createControlPlaneHarness({ WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32" }),
      launchChromium(chromium.path),
      startReceiver(),
    ]);
    server = createServer(h.app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    jobs = await startJobs(h, ["webhook-delivery"]);
    let other: TestOrganisation;
    [full, empty, other] = await Promise.all([
      makeOrganisation(h.db),
      makeOrganisation(h.db),
      makeOrganisation(h.db),
    ]);
    // Three validators of a third organisation: the network's rate is not the organisation's own.
    await seedEthereum(h, 8, [...Array(5).fill(full.id), ...Array(3).fill(other.id)]);
    await seedRollups(h);
  });
  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await jobs?.close();
    await receiver?.close();
    await h?.close();
  });

  /** A fresh context (its own sessionStorage), every request the page sends recorded. */
  const open = async (options: Parameters<Browser["newContext"]>[0] = {}) => {
    const context = await browser.newContext({ acceptDownloads: true, ...options });
    contexts.push(context);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on("request", (r) => sent.push(`${r.method()} ${new URL(r.url()).pathname}`));
    return { page, sent, errors: watchConsole(page) };
  };
  const signIn = async (page: Page, org: TestOrganisation, password = org.password) => {
    await page.goto(`${url}/console`);
    await page.getByRole("heading", { name: "Sign in to the staking console" }).waitFor();
    await page.getByLabel("E-mail").fill(org.email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  };
  const view = async (page: Page, name: string, heading: string) => {
    await page.getByRole("navigation", { name: "Console views" }).getByRole("button", { name }).click();
    await eventually(
      () => page.evaluate<boolean>(`document.activeElement?.textContent === ${JSON.stringify(heading)}`),
      { what: `focus on the ${heading} heading` },
    );
  };
  const accessible = async (page: Page, where: string) => {
    assert.deepEqual(await unlabelledControls(page), [], `unlabelled controls (${where})`);
    assert.deepEqual(await contrastFailures(page), [], `contrast (${where})`);
  };

  test("sign-in failure: said in words, announced, no session kept", async () => {
    const { page, errors } = await open();
    await signIn(page, full, "Wr0ngPassword");
    const alert = page.getByRole("alert");
    await alert.filter({ hasText: "Wrong e-mail or password." }).waitFor();
    assert.equal(await page.evaluate<number>("sessionStorage.length"), 0);
    await accessible(page, "sign-in");
    await shot(page, "1-sign-in-failed");
    assert.deepEqual(
      errors.filter((e) => !e.includes("401")),
      [],
    );
  });

  test("an empty organisation at phone width: every view says there is nothing yet, nothing overflows", async () => {
    const { page, errors } = await open({ viewport: { width: 390, height: 844 } });
    await signIn(page, empty);
    await page.getByTestId("empty-validators").waitFor();
    await page.getByText("No Solana wallet is in your organisation's scope").waitFor();
    await accessible(page, "empty validators");
    const overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth";
    assert.equal(await page.evaluate<number>(overflow), 0, "no sideways scroll at 390 px");
    await shot(page, "2-empty-organisation-phone");
    await view(page, "Rewards", "Rewards over time");
    await page.getByLabel("Month (UTC)").fill(MONTH);
    await page.getByText(`No Ethereum rewards are indexed for your validators in ${MONTH}.`).waitFor();
    // No rate of its own and nothing to pick: the network's lines alone (the other organisations' validators).
    await page.getByTestId("rates-no-validators").waitFor();
    await page.getByTestId("rates-chart").waitFor();
    assert.equal(await page.locator("[data-testid=rates-chart] [data-series^=mine]").count(), 0);
    assert.equal(await page.locator("[data-testid=rates-chart] [data-series^=network]").count(), 2);
    assert.equal(await page.getByLabel("Rates of").count(), 0);
    await accessible(page, "empty rates");
    await view(page, "Statements", "Statements");
    await page.getByLabel("Month (UTC)").fill(MONTH);
    await page.getByText(`No statement rows for ethereum in ${MONTH}`).waitFor();
    await view(page, "Exits and withdrawals", "Exits and withdrawals");
    await page.getByText("Your organisation has no validators to exit or withdraw from.").waitFor();
    await view(page, "Webhooks", "Webhooks");
    await page.getByText("No webhook endpoints yet.").waitFor();
    assert.equal(await page.evaluate<number>(overflow), 0);
    assert.deepEqual(errors, []);
  });

  test("an organisation with data: validators, the rewards chart, statements and their CSV, webhooks, keys; sign-out", async () => {
    // A webhook endpoint with one delivered test event, made with the organisation's key.
    const endpoint = await request(h.app)
      .post("/api/webhooks/endpoints")
      .set("api-key", full.apiKey)
      .send({ url: receiver.url, description: "finance" });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    await request(h.app).post(`/api/webhooks/endpoints/${endpoint.body.id}/test`).set("api-key", full.apiKey);
    await eventually(() => receiver.received.length === 1, { what: "the test event delivered" });

    const { page, sent, errors } = await open();
    await signIn(page, full);
    const rows = page.locator("table tbody tr");
    await eventually(async () => (await rows.count()) === 5, { what: "five validators listed" });
    assert.match((await rows.first().textContent()) ?? "", /active ongoing/);
    await accessible(page, "validators");
    await shot(page, "3-validators");

    // The chart: one stacked bar a day, and the daily table equal to the API's own sums.
    await view(page, "Rewards", "Rewards over time");
    await page.getByLabel("Month (UTC)").fill(MONTH);
    await page
      .getByTestId("rewards-chart")
      .filter({ hasText: `Daily rewards, ${MONTH}` })
      .waitFor();
    assert.equal(await page.locator("[data-testid=rewards-chart] g[data-date]").count(), 31);
    assert.ok((await page.locator("[data-testid=rewards-chart] rect").count()) > 31);
    await page.getByText("Daily figures (ETH)").click();
    const api = await request(h.app)
      .get("/api/rewards/date")
      .query({ start_date: `${MONTH}-01`, end_date: `${MONTH}-01`, interval: "1d" })
      .set("api-key", full.apiKey);
    const day1 = api.body.interval_summary[0].validators as { cl_reward: string; mev_reward: string }[];
    const cl = day1.reduce((a, v) => a + BigInt(v.cl_reward), 0n);
    const mev = day1.reduce((a, v) => a + BigInt(v.mev_reward), 0n);
    const first = await page
      .getByRole("row", { name: new RegExp(`^${MONTH}-01`) })
      .locator("td")
      .allTextContents();
    const eth = (g: bigint) => (Number(g) / 1e9).toString();
    assert.equal(first[0], eth(cl));
    assert.equal(first[2], eth(mev));
    await accessible(page, "rewards");
    await shot(page, "4-rewards-chart");

    // Rates against the network: each line draws exactly the days the API gives a rate for, the others
    // are gaps said in words (the seed's index starts 2026-09-30: a 7-day window from 10-06, a 30-day one
    // from 10-29), and the table holds the API's figures as they are.
    const ratesOf = async (validator?: string) => {
      const res = await request(h.app)
        .get("/api/rates")
        .query({ from: `${MONTH}-01`, to: `${MONTH}-31`, ...(validator ? { validator } : {}) })
        .set("api-key", full.apiKey);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as RateDay[];
    };
    const org = await ratesOf();
    const chart = page.getByTestId("rates-chart");
    await chart.filter({ hasText: `Reward rates, your validators against the network, ${MONTH}` }).waitFor();
    const drawn = async (series: string) =>
      Number(await chart.locator(`[data-series=${series}]`).getAttribute("data-drawn"));
    const having = (pick: (d: RateDay) => number | null) => org.filter((d) => pick(d) !== null).length;
    assert.equal(
      having((d) => d.organisation.total_7d),
      26,
    );
    assert.equal(
      having((d) => d.organisation.total_30d),
      3,
    );
    assert.equal(await drawn("mine-7"), 26);
    assert.equal(await drawn("mine-30"), 3);
    assert.equal(
      await drawn("network-7"),
      having((d) => d.network.total_7d),
    );
    assert.equal(
      await drawn("network-30"),
      having((d) => d.network.total_30d),
    );
    const gaps = page.getByTestId("rate-gaps");
    await gaps.getByText(`Not enough data for a 30-day rate yet from ${MONTH}-01 to ${MONTH}-28`).waitFor();
    await gaps.getByText(`Not enough data for a 7-day rate yet from ${MONTH}-01 to ${MONTH}-05`).waitFor();
    await page.getByText("Daily rates (percent a year)").click();
    const table = page.getByTestId("rates-table");
    const cells = (day: string) =>
      table
        .getByRole("row", { name: new RegExp(`^${day}`) })
        .locator("td")
        .allTextContents();
    const shown = (r: Rates) =>
      [r.total_7d, r.cl_7d, r.el_7d].map((v) => (v === null ? "—not enough data" : String(v)));
    const last = org.at(-1)!;
    assert.notEqual(last.network.total_7d, last.organisation.total_7d);
    assert.deepEqual((await cells(`${MONTH}-31`)).slice(0, 3), shown(last.organisation));
    assert.equal((await cells(`${MONTH}-31`))[3], String(last.network.total_7d));
    assert.deepEqual(
      await cells(`${MONTH}-01`),
      Array(8).fill("—not enough data"),
      "nulls are words, not zeros",
    );
    await accessible(page, "rates");
    await shot(page.locator("section[aria-labelledby=rates-title]"), "4b-rates-chart");

    // The picker: one validator's rates in place of the organisation's.
    const two = (await ratesOf("2")).at(-1)!.validator!;
    assert.notDeepEqual(two, last.organisation);
    await page.getByLabel("Rates of").selectOption("2");
    await chart.filter({ hasText: `Reward rates, validator 2 against the network, ${MONTH}` }).waitFor();
    await page.getByText("Daily rates (percent a year)").click();
    await eventually(
      async () => {
        const now = (await cells(`${MONTH}-31`)).slice(0, 3);
        return JSON.stringify(now) === JSON.stringify(shown(two));
      },
      { what: "validator 2's rates in the table" },
    );
    assert.equal(await drawn("mine-30"), 3);

    // Statements: the totals equal the JSON's, the downloaded CSV equals the API's CSV byte for byte.
    await view(page, "Statements", "Statements");
    await page.getByLabel("Month (UTC)").fill(MONTH);
    const statement = await request(h.app)
      .get("/api/statements")
      .query({ month: MONTH, chain: "ethereum" })
      .set("api-key", full.apiKey);
    await page
      .getByTestId("statement-totals")
      .filter({ hasText: statement.body.totals.earned_tokens })
      .waitFor();
    assert.match(
      (await page.locator("caption").textContent()) ?? "",
      new RegExp(`^${statement.body.total} rows`),
    );
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `statement-ethereum-${MONTH}.csv`);
    const csv = await request(h.app)
      .get("/api/statements.csv")
      .query({ month: MONTH, chain: "ethereum" })
      .set("api-key", full.apiKey);
    assert.equal(await readFile((await download.path())!, "utf8"), csv.text);
    assert.ok(csv.text.split("\r\n").length > 150);
    await page.getByText(`Downloaded statement-ethereum-${MONTH}.csv.`).waitFor();
    await accessible(page, "statements");
    await shot(page, "5-statements");

    // An exit refused at its confirmation, then a withdrawal request likewise: nothing reaches the API.
    await view(page, "Exits and withdrawals", "Exits and withdrawals");
    const boxes = page.getByRole("checkbox");
    await eventually(async () => (await boxes.count()) === 5, { what: "the validators to exit" });
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole("button", { name: "Exit selected validators…" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Exit these validators?" });
    await dialog.waitFor();
    assert.equal(await dialog.locator("li").count(), 2);
    assert.equal(await page.evaluate<string>("document.activeElement.textContent"), "Cancel");
    await accessible(page, "exit confirmation");
    await shot(page, "6-exit-confirmation");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await page.getByTestId("exit-outcome").filter({ hasText: "Cancelled: nothing was sent." }).waitFor();
    await page.getByLabel("Amount (ETH)").fill("1.5");
    await page.getByRole("button", { name: "Prepare withdrawal request…" }).click();
    await page.getByRole("alertdialog", { name: "Prepare this withdrawal request?" }).waitFor();
    assert.equal(await page.evaluate<string>("document.activeElement.textContent"), "Cancel");
    await page.keyboard.press("Escape");
    await page.getByTestId("exit-outcome").filter({ hasText: "Cancelled: nothing was sent." }).waitFor();
    assert.deepEqual(
      sent.filter((s) => s.startsWith("POST /api/validators/")),
      [],
      "no exit or withdrawal request was sent",
    );

    // Webhooks: the endpoint and its delivery log.
    await view(page, "Webhooks", "Webhooks");
    await page.getByText(receiver.url, { exact: true }).waitFor();
    await page.getByRole("button", { name: `Show deliveries of ${receiver.url}` }).click();
    const delivery = page.getByRole("row", { name: /webhook\.test/ });
    await delivery.waitFor();
    assert.match((await delivery.textContent()) ?? "", /delivered.*200/);
    await accessible(page, "webhooks");
    await shot(page, "7-webhooks");

    // Keys: one made here works against the API, shown once; revoked after a confirmation.
    await view(page, "API keys", "API keys");
    await page.getByLabel("Label").fill("reporting");
    await page.getByRole("button", { name: "Create API key" }).click();
    const key = await page.getByLabel("New API key (shown once)").inputValue();
    const withKey = await request(h.app).get("/api/validators/list").set("api-key", key);
    assert.equal(withKey.status, 200);
    assert.equal(withKey.body.total, 5);
    await accessible(page, "keys");
    await shot(page, "8-api-keys");
    await page.getByRole("button", { name: "Revoke reporting" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
    await eventually(
      async () => (await request(h.app).get("/api/validators/list").set("api-key", key)).status === 401,
      { what: "the revoked key refused" },
    );

    // Sign-out: the token the tab held is refused by the API from now on.
    const token = await page.evaluate<string>(
      `JSON.parse(sessionStorage.getItem("staking-console-session")).token`,
    );
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You are signed out.").waitFor();
    const refused = await request(h.app).get("/api/validators/list").set("authorization", `Bearer ${token}`);
    assert.equal(refused.status, 401);
    assert.deepEqual(errors, []);
  });
});
