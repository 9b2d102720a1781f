import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGatewayContext } from "../../../../functions/gateway/context";
import { GatewayRequestError } from "../../../../functions/gateway/errors";
import {
  createReconciliationClient,
  earliestTransactionDate,
  splitDateRange,
} from "../../../../functions/gateway/resources/reconciliation";
import {
  expectedSettlementsResponseSchema,
  settlementsResponseSchema,
  transactionsRequestSchema,
  transactionsResponseSchema,
} from "../../../../functions/gateway/schemas/reconciliation";
import {
  type RecordedRequest,
  type RecordingServer,
  startRecordingServer,
} from "../../../support/recording-server";

const MID = "TESTMID001";
const NOW = new Date("2024-06-15T09:00:00Z");

let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function client() {
  const context = createGatewayContext(
    {
      paymentBaseUrl: server.url,
      webhookAdminBaseUrl: server.url,
      partnerBaseUrl: server.url,
      mid: MID,
      apiKey: "test-api-key",
      aesKey: "0".repeat(64),
      readRetries: 1,
      readRetryMinDelayMs: 0,
    },
    { now: () => NOW },
  );
  return createReconciliationClient(context);
}

const bodyOf = (request: RecordedRequest): unknown => JSON.parse(request.body);

function transactionRecord(transactionId: string, misspelled = false) {
  return {
    trade_date: "20240102103000",
    trade_type: "T000",
    mid: MID,
    [misspelled ? "transacton_id" : "transaction_id"]: transactionId,
    original_transaction_id: transactionId,
    order_id: `order-${transactionId}`,
    request_currency: "USD",
    request_amount: "10.00",
    payment_method: "P000",
    param1: "",
    param2: "",
    param3: "",
  };
}

function settlementRecord(transactionId: string) {
  return {
    trade_date: "20240102103000",
    trade_type: "N",
    mid: MID,
    transacton_id: transactionId,
    order_id: `order-${transactionId}`,
    request_currency: "USD",
    request_amount: "10.00",
    transaction_type: "S",
    approval_currency: "USD",
    approval_amount: "10.00",
    billed_type: "R",
    billed_currency: "USD",
    billed_exchange_rate: "1",
    billed_exchange_rate_amount: "10.00",
    service_fee_amount: "-0.35",
    fee_amount: "0",
    service_fee_supply_amount: "-0.32",
    service_fee_vat_amount: "-0.03",
    fee_supply_amount: "0",
    fee_vat_amount: "0",
    request_sub_amount_total: "9.65",
  };
}

const settlementHeader = (remittanceDate: string) => ({
  request_date: "20240615",
  remittance_date: remittanceDate,
  version: "200",
  settle_date: "20240610",
  settle_currency: "USD",
  settle_amount: "20.00",
  vat_fee_amount: "-0.06",
  etc_vat_amount: "0",
  adjust_amount: "0",
  remittance_amount: "19.30",
  exchange_rate: "1",
  deposit_currency: "USD",
  deposit_amount: "19.30",
});

const expectedHeader = {
  request_date: "20240615",
  pre_remittance_date: "20240613",
  version: "200",
  pre_settle_date: "20240620",
  settle_currency: "USD",
  settle_amount: "10.00",
  adjust_amount: "0",
  remittance_amount: "9.65",
};

/** Expects a GatewayRequestError naming `field`, and that nothing reached the server. */
async function expectRejected(call: Promise<unknown>, field: string): Promise<void> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GatewayRequestError);
  expect(error).toMatchObject({ field });
  expect(server.requests).toHaveLength(0);
}

