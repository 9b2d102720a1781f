import { CALLBACK_FORMS, type CallbackForm } from "../../sandbox/acquirer/callback-forms";
import type { Sandbox } from "../../sandbox/server";

/**
 * How much of the real gateway's own behaviour a run met (README, The real gateway): the forms only the real gateway
 * has, so that a run's table shows it tested them and not only the seed's reading.
 */
export interface RealFormCounts {
  /**
   * status_url calls sent (re-sends and duplicates included), by form: the real one (no status), the older short
   * names, the seed's.
   */
  readonly callbacks: Readonly<Record<CallbackForm, number>>;
  /** status_url calls posted as a form (the real gateway's way) that our intake acknowledged with rescode 0000. */
  readonly formsAcknowledged: number;
  /** Token payments (POST /tokenbilling/{token_id}/rebill) and token deletions the gateway was asked for. */
  readonly tokenPayments: number;
  readonly tokenDeletions: number;
  /** Our attempts voided because retrieve found no transaction (the gateway's Q004). */
  readonly voidedByRetrieve: number;
  /** EM00 / EX1000 answers the gateway gave. */
  readonly internalErrors: number;
  /** Chargebacks whose status changed after the report (deducted or resolved), each announced again. */
  readonly chargebackStatusChanges: number;
}

/** The counts of a run on this sandbox; `voidedByRetrieve` comes from our own ledger. */
export function realFormCounts(sandbox: Sandbox, voidedByRetrieve: number): RealFormCounts {
  const callbacks = Object.fromEntries(CALLBACK_FORMS.map((form) => [form, 0])) as Record<
    CallbackForm,
    number
  >;
  let formsAcknowledged = 0;
  for (const { form, method, acknowledged } of sandbox.deliveries.entries("status_url")) {
    if (form !== undefined) callbacks[form] += 1;
    if (method === "POST" && acknowledged) formsAcknowledged += 1;
  }
  const { total, byRoute } = sandbox.faults.counters();
  const payments = [...sandbox.state.payments.payments()];
  return {
    callbacks,
    formsAcknowledged,
    tokenPayments: byRoute["payments.tokenbilling.rebill"]?.requests ?? 0,
    tokenDeletions: byRoute["payments.tokenbilling.delete"]?.requests ?? 0,
    voidedByRetrieve,
    internalErrors: total.internalError,
    chargebackStatusChanges: payments.filter(
      (payment) => (payment.chargeback?.status ?? "REPORTED") !== "REPORTED",
    ).length,
  };
}

/** The counts as rows of a run's table: the callbacks by form, then the real gateway's own answers. */
export function realFormRows(counts: RealFormCounts): [string, string][] {
  const { callbacks } = counts;
  return [
    [
      "status_url callbacks",
      `${callbacks.real} real (no status), ${callbacks.short} short names, ${callbacks.seed} seed's form; ` +
        `${counts.formsAcknowledged} posted as forms and acknowledged`,
    ],
    [
      "real gateway answers",
      `${counts.tokenPayments} token payments, ${counts.tokenDeletions} token deletions, ` +
        `${counts.voidedByRetrieve} attempts voided by Q004, ${counts.internalErrors} EM00/EX1000, ` +
        `${counts.chargebackStatusChanges} chargeback status changes`,
    ],
  ];
}
