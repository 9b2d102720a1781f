import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvokeCommand, LambdaClient, ResourceNotFoundException } from "@aws-sdk/client-lambda";
import { GetQueueAttributesCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { attemptKey, DEFAULT_SHARDS, shardOf } from "../../../functions/adapters/table/billing-table";
import type { LocalStack } from "../../../local/stack/local-stack";
import type { runCli as RunCli } from "../../support/cli-run";
import { startRecordingServer } from "../../support/recording-server";

// `npx billing …` against a local stack, in this process: reads, a charge run on the stack's clock, the clock,
// reconciliation, the dead-letter queues, and the errors an operator meets.

// Read when the handlers' logger and metrics load: set before the stack and the CLI are imported.
process.env.POWERTOOLS_LOG_LEVEL = "ERROR";
process.env.POWERTOOLS_METRICS_DISABLED = "true";
const { runCli }: { runCli: typeof RunCli } = await import("../../support/cli-run");

const START = new Date("2027-03-01T10:00:00Z");
const card = (number: string) => ({ number, expiry: "203012", cvc: "123" });

const subscriptionList = z.object({
  subscriptions: z.array(
    z.looseObject({ subscription_id: z.string(), status: z.string(), next_charge_at: z.string().nullable() }),
  ),
  next_cursor: z.string().nullable(),
});
const chargeList = z.object({
  charges: z.array(z.looseObject({ charge_id: z.string(), period: z.number(), status: z.string() })),
});
/** What an expected error gives: its message on stderr, nothing on stdout, exit 1. */
const refused = (message: string) => ({ code: 1, stdout: "", stderr: `billing: ${message}\n` });
const noSubscription =
  "no subscription sub_missing at this target: find its id with subscriptions list (--external-id <id> for a customer's)";
const eventList = z.object({
  events: z.array(z.looseObject({ event_id: z.string(), type: z.string() })),
  more: z.boolean(),
});
const dlqList = z.object({ queue: z.string(), messages: z.array(z.looseObject({ body: z.string() })) });

describe("ops CLI on the local stack", () => {
  let local: LocalStack;
  let dir: string;
  let outputsFile: string;
  const ids: string[] = [];

  const cli = (...args: string[]) => runCli(["--local-outputs", outputsFile, ...args]);
  const json = async <T>(schema: z.ZodType<T>, ...args: string[]) => {
    const run = await cli(...args, "--json");
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
    return schema.parse(JSON.parse(run.stdout));
  };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${local.url}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${local.apiKey}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  };
  const signUp = async (email: string) => {
    const created = await call("POST", "/v1/subscriptions", {
      customer: {
        name: "CLI Customer",
        email,
        ...(email === "a@example.com" ? { external_id: "acct_cli" } : {}),
      },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: card("4111111111111111"),
    });
    expect(created.status).toBe(201);
    return z.object({ subscription_id: z.string() }).parse(created.json).subscription_id;
  };
  const queueDepth = async (queueUrl: string) => {
    const reply = await local.stack.sqs.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      }),
    );
    return Number(reply.Attributes?.ApproximateNumberOfMessages ?? 0);
  };

  beforeAll(async () => {
    const { LocalStack } = await import("../../../local/stack/local-stack");
    // Weekly fires while jumping keep the month's jump short; the charge run still fires at each jump's end.
    local = await LocalStack.start({
      port: 0,
      sandboxPort: 0,
      realTime: false,
      start: START,
      jumpResolution: "P7D",
    });
    dir = await mkdtemp(join(tmpdir(), "billing-cli-"));
    outputsFile = join(dir, "outputs.json");
    await writeFile(outputsFile, JSON.stringify(local.outputs()));
    // Off the hour: the hourly charge run (anchored at START) must not be the one that finds them due.
    await local.advanceClock("PT30M");
    for (const email of ["a@example.com", "b@example.com", "c@example.com"]) ids.push(await signUp(email));
    const canceled = await call("DELETE", `/v1/subscriptions/${ids[2]}`);
    expect(canceled.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lists subscriptions as a table and as JSON, filtered by status", async () => {
    const table = await cli("subscriptions", "list");
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+PLAN\s+PAID UNTIL\s+NEXT CHARGE\s+CARD\s+EXTERNAL ID$/);
    expect(lines).toHaveLength(5); // header, rule, 3 subscriptions
    expect(table.stdout).toContain("19.90 USD / 1 mo");
    expect(table.stdout).toContain("…1111");
    // Times in the one form: UTC to the minute, the zone stated.
    expect(table.stdout).toContain("2027-04-01 10:30Z");
    expect(table.stdout).not.toContain("4111111111111111");

    const all = await json(subscriptionList, "subscriptions", "list");
    expect(all.subscriptions.map((s) => s.subscription_id).sort()).toEqual([...ids].sort());
    const active = await json(subscriptionList, "subscriptions", "list", "--status", "active");
    expect(active.subscriptions.map((s) => s.subscription_id).sort()).toEqual([ids[0], ids[1]].sort());
    expect(active.subscriptions.every((s) => s.next_charge_at === "2027-04-01T10:30:00.000Z")).toBe(true);
    const limited = await json(subscriptionList, "subscriptions", "list", "--limit", "1");
    expect(limited.subscriptions).toHaveLength(1);
    // The next page goes on from the cursor the first printed: every subscription once.
    const pages = [limited];
    while (pages.at(-1)?.next_cursor)
      pages.push(
        await json(
          subscriptionList,
          "subscriptions",
          "list",
          "--limit",
          "1",
          "--cursor",
          pages.at(-1)?.next_cursor ?? "",
        ),
      );
    expect(pages.flatMap((page) => page.subscriptions.map((s) => s.subscription_id)).sort()).toEqual(
      [...ids].sort(),
    );
    expect(await cli("subscriptions", "list", "--cursor", "bm90LWEtY3Vyc29y")).toEqual(
      refused(
        "--cursor is not a cursor of this listing: pass the cursor the previous page printed (more: --cursor …), or leave it out",
      ),
    );
    const ofCustomer = await json(subscriptionList, "subscriptions", "list", "--external-id", "acct_cli");
    expect(ofCustomer.subscriptions.map((s) => s.subscription_id)).toEqual([ids[0]]);
    const canceled = await json(subscriptionList, "subscriptions", "list", "--status", "canceled");
    expect(canceled.subscriptions.map((s) => s.subscription_id)).toEqual([ids[2]]);
  });

  it("shows one subscription with its charges and refunds, and names an unknown one", async () => {
    const shown = await json(
      z.object({
        subscription: z.looseObject({ subscription_id: z.string(), status: z.string() }),
        charges: z.array(z.looseObject({ period: z.number(), status: z.string() })),
        refunds: z.array(z.unknown()),
      }),
      "subscriptions",
      "show",
      ids[0] ?? "",
    );
    expect(shown.subscription).toMatchObject({ subscription_id: ids[0], status: "active" });
    expect(shown.charges.map((c) => [c.period, c.status])).toEqual([[0, "succeeded"]]);
    expect(shown.refunds).toEqual([]);

    const text = await cli("subscriptions", "show", ids[0] ?? "");
    expect(text.stdout).toContain(`subscription ${ids[0]}: active`);
    expect(text.stdout).toMatch(/charges \(1\)\nCHARGE\s+KIND/);

    const unknown = await cli("subscriptions", "show", "sub_missing");
    expect(unknown).toEqual(refused(noSubscription));
  });

  it("lists a subscription's charges", async () => {
    const listed = await json(chargeList, "charges", "list", ids[1] ?? "");
    expect(listed.charges.map((c) => [c.period, c.status])).toEqual([[0, "succeeded"]]);
    expect(await cli("charges", "list", "sub_missing")).toEqual(refused(noSubscription));
  });

  it("moves the local clock, then runs the charge run on it: the due subscriptions are charged once", async () => {
    // 09:30 on the day they are due (the jump's last charge run finds nothing), then past 10:30 without a charge run.
    await local.advanceClock("P30DT23H");
    const moved = await cli("clock", "advance", "PT1H15M");
    // No terminal here: no bar on stderr, and stdout the answer alone.
    expect(moved).toEqual({ code: 0, stdout: "local clock now 2027-04-01 10:45Z\n", stderr: "" });
    expect(local.clock.now().toISOString()).toBe("2027-04-01T10:45:00.000Z");
    for (const id of ids.slice(0, 2)) {
      expect((await json(chargeList, "charges", "list", id)).charges).toHaveLength(1);
    }

    const run = await cli("charge-run");
    // Both are due the same day: one page per due-index shard they fall in (shards follow the random ids).
    const pages = new Set(ids.slice(0, 2).map((id) => shardOf(id, DEFAULT_SHARDS))).size;
    expect(run).toEqual({
      code: 0,
      stdout: `charge run at 2027-04-01 10:45Z: 2 subscriptions enqueued (${pages} pages)\n`,
      stderr: "",
    });
    await local.advanceClock("PT0S");
    for (const id of ids.slice(0, 2)) {
      const { charges } = await json(chargeList, "charges", "list", id);
      expect(charges.map((c) => [c.period, c.status])).toEqual([
        [0, "succeeded"],
        [1, "succeeded"],
      ]);
    }
    // Nothing left due: a second run enqueues nothing.
    const again = await json(z.object({ enqueued: z.number() }), "charge-run");
    expect(again.enqueued).toBe(0);
  }, 120_000);

  it("answers Lambda's Invoke API, so the SDK's Lambda client invokes the local functions unchanged", async () => {
    const lambda = new LambdaClient({
      endpoint: local.url,
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    const invoke = async (name: string, payload: unknown) => {
      const response = await lambda.send(
        new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }),
      );
      return {
        error: response.FunctionError,
        body: JSON.parse(Buffer.from(response.Payload ?? []).toString()),
      };
    };
    try {
      expect(await invoke("run-charges", {})).toEqual({ error: undefined, body: { enqueued: 0, pages: 0 } });
      expect(await invoke("reconcile-ledger", { from: "20270402", to: "20270401" })).toMatchObject({
        error: "Unhandled",
        body: { errorMessage: expect.stringContaining("from") },
      });
      await expect(invoke("no-such-function", {})).rejects.toBeInstanceOf(ResourceNotFoundException);
    } finally {
      lambda.destroy();
    }
  });

  it("reconciles the ledger with the gateway: 0 mismatches, then a ledger line the gateway never saw", async () => {
    // Day by day, one invocation each, as the daily schedule runs it; without a terminal a line per day that had
    // anything to reconcile goes to stderr.
    const clean = await cli("reconcile", "--from", "20270301", "--to", "2027-04-01");
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout.split("\n")[0]).toBe(
      "reconciled 2027-03-01 to 2027-04-01 (gateway days, KST): 5 gateway records, 5 ledger lines, 5 matched, 0 mismatches",
    );
    expect(clean.stderr.split("\n")).toEqual([
      "2027-03-01: 3 gateway records, 3 ledger lines, 0 payouts, 0 mismatches (day 1 of 32)",
      "2027-03-03: 0 gateway records, 0 ledger lines, 1 payout, 0 mismatches (day 3 of 32)",
      "2027-04-01: 2 gateway records, 2 ledger lines, 0 payouts, 0 mismatches (day 32 of 32)",
      "",
    ]);
    expect(clean.stdout.split("\n")[1]).toBe(
      "payouts: 1 remittance, 0 mismatches (npx billing report payouts lists them)",
    );

    // What those days paid out, as reconciliation kept it: three sales of 19.90 less 3.4 % fees and their VAT.
    const payouts = await cli("report", "payouts", "--from", "2027-03-01", "--to", "2027-04-05");
    expect(payouts.code, payouts.stderr).toBe(0);
    expect(payouts.stdout.split("\n")).toEqual([
      "PAYOUT      CURRENCY  STATUS   MOVEMENTS  GROSS  FEES  VAT   ADJUST  NET    DEPOSIT",
      "----------  --------  -------  ---------  -----  ----  ----  ------  -----  ---------",
      "2027-03-03  USD       settled  3          59.70  2.04  0.21  0.00    57.45  57.45 USD",
      "settled, 2027-03-01 to 2027-04-05 (gateway days, KST):",
      "CURRENCY  PAYOUTS  MOVEMENTS  GROSS  FEES  VAT   ADJUST  NET",
      "--------  -------  ---------  -----  ----  ----  ------  -----",
      "USD       1        3          59.70  2.04  0.21  0.00    57.45",
      "0 settlement mismatches found by these days' reconciliations",
      "4 days not reconciled yet (2027-04-02 …): npx billing reconcile --from 2027-04-02 --to 2027-04-05",
      "",
    ]);
    // Each charge's ledger says what the gateway paid out for it.
    const ledger = await cli("charges", "list", ids[0] ?? "");
    expect(ledger.stdout).toContain(
      `${ids[0]}-0-0: paid out 19.15 USD on 2027-03-03 (gross 19.90, fees 0.68, VAT 0.07).`,
    );
    expect(
      JSON.parse(
        (await cli("report", "payouts", "--from", "2027-03-03", "--to", "2027-03-03", "--json")).stdout,
      ),
    ).toEqual({
      from: "20270303",
      to: "20270303",
      payouts: [
        {
          remittance_date: "20270303",
          currency: "USD",
          status: "settled",
          movements: 3,
          gross: "59.70",
          fees: "2.04",
          vat: "0.21",
          adjust: "0.00",
          net: "57.45",
          deposit_currency: "USD",
          deposit_amount: "57.45",
        },
      ],
      totals: [
        {
          currency: "USD",
          remittances: 1,
          movements: 3,
          gross: "59.70",
          fees: "2.04",
          vat: "0.21",
          adjust: "0.00",
          net: "57.45",
        },
      ],
      mismatches: 0,
      unreconciled: [],
    });

    const now = local.clock.now().toISOString();
    await local.stack.services.repository.claimAttempt({
      subscription_id: ids[0] ?? "",
      period: 9,
      attempt: 0,
      order_id: `${ids[0]}-9-0`,
      amount: "19.90",
      currency: "USD",
      status: "succeeded",
      transaction_id: "T-NOT-AT-GATEWAY",
      created_at: now,
      updated_at: now,
    });
    const report = await cli("reconcile", "--from", "20270401", "--to", "20270401", "--json");
    expect(report.code).toBe(1);
    expect(JSON.parse(report.stdout)).toMatchObject({
      from: "20270401",
      to: "20270401",
      mismatches: [{ kind: "missing_at_gateway", transaction_id: "T-NOT-AT-GATEWAY" }],
    });
    const table = await cli("reconcile", "--from", "2027-04-01", "--to", "2027-04-01");
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^AT +LINE +KIND +ORDER +TRANSACTION +DIFFERENCE$/m);
    expect(table.stdout).toMatch(/ charge +missing_at_gateway .* T-NOT-AT-GATEWAY +ledger 19\.90$/m);

    const bad = await cli("reconcile", "--from", "20270401", "--to", "2027-04-31");
    expect(bad).toEqual(
      refused('--to "2027-04-31" is not a calendar day: type it as 2027-03-01 or 20270301'),
    );
    const reversed = await cli("reconcile", "--from", "20270402", "--to", "20270401");
    expect(reversed).toEqual(
      refused(
        "--from 20270402 is after --to 20270401: give the earlier day first, e.g. --from 2027-03-01 --to 2027-03-31",
      ),
    );
  }, 30_000);

  it("lists the open charge attempts and refunds, the ones open past a day marked overdue", async () => {
    const now = local.clock.now().getTime();
    const open = (period: number, ageMs: number) => {
      const at = new Date(now - ageMs).toISOString();
      return local.stack.services.repository.claimAttempt({
        subscription_id: ids[1] ?? "",
        period,
        attempt: 0,
        order_id: `${ids[1]}-${period}-0`,
        amount: "19.90",
        currency: "USD",
        status: "unknown",
        lease_until: new Date(now + 3_600_000).toISOString(),
        created_at: at,
        updated_at: at,
      });
    };
    await open(7, 2 * 86_400_000);
    await open(8, 60_000);
    const itemList = z.object({
      items: z.array(z.looseObject({ kind: z.string(), id: z.string(), overdue: z.boolean() })),
    });
    const all = await json(itemList, "open", "list");
    expect(all.items.map((item) => [item.id, item.overdue])).toEqual([
      [`${ids[1]}-7-0`, true],
      [`${ids[1]}-8-0`, false],
    ]);
    const overdue = await cli("open", "list", "--overdue");
    expect(overdue.code).toBe(0);
    expect(overdue.stdout).toMatch(/^KIND +ID +STATUS +AMOUNT +CREATED +SWEPT FROM +OVERDUE +NOTE$/m);
    expect(overdue.stdout).toMatch(
      new RegExp(`^charge +${ids[1]}-7-0 +unknown +19\\.90 USD .* yes +-$`, "m"),
    );
    expect(overdue.stdout).not.toContain(`${ids[1]}-8-0`);
    // Taken out again, so the ledger the later tests read is as it was.
    for (const period of [7, 8])
      await local.stack.dynamo.client.send(
        new DeleteCommand({
          TableName: local.stack.tableName,
          Key: attemptKey({ subscription_id: ids[1] ?? "", period, attempt: 0 }),
        }),
      );
  });

  it("lists the logged events of a subscription and of a time range, and replays them under their own ids", async () => {
    // What the charge run announced is delivered (and logged) once the clock's move has drained everything.
    await local.advanceClock("PT0S");
    const [paying = "", , canceled = ""] = ids;
    const ofCanceled = await json(eventList, "events", "list", "--subscription", canceled);
    // Signed up and canceled on the same instant of the stack's clock: either may list first.
    expect(ofCanceled.events.map((event) => event.type).sort()).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.activated",
      "subscription.canceled",
      "subscription.created",
    ]);
    const range = ["--from", "2027-03-01T00:00:00Z", "--to", "2027-04-02T00:00:00Z"];
    const inRange = await json(eventList, "events", "list", ...range);
    // Three sign-ups (created, charged, invoiced and activated each), the cancel, two renewals (charged, invoiced,
    // their period paid).
    expect(inRange.events.map((event) => event.type).sort()).toEqual([
      ...Array.from({ length: 5 }, () => "charge.succeeded"),
      ...Array.from({ length: 5 }, () => "invoice.finalized"),
      ...Array.from({ length: 3 }, () => "subscription.activated"),
      "subscription.canceled",
      ...Array.from({ length: 3 }, () => "subscription.created"),
      ...Array.from({ length: 2 }, () => "subscription.updated"),
    ]);
    expect(inRange.more).toBe(false);
    const limited = await json(eventList, "events", "list", ...range, "--limit", "2");
    expect(limited).toMatchObject({ events: [{}, {}], more: true });
    const table = await cli("events", "list", "--subscription", paying);
    expect(table.stdout.split("\n")[0]).toMatch(/^EVENT +TYPE +SUBSCRIPTION +ORDER +OCCURRED$/);
    expect(table.stdout).toMatch(/^[0-9a-f]{8}… +subscription\.created +sub_\w+ +- +2027-03-01 10:30Z$/m);

    local.stack.eventBridge.entries.length = 0;
    // One replay-events invocation per UTC day; without a terminal a line per day that re-published anything.
    expect(await cli("events", "replay", ...range)).toEqual({
      code: 0,
      stdout: "re-published 19 event(s)\n",
      stderr: [
        "2027-03-01 00:00Z to 2027-03-02 00:00Z: re-published 13 event(s) (1 of 32)",
        "2027-04-01 00:00Z to 2027-04-02 00:00Z: re-published 6 event(s) (32 of 32)",
        "",
      ].join("\n"),
    });
    const republished = local.stack.eventBridge.entries.map((entry) => JSON.parse(entry.Detail));
    expect(republished.map((event) => event.event_id).sort()).toEqual(
      inRange.events.map((event) => event.event_id).sort(),
    );
    expect(await cli("events", "replay", "--subscription", canceled)).toMatchObject({
      code: 0,
      stdout: "re-published 5 event(s)\n",
    });

    // To one webhook endpoint alone: queued for it, not published to the bus; the local stack's sender POSTs them.
    const receiver = await startRecordingServer();
    try {
      const hook = await call("POST", "/v1/webhook-endpoints", { url: `${receiver.url}/cli` });
      const endpointId = z.object({ id: z.string() }).parse(hook.json).id;
      local.stack.eventBridge.entries.length = 0;
      expect(
        await cli("events", "replay", "--subscription", canceled, "--endpoint", endpointId),
      ).toMatchObject({
        code: 0,
        stdout: `queued 5 event(s) for webhook endpoint ${endpointId}\n`,
      });
      await local.advanceClock("PT0S");
      expect(local.stack.eventBridge.entries).toEqual([]);
      expect(receiver.requests.map((request) => JSON.parse(request.body).event_id).sort()).toEqual(
        ofCanceled.events.map((event) => event.event_id).sort(),
      );
      expect(await cli("events", "replay", "--subscription", canceled, "--endpoint", "hook-1")).toEqual(
        refused("--endpoint must be a webhook endpoint id, e.g. --endpoint we_4mjf0mp6q6kny7ba"),
      );
      const unknown = await cli(
        "events",
        "replay",
        "--subscription",
        canceled,
        "--endpoint",
        "we_zzzzzzzzzzzzzzzz",
      );
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("no such webhook endpoint");
      expect((await call("DELETE", `/v1/webhook-endpoints/${endpointId}`)).status).toBe(200);
    } finally {
      await receiver.close();
    }

    expect(await cli("events", "list", "--subscription", canceled, "--from", "2027-03-01T00:00:00Z")).toEqual(
      refused("give --subscription, or --from and --to, not both: drop one of them"),
    );
    expect(
      await cli("events", "replay", "--from", "2027-04-02T00:00:00Z", "--to", "2027-03-01T00:00:00Z"),
    ).toEqual(
      refused(
        "--to (2027-03-01 00:00Z) must be after --from (2027-04-02 00:00Z), e.g. --from 2027-03-01 --to 2027-03-02T06:00Z",
      ),
    );
    // ISO dates and the printed form are instants too.
    const byDates = await json(
      eventList,
      "events",
      "list",
      "--from",
      "2027-03-01",
      "--to",
      "2027-04-02 00:00Z",
    );
    expect(byDates.events.map((event) => event.event_id).sort()).toEqual(
      inRange.events.map((event) => event.event_id).sort(),
    );
    expect(
      (await cli("events", "list", "--from", "yesterday", "--to", "2027-03-01T00:00:00Z")).stderr,
    ).toMatch(/^billing: --from /);
    expect((await cli("events", "list")).code).toBe(1);
  });

  it("reports the revenue of March: two paying sign-ups are new MRR, the one canceled at once never counted", async () => {
    await local.advanceClock("PT0S");
    const march = ["report", "revenue", "--from", "2027-03-01", "--to", "2027-03-31"];
    const report = await json(z.object({ months: z.array(z.looseObject({ month: z.string() })) }), ...march);
    expect(report.months).toEqual([
      {
        month: "2027-03",
        currency: "USD",
        mrr: "39.80",
        new: "39.80",
        expansion: "0.00",
        contraction: "0.00",
        churned: "0.00",
        active: 2,
        churn_rate: 0,
      },
    ]);
    const chart = join(dir, "mrr.svg");
    const table = await cli(...march, "--chart", chart);
    expect(table.stdout.split("\n")[0]).toMatch(
      /^MONTH +CURRENCY +MRR +NEW +EXPANSION +CONTRACTION +CHURNED +ACTIVE +CHURN$/,
    );
    expect(table.stdout).toMatch(/2027-03 +USD +39\.80 +39\.80 +0\.00 +0\.00 +0\.00 +2 +0\.0%/);
    const svg = await readFile(chart, "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain("MRR (USD)");
    expect(svg).toContain("<title>2027-03: 39.8 USD</title>");
    expect(await cli("report", "revenue", "--from", "March", "--to", "2027-03-31")).toMatchObject({
      code: 1,
    });
  });

  it("lists the charge DLQ, then redrives it to the charge queue", async () => {
    const { CHARGE_DLQ_URL: dlqUrl = "", CHARGE_QUEUE_URL: queueUrl = "" } = local.outputs().environment;
    expect((await json(dlqList, "dlq", "list")).messages).toEqual([]);
    expect((await cli("dlq", "list", "--queue", "intake")).stdout).toBe("0 messages on the intake DLQ\n");
    expect((await cli("dlq", "list", "--queue", "webhook")).stdout).toBe("0 messages on the webhook DLQ\n");

    // What the worker cannot parse ends there after maxReceiveCount receives; put it there directly.
    await local.stack.sqs.client.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: "{not json" }));
    const listed = await json(dlqList, "dlq", "list");
    expect(listed.messages.map((m) => m.body)).toEqual(["{not json"]);
    // Listing leaves it there, visible.
    expect((await json(dlqList, "dlq", "list")).messages).toHaveLength(1);

    // A charge message of a period already paid, as a redrive after an outage would bring back.
    await local.stack.sqs.client.send(
      new SendMessageCommand({
        QueueUrl: dlqUrl,
        MessageBody: JSON.stringify({ subscription_id: ids[1], period: 1 }),
      }),
    );

    // local-aws-sqs offers StartMessageMoveTask: the redrive is SQS's own move task, as on AWS.
    const redriven = await cli("dlq", "redrive", "--queue", "charge");
    expect(redriven).toEqual({
      code: 0,
      stdout: "moved 2 messages from the charge DLQ to the charge queue (an SQS message move task)\n",
      stderr: "",
    });
    expect(await queueDepth(dlqUrl)).toBe(0);
    expect((await json(dlqList, "dlq", "list")).messages).toEqual([]);
    await local.advanceClock("PT0S");
    // The charge message was consumed without charging again; the malformed one waits out its visibility.
    const { charges } = await json(chargeList, "charges", "list", ids[1] ?? "");
    expect(charges.map((c) => [c.period, c.status])).toEqual([
      [0, "succeeded"],
      [1, "succeeded"],
    ]);
    expect(await queueDepth(queueUrl)).toBe(1);
  });

  it("redrives by receive, send and delete where SQS offers no message move task, saying so in one line", async () => {
    const { CHARGE_DLQ_URL: dlqUrl = "", AWS_ENDPOINT_URL_SQS: sqsUrl = "" } = local.outputs().environment;
    // The stack's SQS behind a stand-in that answers the move-task actions as AWS answers an action it does not know.
    const standIn = await withoutMoveTasks(sqsUrl);
    try {
      const outputs = join(dir, "no-move-tasks.json");
      const stack = local.outputs();
      await writeFile(
        outputs,
        JSON.stringify({
          ...stack,
          environment: { ...stack.environment, AWS_ENDPOINT_URL_SQS: standIn.url },
        }),
      );
      // Charge messages of a period already paid: consumed without a second charge once back.
      for (let copy = 0; copy < 3; copy += 1)
        await local.stack.sqs.client.send(
          new SendMessageCommand({
            QueueUrl: dlqUrl,
            MessageBody: JSON.stringify({ subscription_id: ids[1], period: 1 }),
          }),
        );
      const redriven = await runCli(["--local-outputs", outputs, "dlq", "redrive"]);
      expect(redriven).toEqual({
        code: 0,
        stdout: "moved 3 messages from the charge DLQ to the charge queue (receive, send, delete)\n",
        stderr:
          "SQS here has no StartMessageMoveTask (UnknownOperationException): moving the messages by receive, send and delete\n",
      });
      expect(standIn.refused).toEqual(["AmazonSQS.ListMessageMoveTasks"]);
      expect(await queueDepth(dlqUrl)).toBe(0);
      await local.advanceClock("PT0S");
      const { charges } = await json(chargeList, "charges", "list", ids[1] ?? "");
      expect(charges.map((c) => [c.period, c.status])).toEqual([
        [0, "succeeded"],
        [1, "succeeded"],
      ]);
    } finally {
      await standIn.close();
    }
  });

  it("lists the catalog's prices, all or the active ones", async () => {
    const created = await call("POST", "/v1/prices", {
      product: { name: "Team" },
      amount: "49.00",
      currency: "USD",
      interval_months: 12,
      trial_days: 14,
      lookup_key: "team_yearly",
    });
    expect(created.status).toBe(201);
    const { price_id } = z.object({ price_id: z.string() }).parse(created.json);
    const archived = await call("POST", "/v1/prices", {
      product: { name: "Legacy" },
      amount: "9.00",
      currency: "USD",
      interval_months: 1,
    });
    const { price_id: legacy } = z.object({ price_id: z.string() }).parse(archived.json);
    expect((await call("POST", `/v1/prices/${legacy}`, { active: false })).status).toBe(200);

    const table = await cli("prices", "list");
    expect(table.stdout).toMatch(
      new RegExp(`^${price_id} +Team +49.00 USD +12 mo +14 d +team_yearly +yes +`, "m"),
    );
    expect(table.stdout).toMatch(new RegExp(`^${legacy} +Legacy +9.00 USD +1 mo +- +- +no +`, "m"));
    const active = await json(
      z.object({ prices: z.array(z.looseObject({ price_id: z.string() })) }),
      "prices",
      "list",
      "--active",
    );
    expect(active.prices.map((price) => price.price_id)).toEqual([price_id]);
  });

  it("lists and shows the merchant's coupons, and a subscription's seats, coupon and discounted charges", async () => {
    const created = await call("POST", "/v1/coupons", {
      percent_off: 20,
      duration: "repeating",
      duration_in_months: 3,
      code: "CLI20",
    });
    expect(created.status).toBe(201);
    const { coupon_id } = z.object({ coupon_id: z.string() }).parse(created.json);
    const signedUp = await call("POST", "/v1/subscriptions", {
      customer: { name: "Seats Customer", email: "seats@example.com" },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      quantity: 3,
      coupon: "cli20",
      card: card("4111111111111111"),
    });
    expect(signedUp.status).toBe(201);
    const { subscription_id } = z.object({ subscription_id: z.string() }).parse(signedUp.json);

    const table = await cli("coupons", "list");
    expect(table.stdout).toMatch(new RegExp(`^${coupon_id} +CLI20 +20% +3 charges +1 +yes +- `, "m"));
    const listed = await json(
      z.object({ coupons: z.array(z.looseObject({ coupon_id: z.string() })) }),
      "coupons",
      "list",
    );
    expect(listed.coupons.map((coupon) => coupon.coupon_id)).toEqual([coupon_id]);
    const shown = await cli("coupons", "show", coupon_id);
    expect(shown.stdout).toContain(
      `coupon ${coupon_id}: valid\n  code          CLI20\n  off           20% of each`,
    );
    expect(await cli("coupons", "show", "co_missing")).toEqual(
      refused("no coupon co_missing at this target: find its id with coupons list"),
    );

    const subscription = await cli("subscriptions", "show", subscription_id);
    expect(subscription.stdout).toContain(
      "  plan          19.90 USD × 3 seats = 59.70 USD every 1 month(s), token",
    );
    expect(subscription.stdout).toContain(`  discount      CLI20 (${coupon_id}): 20% off, 2 charge(s) left`);
    expect(subscription.stdout).toMatch(
      new RegExp(`^${subscription_id}-0-0 +scheduled +47\\.76 +succeeded +- `, "m"),
    );
    expect(subscription.stdout).toContain(
      `${subscription_id}-0-0: 11.94 off 59.70 USD (coupon ${coupon_id}).`,
    );
  });

  it("refuses bad input with the reason and exit 1", async () => {
    expect(await cli("clock", "advance", "31 days")).toEqual(
      refused('<duration> "31 days" is not an ISO 8601 duration: type e.g. P31D (31 days) or PT1H (an hour)'),
    );
    const status = await cli("subscriptions", "list", "--status", "late");
    expect(status.code).toBe(1);
    expect(status.stderr).toContain("error: option '--status <status>' argument 'late' is invalid");
    const limit = await cli("subscriptions", "list", "--limit", "0");
    expect(limit.code).toBe(1);
    expect(limit.stderr).toContain("must be a whole number from 1 to 10000, e.g. --limit 100");
    expect((await cli("nonsense")).code).toBe(1);
    expect(await cli("events", "list")).toEqual(
      refused(
        "name the events: --subscription <id>, or --from and --to (ISO 8601 dates or instants), e.g. --from 2027-03-01 --to 2027-03-02T06:00Z",
      ),
    );
  });

  it("tells its version", async () => {
    expect(await runCli(["--version"])).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" });
  });
});