describe("splitDateRange", () => {
  it("keeps a single day as one window", () => {
    expect(splitDateRange("20240101", "20240101")).toEqual([{ from_date: "20240101", to_date: "20240101" }]);
  });

  it("keeps exactly 7 days (inclusive) as one window", () => {
    expect(splitDateRange("20240101", "20240107")).toEqual([{ from_date: "20240101", to_date: "20240107" }]);
  });

  it("splits 8 days into 7 + 1", () => {
    expect(splitDateRange("20240101", "20240108")).toEqual([
      { from_date: "20240101", to_date: "20240107" },
      { from_date: "20240108", to_date: "20240108" },
    ]);
  });

  it("splits 30 days into four full weeks and a 2-day tail", () => {
    expect(splitDateRange("20240401", "20240430")).toEqual([
      { from_date: "20240401", to_date: "20240407" },
      { from_date: "20240408", to_date: "20240414" },
      { from_date: "20240415", to_date: "20240421" },
      { from_date: "20240422", to_date: "20240428" },
      { from_date: "20240429", to_date: "20240430" },
    ]);
  });

  it("crosses month and year boundaries", () => {
    expect(splitDateRange("20231228", "20240105")).toEqual([
      { from_date: "20231228", to_date: "20240103" },
      { from_date: "20240104", to_date: "20240105" },
    ]);
    expect(splitDateRange("20240129", "20240205")).toEqual([
      { from_date: "20240129", to_date: "20240204" },
      { from_date: "20240205", to_date: "20240205" },
    ]);
  });

  it("counts the leap day (2024) and not a missing one (2023)", () => {
    expect(splitDateRange("20240226", "20240304")).toEqual([
      { from_date: "20240226", to_date: "20240303" },
      { from_date: "20240304", to_date: "20240304" },
    ]);
    expect(splitDateRange("20230226", "20230304")).toEqual([{ from_date: "20230226", to_date: "20230304" }]);
  });

  it("covers a long range with contiguous windows that each satisfy the wire schema", () => {
    const windows = splitDateRange("20190615", "20240615");
    expect(windows).toHaveLength(Math.ceil(1828 / 7));
    for (const [index, window] of windows.entries()) {
      expect(transactionsRequestSchema.safeParse({ mid: MID, ...window }).success).toBe(true);
      const next = windows[index + 1];
      if (next)
        expect(splitDateRange(window.to_date, next.from_date)).toEqual([
          { from_date: window.to_date, to_date: next.from_date },
        ]);
    }
    expect(windows.at(-1)?.to_date).toBe("20240615");
  });

  it("yields nothing for an inverted range", () => {
    expect(splitDateRange("20240102", "20240101")).toEqual([]);
  });
});

describe("earliestTransactionDate", () => {
  it("is the same calendar day 5 years back", () => {
    expect(earliestTransactionDate(NOW)).toBe("20190615");
  });

  it("rolls 29 February over to 1 March of a common year", () => {
    expect(earliestTransactionDate(new Date("2024-02-29T12:00:00Z"))).toBe("20190301");
  });
});

