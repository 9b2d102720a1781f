import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { functionNamed } from "../../../functions/function-table";
import { gatewayDate } from "../../../functions/gateway/calendar";
import { stubContext } from "../../../local/lambda/lambda-context";
import { renewAt } from "../../support/billing-scenarios";
import { captureOutput } from "../../support/handler-env";
import { callSandbox, sandboxGatewayClient } from "../../support/sandbox-gateway";
import { drainIntake } from "../../support/webhook-receiver";
import { stackWithWebhooks } from "../../support/webhook-stack";

/*
 * reconcile-ledger as Lambda runs it (services from the environment, the sandbox's reconciliation API in 7-day
 * windows, the ledger index in dynalite): a month of sign-ups, a partial refund, a chargeback and the next month's
 * renewals reconciles clean; a sale made straight at the gateway is the one mismatch. The month is made through the
 * merchant API, the gateway's CHARGEBACK webhook and the scheduled charge run. Its payouts (the sandbox's settlements:
 * fees 3.4 % of a sale and VAT 10 % of the fee, paid out two days after the trade) reconcile clean too, each movement's
 * fees kept on its subscription; a settlement list the sandbox is made to misreport is reported, record by record.
 */

const MARCH = { from: "20260301", to: "20260331" };
const VISA = "4111111111111111";

const { stack, receiver, container, call } = stackWithWebhooks({
  start: new Date("2026-03-01T10:00:00.000Z"),
});
const reconcileLedger = container.handler(functionNamed("reconcile-ledger"));

let ids: string[];

const invoke = (event: unknown) => reconcileLedger(event, stubContext("reconcile-ledger"));

/** POST /v1/subscriptions: a monthly USD 19.90 card sign-up, paid at once. */
async function signUp(n: number): Promise<string> {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: `Customer ${n}`, email: `customer${n}@example.com` },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: { number: VISA, expiry: "203012", cvc: "123" },
    },
  });
  expect(answer.status).toBe(201);
  return z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;
}

beforeAll(async () => {
  ids = [await signUp(0), await signUp(1), await signUp(2)];
  const [first = "", second = ""] = ids;

  // Reported on 5 March, the chargeback is deducted at its deadline three weeks later, still in March. The gateway
  // sends its CHARGEBACK webhook to us; process-intake marks the charge disputed.
  const set = await callSandbox(stack().sandbox, "/sandbox/webhooks/chargeback-url", {
    method: "PUT",
    body: { url: `${receiver().webhookBaseUrl}/gateway` },
  });
  expect(set.status).toBe(200);
  await stack().clock.set(new Date("2026-03-05T12:00:00.000Z"));
  const charge = () =>
    stack().services.repository.getAttempt({ subscription_id: second, period: 0, attempt: 0 });
  const chargeback = await callSandbox(stack().sandbox, "/sandbox/webhooks/chargeback", {
    body: { transaction_id: (await charge())?.transaction_id },
  });
  expect(chargeback.status).toBe(200);
  await stack().sandbox.deliveries.settled();
  await drainIntake(container);
  expect((await charge())?.disputed).toBe(true);

  await stack().clock.set(new Date("2026-03-10T12:00:00.000Z"));
  const refund = await call("POST", `/v1/charges/${first}-0-0/refunds`, {
    body: { amount: "5.00", reason: "goodwill" },
  });
  expect(refund.status).toBe(201);

  // April's renewals fall in the widened window, not in March: they must neither match nor count.
  const renewed = await renewAt(stack(), new Date("2026-04-01T10:30:00.000Z"));
  expect(renewed.enqueued).toBe(3);
});