describe("ops CLI targets", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "billing-cli-targets-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("says no local stack is running when its outputs file is missing", async () => {
    const run = await runCli(["--local-outputs", join(dir, "missing.json"), "subscriptions", "list"]);
    expect(run).toEqual(
      refused("no local stack running: start it with npm start (or pass --outputs for AWS)"),
    );
  });

  it("refuses clock advance on an AWS target, before calling anything", async () => {
    const outputs = join(dir, "cdk-outputs.json");
    await writeFile(
      outputs,
      JSON.stringify({
        BillingStateful: { TableName: "BillingStateful-Table-1", Region: "eu-west-1" },
        BillingService: { ApiUrl: "https://abc.execute-api.eu-west-1.amazonaws.com" },
      }),
    );
    const run = await runCli(["--outputs", outputs, "clock", "advance", "P1D"]);
    expect(run).toEqual(
      refused("clock advance works on the local stack only (a deployment runs on real time): pass --local"),
    );
  });

  it("names what an AWS outputs file lacks, and refuses one that is not cdk's", async () => {
    const outputs = join(dir, "partial.json");
    await writeFile(outputs, JSON.stringify({ BillingStateful: { Region: "eu-west-1" } }));
    const run = await runCli(["--outputs", outputs, "charges", "list", "sub_1"]);
    expect(run).toEqual(
      refused(
        `${outputs} lacks what this command needs: TABLE_NAME is not set; deploy the current stacks and write it again: npx cdk deploy --all --outputs-file ${outputs}`,
      ),
    );

    await writeFile(outputs, JSON.stringify({ apiUrl: "x" }));
    expect((await runCli(["--outputs", outputs, "charge-run"])).stderr).toBe(
      "billing: the outputs file is not what cdk deploy --outputs-file writes: write it with npx cdk deploy --all --outputs-file cdk-outputs.json and pass that file\n",
    );
    expect((await runCli(["--outputs", outputs, "--local", "charge-run"])).stderr).toContain(
      "pass either --outputs (AWS) or --local (local stack), not both",
    );
  });

  it("needs the target named, and an AWS target to name the function it invokes", async () => {
    expect(await runCli(["subscriptions", "list"])).toEqual(
      refused(
        "name the target: --local (the stack of npm start) or --outputs <file> (a deployment), e.g. npx billing --local subscriptions list",
      ),
    );
    const outputs = join(dir, "no-functions.json");
    await writeFile(outputs, JSON.stringify({ BillingStateful: { Region: "eu-west-1", TableName: "t" } }));
    expect(await runCli(["--outputs", outputs, "charge-run"])).toEqual(
      refused(
        `${outputs} lacks what this command needs: RUN_CHARGES_FUNCTION_NAME is not set; deploy the current stacks and write it again: npx cdk deploy --all --outputs-file ${outputs}`,
      ),
    );
  });
});

/**
 * An SQS endpoint in front of `endpoint` that offers no message move tasks: StartMessageMoveTask and
 * ListMessageMoveTasks get AWS's answer to an action it does not know (400 UnknownOperationException); every other
 * request is passed on.
 */
async function withoutMoveTasks(endpoint: string) {
  const refused: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const target = String(request.headers["x-amz-target"] ?? "");
      if (target.endsWith("MessageMoveTask") || target.endsWith("MessageMoveTasks")) {
        refused.push(target);
        response.writeHead(400, { "content-type": "application/x-amz-json-1.0" });
        response.end(JSON.stringify({ __type: "com.amazon.coral.service#UnknownOperationException" }));
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) =>
          ["host", "content-length", "connection"].includes(name) || typeof value !== "string"
            ? []
            : [[name, value]],
        ),
      );
      fetch(new URL(request.url ?? "/", endpoint), {
        method: request.method,
        headers,
        body: chunks.length === 0 ? undefined : Buffer.concat(chunks),
      })
        .then(async (answer) => {
          response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => {
          response.writeHead(502);
          response.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("the stand-in is not listening on TCP");
  return {
    url: `http://127.0.0.1:${address.port}`,
    refused,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
