import { describe, expect, it } from "vitest";
import { hintFor } from "../../../cli/billing-cli";
import { runCli } from "../../support/cli-run";

// Every refusal names the option or argument and what to type instead (README, Ops CLI). These are refused before
// any target is reached, so no socket is opened.

const run = (...argv: string[]) => runCli(argv);

const refused = (message: string) => ({ code: 1, stdout: "", stderr: `billing: ${message}\n` });

describe("the ops CLI's errors say what to type", () => {
  it("names the events to select, with an example", async () => {
    expect(await run("events", "list")).toEqual(
      refused(
        "name the events: --subscription <id>, or --from and --to (ISO 8601 dates or instants), e.g. --from 2027-03-01 --to 2027-03-02T06:00Z",
      ),
    );
    expect(await run("events", "replay", "--from", "2027-03-01")).toEqual(
      refused("give both ends of the range, --from and --to, e.g. --from 2027-03-01 --to 2027-03-02T06:00Z"),
    );
  });

  it("names an instant it cannot read, and the forms it takes", async () => {
    expect((await run("events", "list", "--from", "yesterday", "--to", "2027-03-02")).stderr).toBe(
      'billing: --from "yesterday" is not an ISO 8601 date or instant: type an ISO 8601 date or instant, e.g. 2027-03-01 (midnight UTC), 2027-03-01T14:05Z, 2027-03-01 14:05Z or 2027-03-01T23:05+09:00\n',
    );
    expect(await run("events", "replay", "--from", "2027-03-02", "--to", "2027-03-01T23:00Z")).toEqual(
      refused(
        "--to (2027-03-01 23:00Z) must be after --from (2027-03-02 00:00Z), e.g. --from 2027-03-01 --to 2027-03-02T06:00Z",
      ),
    );
  });

  it("names reconcile's days and the two forms of a day", async () => {
    expect(await run("reconcile")).toEqual(
      refused(
        "name the days: --from and --to (2027-03-01 or 20270301, both included), e.g. --from 2027-03-01 --to 2027-03-31",
      ),
    );
    expect(await run("reconcile", "--from", "20270230", "--to", "20270301")).toEqual(
      refused('--from "20270230" is not a calendar day: type it as 2027-03-01 or 20270301'),
    );
    expect(await run("reconcile", "--from", "2027-03-02", "--to", "20270301")).toEqual(
      refused(
        "--from 2027-03-02 is after --to 20270301: give the earlier day first, e.g. --from 2027-03-01 --to 2027-03-31",
      ),
    );
  });

  it("names a duration it cannot read, with examples", async () => {
    expect(await run("clock", "advance", "31 days")).toEqual(
      refused('<duration> "31 days" is not an ISO 8601 duration: type e.g. P31D (31 days) or PT1H (an hour)'),
    );
  });

  it("names the target, and a bad --limit with an example, pointing at the command's help", async () => {
    expect(await run("subscriptions", "list")).toEqual(
      refused(
        "name the target: --local (the stack of npm start) or --outputs <file> (a deployment), e.g. npx billing --local subscriptions list",
      ),
    );
    const limit = await run("--local", "subscriptions", "list", "--limit", "0");
    expect(limit.code).toBe(1);
    expect(limit.stderr).toContain("must be a whole number from 1 to 10000, e.g. --limit 100");
    expect(limit.stderr).toContain("add --help to a command for its options and an example");
  });

  it("adds what to do to the AWS SDK's errors an operator meets most", () => {
    const named = (name: string) => Object.assign(new Error("x"), { name });
    expect(hintFor(named("CredentialsProviderError"))).toBe(
      " — no AWS credentials found: pass --profile <name> or set AWS_PROFILE",
    );
    expect(hintFor(named("AccessDeniedException"))).toContain("lacks a permission");
    expect(hintFor(named("QueueDoesNotExist"))).toContain("pass --region");
    expect(hintFor(named("TypeError"))).toBe("");
  });
});