describe("reconcile-ledger on the local stack", () => {
  it("a clean month reconciles with 0 mismatches", async () => {
    const output = captureOutput();
    const report = await invoke(MARCH);
    expect(report).toMatchObject({ from: MARCH.from, to: MARCH.to, mismatches: [] });
    // 3 sales, 1 partial refund, 1 deducted chargeback at the gateway; 3 charges and 1 refund in our ledger.
    expect(report.gateway_records).toBe(5);
    expect(report.matched).toBe(5);
    expect(report.ledger_lines).toBe(4);
    expect(output.metrics()).toMatchObject({
      "Billing/ReconciliationMismatches": 0,
      "Billing/ReconciliationGatewayRecords": 5,
    });

    // The payouts: 1 March's three sales on the 3rd (each 19.90 less 0.68 fees and 0.07 VAT), the refund on the
    // 12th, the chargeback's deduction two days after it.
    expect(report.settlement_mismatches).toEqual([]);
    const payout = { currency: "USD", status: "settled", adjust: "0.00", deposit_currency: "USD" };
    expect(report.payouts).toEqual([
      {
        ...payout,
        remittance_date: "20260303",
        movements: 3,
        gross: "59.70",
        fees: "2.04",
        vat: "0.21",
        net: "57.45",
        deposit_amount: "57.45",
      },
      {
        ...payout,
        remittance_date: "20260312",
        movements: 1,
        gross: "-5.00",
        fees: "0.00",
        vat: "0.00",
        net: "-5.00",
        deposit_amount: "-5.00",
      },
      {
        ...payout,
        remittance_date: expect.stringMatching(/^202603/),
        movements: 1,
        gross: "-19.90",
        fees: "0.00",
        vat: "0.00",
        net: "-19.90",
        deposit_amount: "-19.90",
      },
    ]);
    const [first = ""] = ids;
    const charge = await stack().services.repository.getAttempt({
      subscription_id: first,
      period: 0,
      attempt: 0,
    });
    const { Item } = await stack().dynamo.client.send(
      new GetCommand({
        TableName: stack().tableName,
        Key: { pk: `SUB#${first}`, sk: `SETTLEMENT#${charge?.transaction_id}` },
      }),
    );
    expect(Item).toMatchObject({
      kind: "sale",
      remittance_date: "20260303",
      gross: "19.90",
      fees: "0.68",
      vat: "0.07",
      net: "19.15",
    });
    expect(await stack().services.repository.listPayoutDays("20260301", "20260331")).toHaveLength(31);
  });

  it("a sale the ledger does not know is the one mismatch, logged once and counted", async () => {
    await stack().clock.set(new Date("2026-04-02T09:00:00.000Z"));
    const sale = await sandboxGatewayClient(stack().sandbox).payments.payment({
      payment: { order_id: "EXTERNAL-ORDER-1", currency: "USD", amount: "42.00", lang: "EN" },
      buyer: { name: "Walk-in", email: "walk-in@example.com" },
      card: { card_number: VISA, expiry_date: "203012", cvc: "123" },
    });
    expect(sale.kind).toBe("success");
    const output = captureOutput();

    const report = await invoke({ from: "20260401", to: "20260402" });

    expect(report.mismatches).toEqual([
      {
        kind: "missing_here",
        line: "charge",
        order_id: "EXTERNAL-ORDER-1",
        transaction_id: sale.kind === "success" ? sale.value.transaction_id : "",
        gateway_amount: "42.00",
        at: expect.stringMatching(/^20260402/),
      },
    ]);
    expect(report.matched).toBe(3);
    expect(output.metrics()).toMatchObject({ "Billing/ReconciliationMismatches": 1 });
    const lines = output.logs().filter((line) => JSON.stringify(line).includes("reconciliation mismatch"));
    expect(lines).toHaveLength(1);
    expect(output.text()).not.toContain(VISA);
  });

  it("a charge the gateway does not know (our ledger says succeeded) is missing at the gateway", async () => {
    const { repository } = stack().services;
    const [id = ""] = ids;
    // A ledger line that never reached the gateway: an attempt closed as succeeded by mistake.
    await stack().clock.set(new Date("2026-04-03T08:00:00.000Z"));
    const subscription = await repository.getSubscription(id);
    const key = { subscription_id: id, period: subscription?.period ?? 0, attempt: 7 };
    await repository.claimAttempt({
      ...key,
      order_id: `${id}-${key.period}-7`,
      amount: "19.90",
      currency: "USD",
      status: "succeeded",
      transaction_id: "SBXT00000000000000009999",
      created_at: stack().clock.now().toISOString(),
      updated_at: stack().clock.now().toISOString(),
    });
    const report = await invoke({ from: "20260403", to: "20260403" });
    expect(report.mismatches).toMatchObject([
      {
        kind: "missing_at_gateway",
        line: "charge",
        order_id: `${id}-${key.period}-7`,
        ledger_amount: "19.90",
      },
    ]);
  });

  it("reconciles yesterday by default and refuses a malformed period", async () => {
    const report = await invoke({});
    // The function runs on the stack's clock; its day is the gateway's (Korea) calendar day.
    const yesterday = gatewayDate(new Date(stack().clock.now().getTime() - 86_400_000));
    expect(report).toMatchObject({ from: yesterday, to: yesterday });
    // The scheduled run also keeps today's expected payout: 1 April's three renewals, paid out on the 3rd.
    const today = gatewayDate(stack().clock.now());
    expect(today).toBe("20260403");
    expect(await stack().services.repository.listPayoutDays(today, today)).toMatchObject([
      { status: "expected", payouts: [{ status: "expected", movements: 3, net: "57.45" }] },
    ]);
    await expect(invoke({ from: "20260431", to: "20260401" })).rejects.toThrow(/from/);
  });
});

