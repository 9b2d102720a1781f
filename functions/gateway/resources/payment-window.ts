import { joinUrl } from "../context";
import { parseRequest } from "../errors";
import { success } from "../result";
import { checkRecurringStartDate } from "../schemas/payment-api";
import {
  type ConfirmInput,
  type ConfirmResponse,
  confirmRequest,
  confirmResponse,
  type ReadyInput,
  type ReadyResponse,
  readyRequest,
  readyResponse,
  type VerifyResponse,
  verifyRequest,
  verifyResponse,
} from "../schemas/payment-window";
import type { Outcome, PaymentApi } from "./payment-api";

/**
 * How a merchant's page opens the payment window (README, The real gateway): it loads the SDK at `sdk_url` and calls
 * `EXIMBAY.request_pay(request_pay)`, which must hold the fgkey plus exactly the parameters sent to ready — the fgkey
 * check fails on any difference.
 */
export interface WindowLaunch {
  readonly sdk_url: string;
  readonly request_pay: Readonly<Record<string, unknown>>;
}

/** The SDK integrations load (v1; v2 is the same contract). */
const SDK_PATH = "/v1/javascriptSDK.js";

/** The payment window: ready opens it, confirm completes a PAYER_AUTH window, verify checks its result. */
export function createPaymentWindowResource({ context, config, post, withMid }: PaymentApi) {
  return {
    /** Prepares a payment window; the answer's launch is what the merchant's page hands the SDK. */
    async ready(input: ReadyInput): Outcome<ReadyResponse & { readonly launch: WindowLaunch }> {
      const body = parseRequest(readyRequest, { ...input, merchant: withMid(input.merchant ?? {}) });
      checkRecurringStartDate(body, context.now());
      const outcome = await post("/ready", "mutation", body, readyResponse);
      if (outcome.kind !== "success") return outcome;
      // The parameters as they went on the wire (JSON drops what is undefined), then the fgkey.
      const sent: Record<string, unknown> = JSON.parse(JSON.stringify(body));
      const launch = {
        sdk_url: joinUrl(config.paymentBaseUrl, SDK_PATH),
        request_pay: { ...sent, fgkey: outcome.value.fgkey },
      };
      return success({ ...outcome.value, launch });
    },

    /** Authorizes (and with PAYMENT_PA acquires) a payment authenticated by a PAYER_AUTH window. */
    async confirm(input: ConfirmInput): Outcome<ConfirmResponse> {
      const body = parseRequest(confirmRequest, withMid(input));
      return post("/confirm", "mutation", body, confirmResponse);
    },

    /** Checks a window result: `query` is the status_url query string exactly as received. */
    async verify(query: string): Outcome<VerifyResponse> {
      const body = parseRequest(verifyRequest, { data: query });
      return post("/verify", "read", body, verifyResponse);
    },
  };
}
