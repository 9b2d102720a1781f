import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import type { GatewayConfigInput } from "../../functions/gateway/config";
import { createGatewayContext } from "../../functions/gateway/context";
import { GatewayRequestError } from "../../functions/gateway/errors";
import { createPaymentClient, type PaymentClient } from "../../functions/gateway/payment-client";
import { type RecordingServer, startRecordingServer } from "./recording-server";

// Test-only credentials; nothing real.
export const MID = "MID0000001";
export const API_KEY = "test-api-key";
export const KEY = {
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  iv: "Eximbay_AES_256_",
};
export const TODAY = new Date("2030-01-15T08:00:00Z");
export const TRANSACTION_ID = "TX0123456789ABCDEFGHIJKL";
export const OK = { rescode: "0000", resmsg: "Success." };
/** The order most payment API bodies carry. */
export const PAYMENT = { order_id: "sub1-203001-1", currency: "USD", amount: "10.00", lang: "EN" };

/**
 * A test file's payment client against a recording server, which starts before the file's tests and closes after
 * them; before each test its record is cleared and it answers OK until told otherwise.
 */
export function paymentApiServer() {
  let server: RecordingServer | undefined;
  let client: PaymentClient | undefined;
  const currentServer = () => {
    if (server === undefined) throw new Error("the server starts in beforeAll");
    return server;
  };

  /** A client of the server; config overrides the test configuration. */
  const clientWith = (config: Partial<GatewayConfigInput> = {}) => {
    const { url } = currentServer();
    return createPaymentClient(
      createGatewayContext(
        {
          // The trailing slash is deliberate: the client must not double it.
          paymentBaseUrl: `${url}/`,
          webhookAdminBaseUrl: url,
          partnerBaseUrl: url,
          mid: MID,
          apiKey: API_KEY,
          aesKey: KEY.key,
          readRetries: 2,
          readRetryMinDelayMs: 1,
          ...config,
        },
        { now: () => TODAY },
      ),
    );
  };

  /** Answers every request with this JSON. */
  const answer = (json: unknown) => currentServer().respondWith(() => ({ json }));

  beforeAll(async () => {
    server = await startRecordingServer();
    client = clientWith();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    currentServer().reset();
    answer(OK);
  });

  return {
    get server() {
      return currentServer();
    },
    get client() {
      if (client === undefined) throw new Error("the client is built in beforeAll");
      return client;
    },
    clientWith,
    answer,

    /** The one request the server received, with its JSON body. */
    onlyRequest() {
      const { requests } = currentServer();
      expect(requests).toHaveLength(1);
      const [request] = requests;
      if (!request) throw new Error("no request");
      return { ...request, json: JSON.parse(request.body) };
    },

    /** Asserts the call was refused before sending, naming the field. */
    async expectRefused(call: () => Promise<unknown>, field: string): Promise<GatewayRequestError> {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      if (!(error instanceof GatewayRequestError))
        throw new Error(`expected a GatewayRequestError, got ${String(error)}`);
      expect(error.field).toBe(field);
      expect(currentServer().requests).toHaveLength(0);
      return error;
    },
  };
}
