import { z } from "zod";
import { triggerChargeback } from "../acquirer/chargebacks";
import { SUCCESS_RESCODE, SUCCESS_RESMSG } from "../acquirer/result-codes";
import { okReply, parseFields, rescodeReply } from "../http/replies";
import { defineRoute, type RouteDefinition } from "../http/routes";
import { controlMerchant, controlMid } from "./control-merchant";
import { deliverableUrl, transactionId } from "./request-fields";
import { REGISTRABLE_WEBHOOK_TYPES } from "./webhook-admin-routes";

// Sandbox-only webhook controls under /sandbox/webhooks/ (no auth, no faults; `mid` defaults to the only merchant):
// - PUT  chargeback-url {url}: where CHARGEBACK webhooks go (the seed: set through the gateway's support only);
// - POST chargeback {transaction_id, reason?, outcome?}: reports a chargeback of a SALE (CHARGEBACK webhook), which
//   ends at its deadline as DEDUCTION (the balance taken) or RESOLVED, announced again;
// - POST payout {type, data?}: sends a payout webhook to the registered URL when that type is registered.

const chargebackUrlBody = z.strictObject({ mid: controlMid, url: deliverableUrl });
const chargebackBody = z.strictObject({
  mid: controlMid,
  transaction_id: transactionId,
  reason: z.string().min(1, "is required").max(100, "must be at most 100 characters").optional(),
  /** How the chargeback ends at its deadline; DEDUCTION unless told. */
  outcome: z.enum(["DEDUCTION", "RESOLVED"]).optional(),
});
const payoutBody = z.strictObject({
  mid: controlMid,
  type: z.enum(REGISTRABLE_WEBHOOK_TYPES),
  /** The seed does not show the payout data: whatever the test needs, sent as given. */
  data: z.record(z.string(), z.unknown()).optional(),
});

const control = { auth: "none", faults: false } as const;

export const webhookTriggerRoutes: readonly RouteDefinition[] = [
  defineRoute({
    ...control,
    name: "sandbox.webhooks.chargeback-url",
    method: "PUT",
    path: "/sandbox/webhooks/chargeback-url",
    handler: (request, { merchants, ledger }) => {
      const body = parseFields(chargebackUrlBody, request.body);
      const merchant = controlMerchant(merchants, body.mid);
      ledger.webhooks.setChargebackUrl(merchant.mid, body.url);
      return okReply({ mid: merchant.mid, url: body.url });
    },
  }),
  defineRoute({
    ...control,
    name: "sandbox.webhooks.chargeback",
    method: "POST",
    path: "/sandbox/webhooks/chargeback",
    handler: (request, context) => {
      const body = parseFields(chargebackBody, request.body);
      const merchant = controlMerchant(context.merchants, body.mid);
      const result = triggerChargeback(context, merchant.mid, body.transaction_id, body.reason, body.outcome);
      if (!result.ok) {
        return result.error === "transaction_not_found"
          ? rescodeReply(400, "EC1002", "Invalid transaction_id")
          : rescodeReply(409, "EC00", `Chargeback refused: ${result.error}`);
      }
      const { chargeback, webhookUrl } = result.value;
      return okReply({ chargeback, webhook_url: webhookUrl ?? null });
    },
  }),
  defineRoute({
    ...control,
    name: "sandbox.webhooks.payout",
    method: "POST",
    path: "/sandbox/webhooks/payout",
    handler: (request, { merchants, ledger, clock, deliver }) => {
      const body = parseFields(payoutBody, request.body);
      const merchant = controlMerchant(merchants, body.mid);
      const registration = ledger.webhooks.find(merchant.mid);
      if (!registration?.types.includes(body.type)) return okReply({ sent: false, webhook_url: null });
      const data = body.data ?? { mid: merchant.mid, event_date: ledger.stamp(clock.now()) };
      const webhook = { rescode: SUCCESS_RESCODE, resmsg: SUCCESS_RESMSG, type: body.type, data };
      void deliver.webhook(merchant, registration.url, webhook);
      return okReply({ sent: true, webhook_url: registration.url });
    },
  }),
];