describe("transactions request", () => {
  it("sends mid, from_date and to_date to /v1/reconciliation/transactions", async () => {
    server.respondWith(() => ({
      json: {
        H: { request_date: "20240615", from_date: "20240101", to_date: "20240103" },
        T: { total_count: "0" },
      },
    }));
    const outcome = await client().transactions("20240101", "20240103");
    expect(outcome.kind).toBe("success");
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/v1/reconciliation/transactions");
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from("test-api-key:").toString("base64")}`);
    expect(request && bodyOf(request)).toEqual({ mid: MID, from_date: "20240101", to_date: "20240103" });
  });

  it("rejects from_date after to_date", async () => {
    await expectRejected(client().transactions("20240110", "20240101"), "from_date");
  });

  it("rejects a range older than 5 years, and accepts the boundary day", async () => {
    await expectRejected(client().transactions("20190614", "20190620"), "from_date");
    expect(
      transactionsRequestSchema.safeParse({ mid: MID, from_date: "20190615", to_date: "20190615" }).success,
    ).toBe(true);
  });

  it("rejects dates that are not YYYYMMDD calendar dates", async () => {
    await expectRejected(client().transactions("2024-01-01", "20240102"), "from_date");
    await expectRejected(client().transactions("20240201", "20240230"), "to_date");
  });

  it("on the wire, rejects more than 7 days, a missing mid and unknown keys", () => {
    const issueField = (input: unknown) =>
      transactionsRequestSchema.safeParse(input, { reportInput: false }).error?.issues[0]?.path.join(".");
    expect(issueField({ mid: MID, from_date: "20240101", to_date: "20240108" })).toBe("to_date");
    expect(issueField({ from_date: "20240101", to_date: "20240101" })).toBe("mid");
    expect(issueField({ mid: MID, from_date: "20240101", to_date: "20240101", extra: "x" })).toBe("");
  });
});

describe("transactions response", () => {
  const header = { request_date: "20240615", from_date: "20240101", to_date: "20240107" };

  it("exposes a single D object as an array, under the documented transaction_id", () => {
    const parsed = transactionsResponseSchema.parse({
      H: header,
      D: transactionRecord("T1", true),
      T: { total_count: "1" },
    });
    expect(parsed.D).toHaveLength(1);
    expect(parsed.D[0]?.transaction_id).toBe("T1");
    expect(parsed.D[0]).not.toHaveProperty("transacton_id");
    expect(parsed.notices).toEqual([]);
  });

  it("exposes an absent D as an empty array and a resmsg-only entry as a notice", () => {
    expect(transactionsResponseSchema.parse({ H: header, T: { total_count: "0" } }).D).toEqual([]);
    const parsed = transactionsResponseSchema.parse({
      H: header,
      D: [{ resmsg: "No data" }],
      T: { total_count: "0" },
    });
    expect(parsed.D).toEqual([]);
    expect(parsed.notices).toEqual(["No data"]);
  });

  it("refuses a record with a missing documented field", () => {
    const { param3: _omitted, ...incomplete } = transactionRecord("T1");
    expect(
      transactionsResponseSchema.safeParse({ H: header, D: [incomplete], T: { total_count: "1" } }).success,
    ).toBe(false);
  });
});

describe("transactions over several windows", () => {
  /** Answers each window with one record per day of the window, ids naming the window. */
  function answerPerWindow(failing?: string) {
    server.respondWith((request) => {
      const body = transactionsRequestSchema.parse(bodyOf(request));
      if (body.from_date === failing) return { status: 503, json: { message: "busy" } };
      const days = splitDateRange(body.from_date, body.to_date, 1);
      return {
        json: {
          rescode: "0000",
          resmsg: "Success.",
          H: { request_date: "20240615", from_date: body.from_date, to_date: body.to_date },
          D: days.map((day) => transactionRecord(`T-${day.from_date}`, true)),
          T: { total_count: String(days.length) },
        },
      };
    });
  }

  it("calls consecutive 7-day windows in order and merges D, T and H", async () => {
    answerPerWindow();
    const outcome = await client().transactions("20240101", "20240120");
    expect(server.requests.map(bodyOf)).toEqual([
      { mid: MID, from_date: "20240101", to_date: "20240107" },
      { mid: MID, from_date: "20240108", to_date: "20240114" },
      { mid: MID, from_date: "20240115", to_date: "20240120" },
    ]);
    if (outcome.kind !== "success") throw new Error(`expected success, got ${outcome.kind}`);
    const expectedIds = splitDateRange("20240101", "20240120", 1).map((day) => `T-${day.from_date}`);
    expect(outcome.value.D.map((record) => record.transaction_id)).toEqual(expectedIds);
    expect(outcome.value.T.total_count).toBe("20");
    expect(outcome.value.H).toEqual({ request_date: "20240615", from_date: "20240101", to_date: "20240120" });
  });

  it("returns the failure of a middle window and stops there", async () => {
    answerPerWindow("20240108");
    const outcome = await client().transactions("20240101", "20240120");
    expect(outcome).toMatchObject({ kind: "unavailable", status: 503 });
    // Window 1, then window 2 tried twice (readRetries 1); window 3 never asked.
    expect(
      server.requests.map((request) => transactionsRequestSchema.parse(bodyOf(request)).from_date),
    ).toEqual(["20240101", "20240108", "20240108"]);
  });

  it("classifies a rescode error of a window like any other read", async () => {
    server.respondWith(() => ({ json: { rescode: "EC00", resmsg: "invalid parameter" } }));
    const outcome = await client().transactions("20240101", "20240102");
    expect(outcome).toEqual({ kind: "invalid", code: "EC00", message: "invalid parameter" });
  });
});

describe("settlements", () => {
  it("sends mid and remittance_date, and reads a sample with single H, D and T objects", async () => {
    server.respondWith(() => ({
      json: { H: settlementHeader("20240614"), D: settlementRecord("S1"), T: { total_count: "1" } },
    }));
    const outcome = await client().settlements("20240614");
    const [request] = server.requests;
    expect(request?.url).toBe("/v1/reconciliation/settlements");
    expect(request && bodyOf(request)).toEqual({ mid: MID, remittance_date: "20240614" });
    if (outcome.kind !== "success") throw new Error(`expected success, got ${outcome.kind}`);
    const [remittance] = outcome.value.remittances;
    expect(outcome.value.remittances).toHaveLength(1);
    expect(remittance?.header.remittance_amount).toBe("19.30");
    expect(remittance?.records.map((record) => record.transaction_id)).toEqual(["S1"]);
    expect(remittance?.records[0]?.service_fee_amount).toBe("-0.35");
    expect(remittance?.total_count).toBe("1");
  });

  it("rejects an invalid remittance_date without sending", async () => {
    await expectRejected(client().settlements("20240231"), "remittance_date");
    await expectRejected(client().settlements(""), "remittance_date");
  });

  it("pairs H[i], D[i] and T[i] when D is an array of arrays", () => {
    const parsed = settlementsResponseSchema.parse({
      H: [settlementHeader("20240614"), settlementHeader("20240614")],
      D: [[settlementRecord("A1")], [settlementRecord("B1"), settlementRecord("B2")]],
      T: [{ total_count: "1" }, { total_count: "2" }],
    });
    expect(
      parsed.remittances.map((remittance) => remittance.records.map((record) => record.transaction_id)),
    ).toEqual([["A1"], ["B1", "B2"]]);
    expect(parsed.remittances.map((remittance) => remittance.total_count)).toEqual(["1", "2"]);
  });

  it("cuts a flat D by the T counts when there are several remittances", () => {
    const parsed = settlementsResponseSchema.parse({
      H: [settlementHeader("20240614"), settlementHeader("20240614")],
      D: [settlementRecord("A1"), settlementRecord("A2"), settlementRecord("B1")],
      T: [{ total_count: "2" }, { total_count: "1" }],
    });
    expect(
      parsed.remittances.map((remittance) => remittance.records.map((record) => record.transaction_id)),
    ).toEqual([["A1", "A2"], ["B1"]]);
  });

  it("refuses D that cannot be paired with H, and H and T of different lengths", () => {
    const headers = [settlementHeader("20240614"), settlementHeader("20240614")];
    const tails = [{ total_count: "2" }, { total_count: "2" }];
    const flat = settlementsResponseSchema.safeParse({ H: headers, D: [settlementRecord("A1")], T: tails });
    expect(flat.error?.issues[0]?.path).toEqual(["D"]);
    const nested = settlementsResponseSchema.safeParse({
      H: headers,
      D: [[settlementRecord("A1")]],
      T: tails,
    });
    expect(nested.error?.issues[0]?.path).toEqual(["D"]);
    const uneven = settlementsResponseSchema.safeParse({ H: headers, D: [], T: tails[0] });
    expect(uneven.success).toBe(false);
  });

  it("names the remittance and field of an unreadable record", () => {
    const result = settlementsResponseSchema.safeParse({
      H: settlementHeader("20240614"),
      D: [{ ...settlementRecord("A1"), trade_type: "X" }],
      T: { total_count: "1" },
    });
    expect(result.error?.issues[0]?.path).toEqual(["D", 0, "entries", "records", 0, "trade_type"]);
  });
});

describe("expected settlements", () => {
  it("sends mid and pre_remittance_date, and accepts reqAmount for request_amount", async () => {
    const { request_amount: _documented, ...record } = settlementRecord("E1");
    server.respondWith(() => ({
      json: {
        rescode: "0000",
        resmsg: "Success",
        H: expectedHeader,
        D: [{ ...record, reqAmount: "12.50" }],
        T: { total_count: "1" },
      },
    }));
    const outcome = await client().expectedSettlements("20240613");
    const [request] = server.requests;
    expect(request?.url).toBe("/v1/reconciliation/expected-settlements");
    expect(request && bodyOf(request)).toEqual({ mid: MID, pre_remittance_date: "20240613" });
    if (outcome.kind !== "success") throw new Error(`expected success, got ${outcome.kind}`);
    const [remittance] = outcome.value.remittances;
    expect(remittance?.header.pre_settle_date).toBe("20240620");
    expect(remittance?.records[0]?.request_amount).toBe("12.50");
    expect(remittance?.records[0]).not.toHaveProperty("reqAmount");
  });

  it("rejects an invalid pre_remittance_date without sending", async () => {
    await expectRejected(client().expectedSettlements("2024061"), "pre_remittance_date");
    await expectRejected(client().expectedSettlements("June 13"), "pre_remittance_date");
  });

  it("exposes a response without remittances as an empty list", () => {
    expect(expectedSettlementsResponseSchema.parse({}).remittances).toEqual([]);
  });
});
