import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { EVENT_TRIGGERS as Triggers } from "../../../cli/events-trigger";
import type { LocalStack as Stack } from "../../../local/stack/local-stack";
import type { runCli as RunCli } from "../../support/cli-run";

// `npx billing --local events trigger <type>` on a local stack: each type's trigger produces that event for a new
// test subscription, through the merchant API, the sandbox and the local clock — a chargeback among them, since local
// mode points the sandbox's chargeback URL at its own webhook.

// Read when the handlers' logger and metrics load: set before the stack and the CLI are imported.
process.env.POWERTOOLS_LOG_LEVEL = "ERROR";
process.env.POWERTOOLS_METRICS_DISABLED = "true";
const { runCli }: { runCli: typeof RunCli } = await import("../../support/cli-run");
const { EVENT_TRIGGERS }: { EVENT_TRIGGERS: typeof Triggers } = await import("../../../cli/events-trigger");
const { LocalStack }: { LocalStack: typeof Stack } = await import("../../../local/stack/local-stack");

const triggered = z.object({ type: z.string(), subscription_id: z.string(), did: z.string() });

let local: Stack;
let dir: string;
let outputsFile: string;
const cli = (...args: string[]) => runCli(["--local-outputs", outputsFile, ...args]);

beforeAll(async () => {
  local = await LocalStack.start({
    port: 0,
    sandboxPort: 0,
    realTime: false,
    start: new Date("2027-03-01T10:30:00Z"),
    // Each schedule fires at most weekly while the clock jumps: a month's jump stays short, and a renewal still
    // finds its charge run at the jump's end.
    jumpResolution: "P7D",
  });
  dir = await mkdtemp(join(tmpdir(), "events-trigger-"));
  outputsFile = join(dir, "outputs.json");
  await writeFile(outputsFile, JSON.stringify(local.outputs()));
}, 60_000);

afterAll(async () => {
  await local?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The triggers by what they do: types that share one are produced by one run of it. */
const TRIGGER_GROUPS = [...new Set(Object.values(EVENT_TRIGGERS))].map((trigger) => ({
  does: trigger.does,
  types: Object.keys(EVENT_TRIGGERS).filter((type) => EVENT_TRIGGERS[type] === trigger),
}));

describe("events trigger", () => {
  /** The subscription each trigger made, by its first type. */
  const made = new Map<string, string>();

  it.each(TRIGGER_GROUPS.map((group) => [group.types.join(", "), group] as const))(
    "%s: the event(s) of a new test subscription",
    { timeout: 120_000 },
    async (_name, group) => {
      const [type = ""] = group.types;
      const run = await cli("events", "trigger", type, "--json");
      expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
      const { subscription_id, did } = triggered.parse(JSON.parse(run.stdout));
      expect(did).toBe(group.does);
      made.set(type, subscription_id);
      const types = (await local.stack.events())
        .filter((event) => event.subscription_id === subscription_id)
        .map((event) => event.type);
      expect(types).toEqual(expect.arrayContaining(group.types));
    },
  );

  it("a declined renewal's trigger also mailed the customer, as GET /local/mail shows", async () => {
    const subscriptionId = made.get("charge.failed");
    const failed = (await local.stack.events()).find(
      (event) => event.type === "charge.failed" && event.subscription_id === subscriptionId,
    );
    expect(failed).toBeDefined();
    const inbox = z
      .object({ mails: z.array(z.looseObject({ template: z.string(), event_id: z.string().optional() })) })
      .parse(await (await fetch(`${local.url}/local/mail`)).json());
    expect(
      inbox.mails.filter((mail) => mail.event_id === failed?.event_id).map((mail) => mail.template),
    ).toEqual(["payment_failed"]);
    const page = await fetch(`${local.url}/local/mail`, { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/<a href="http:\/\/127\.0\.0\.1:\d+\/portal\/[^"]+">/);
  });

  it("names the types it knows when given another, and works on the local stack only", async () => {
    const unknown = await cli("events", "trigger", "charge.exploded");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      '<type> "charge.exploded" has no trigger: type one of subscription.created',
    );
  });
});