describe("a chargeback no webhook brought", () => {
  it("is recorded on its charge from reconciliation's deduction, announced once", async () => {
    const [, , third = ""] = ids;
    const key = { subscription_id: third, period: 1, attempt: 0 };
    const charge = () => stack().services.repository.getAttempt(key);
    // The gateway's CHARGEBACK webhooks go nowhere (a closed port): only its transaction list tells of it.
    const dead = await callSandbox(stack().sandbox, "/sandbox/webhooks/chargeback-url", {
      method: "PUT",
      body: { url: "http://127.0.0.1:9/gateway" },
    });
    expect(dead.status).toBe(200);
    await stack().clock.set(new Date("2026-05-04T12:00:00.000Z"));
    const filed = await callSandbox(stack().sandbox, "/sandbox/webhooks/chargeback", {
      body: { transaction_id: (await charge())?.transaction_id },
    });
    expect(filed.status).toBe(200);
    await stack().clock.set(new Date("2026-05-31T12:00:00.000Z"));
    await stack().sandbox.deliveries.settled();
    await drainIntake(container);
    expect((await charge())?.disputed).toBeUndefined();
    await stack().clearEvents();

    const report = await invoke({ from: "20260501", to: "20260531" });
    expect(report).toMatchObject({ mismatches: [], chargebacks_recorded: [`${third}-1-0`] });
    expect(await charge()).toMatchObject({ disputed: true, dispute: { status: "DEDUCTION" } });
    const announced = (await stack().events()).filter((event) => event.type.startsWith("chargeback."));
    expect(announced).toMatchObject([
      { type: "chargeback.received", order_id: `${third}-1-0`, chargeback_status: "DEDUCTION" },
    ]);

    // Reconciled again, it matches: nothing recorded twice, nothing announced again.
    await stack().clearEvents();
    expect(await invoke({ from: "20260501", to: "20260531" })).toMatchObject({
      mismatches: [],
      chargebacks_recorded: [],
    });
    expect(await stack().events()).toEqual([]);
  });
});

describe("payouts the gateway misreports", () => {
  it("reports each misreported record, the remittance whose total no longer adds up, and the lines never paid out", async () => {
    const [first = "", second = "", third = ""] = ids;
    const april = (id: string) =>
      stack().services.repository.getAttempt({ subscription_id: id, period: 1, attempt: 0 });
    const transactionOf = async (id: string) => (await april(id))?.transaction_id ?? "";
    const alter = async (body: object) =>
      expect((await callSandbox(stack().sandbox, "/sandbox/settlement-alterations", { body })).status).toBe(
        200,
      );
    await alter({ transaction_id: await transactionOf(first), set: { request_amount: "19.00" } });
    await alter({ transaction_id: await transactionOf(second), set: { service_fee_amount: "-0.99" } });
    await alter({ transaction_id: await transactionOf(third), omit: true });
    const refused = await callSandbox(stack().sandbox, "/sandbox/settlement-alterations", {
      body: { transaction_id: "T1", set: { trade_type: "C" } },
    });
    expect(refused.status).toBe(400);
    await stack().clock.set(new Date("2026-06-10T12:00:00.000Z"));

    const report = await invoke({ from: "20260401", to: "20260410" });

    const usd = { currency: "USD", at: expect.any(String) };
    // The renewals' transactions are numbered in the order the charge run's workers reached the gateway: any order.
    expect(report.settlement_mismatches).toHaveLength(6);
    expect(report.settlement_mismatches).toEqual(
      expect.arrayContaining([
        // 1 April's renewals, paid out on the 3rd: one left out, so three stated and two listed.
        {
          ...usd,
          kind: "total_differs",
          line: "remittance",
          remittance_date: "20260403",
          gateway_amount: "57.45",
          ledger_amount: "38.30",
        },
        {
          ...usd,
          kind: "amount_differs",
          line: "charge",
          remittance_date: "20260403",
          order_id: `${first}-1-0`,
          transaction_id: await transactionOf(first),
          gateway_amount: "19.00",
          ledger_amount: "19.90",
          ledger_status: "succeeded",
        },
        {
          ...usd,
          kind: "fees_differ",
          line: "charge",
          remittance_date: "20260403",
          order_id: `${second}-1-0`,
          transaction_id: await transactionOf(second),
          gateway_amount: "19.15",
          ledger_amount: "18.84",
        },
        // The sale made straight at the gateway, paid out on the 4th.
        {
          ...usd,
          kind: "missing_here",
          line: "charge",
          remittance_date: "20260404",
          order_id: "EXTERNAL-ORDER-1",
          transaction_id: expect.any(String),
          gateway_amount: "42.00",
        },
        // Five days past the delay, the line left out is unsettled; so is the line the gateway never had.
        {
          ...usd,
          kind: "unsettled",
          line: "charge",
          order_id: `${third}-1-0`,
          transaction_id: await transactionOf(third),
          ledger_amount: "19.90",
          ledger_status: "succeeded",
        },
        {
          ...usd,
          kind: "unsettled",
          line: "charge",
          order_id: expect.stringMatching(/-7$/),
          transaction_id: "SBXT00000000000000009999",
          ledger_amount: "19.90",
          ledger_status: "succeeded",
        },
      ]),
    );
    expect(report.payouts.find((payout) => payout.remittance_date === "20260403")).toMatchObject({
      movements: 2,
      net: "57.45",
    });
    // The day keeps how many mismatches its reconciliation found, for the payouts report.
    expect(await stack().services.repository.listPayoutDays("20260403", "20260403")).toMatchObject([
      { mismatches: 3 },
    ]);
  });
});
