import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod";
import type { Subscription } from "../../functions/core/base/model";
import type { BillingRepository } from "../../functions/core/ports/billing-repository";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { ApiAnswer, MerchantClient } from "../clients/merchant-client";

// The merchant's own requests in the chaos run, over HTTP while the charge workers renew the same subscriptions: cancels
// at period end and cancels now with a prorated refund, pauses (refused while a period is being charged) and their
// resumes a renewal later, new cards for past_due subscriptions in dunning, concurrent partial refunds of one charge
// (shared and distinct keys, each asked again), upgrades with proration charge_now to two amounts racing each other
// and an edit, asked again with a new key; seat changes (more seats charged now under two keys at once, fewer at the
// next renewal, and fewer now with their unused part refunded, racing the renewal and each other) and coupons applied, replaced and removed, racing the renewals, one coupon capped below the number of
// subscriptions that race to redeem it; and forgeries: recurring notices without the plan's secret, partner hints for orders never paid
// and for other subscriptions' sales. Whatever they race, no period may be charged twice or lost, and every sale and
// refund must be the ledger's.

export interface MerchantActionCounts {
  readonly cancelsAtPeriodEnd: number;
  readonly cancelsWithRefund: number;
  readonly pauses: number;
  /** Pauses refused (409): the period was being charged, or the subscription had moved on. */
  readonly pausesRefused: number;
  readonly resumes: number;
  readonly cardUpdates: number;
  /** Card updates refused (409 while the overdue period's charge was in flight, or 422). */
  readonly cardUpdatesRefused: number;
  /** Partial refund requests sent (concurrent, some under one key), and what each key settled as. */
  readonly refundRequests: number;
  readonly refundsMade: number;
  readonly refundsRefused: number;
  /** Upgrade requests with proration charge_now (concurrent, racing an edit, then asked again with a new key). */
  readonly upgrades: number;
  /** Seat changes (more with charge_now, concurrent under two keys; fewer at the next renewal), racing renewals. */
  readonly seatChanges: number;
  /** Coupons applied or removed racing renewals, and those refused (the capped coupon used up: 409). */
  readonly couponEdits: number;
  readonly couponsRefused: number;
  /** Forged recurring notices (each must be a 404) and partner hints (acknowledged, changing nothing). */
  readonly forgedNotices: number;
  readonly forgedHints: number;
}

/** The merchant's concurrent requests at once. */
const CONCURRENCY = 4;
const CARD = { number: "5555555555554444", expiry: "203012", cvc: "123" };
/** A resume or an edit meets a conflict when the subscription changed under it: asked again, as a merchant would. */
const CONFLICT_TRIES = 5;
/** Refunds of one charge: this many keys, each sent twice at once; 3.00 each of 19.90, so some are refused. */
const REFUND_KEYS = 8;
const REFUND_AMOUNT = "3.00";
/** What the upgrades ask for (from 19.90), and what a third asks for at the same time under its own key. */
const UPGRADED_AMOUNT = "29.90";
const HIGHER_AMOUNT = "39.90";
/** The coupons the run redeems: a percentage for two charges, an amount off once, and one capped below its takers. */
const COUPONS = {
  repeating: { percent_off: 15, duration: "repeating", duration_in_months: 2 },
  once: { amount_off: "5.00", currency: "USD", duration: "once" },
  capped: { percent_off: 100, duration: "once", max_redemptions: 1 },
} as const;
type CouponName = keyof typeof COUPONS;

export class MerchantActions {
  readonly #paused: string[] = [];
  readonly #pauseRefused: string[] = [];
  #refunding: string[] = [];
  #upgrading: string[] = [];
  #seating: string[] = [];
  readonly #coupons = new Map<CouponName, string>();
  #counts: MerchantActionCounts = {
    cancelsAtPeriodEnd: 0,
    cancelsWithRefund: 0,
    pauses: 0,
    pausesRefused: 0,
    resumes: 0,
    cardUpdates: 0,
    cardUpdatesRefused: 0,
    refundRequests: 0,
    refundsMade: 0,
    refundsRefused: 0,
    upgrades: 0,
    seatChanges: 0,
    couponEdits: 0,
    couponsRefused: 0,
    forgedNotices: 0,
    forgedHints: 0,
  };

  constructor(
    private readonly client: MerchantClient,
    private readonly random: () => number,
    /** Every answer's body, for the leak scan. */
    private readonly answers: string[],
  ) {}

  get counts(): MerchantActionCounts {
    return this.#counts;
  }

  /**
   * What the merchant does during renewal `renewal` (1: cancels, pauses and refunds; 2: resumes and forgeries; 3: new
   * cards).
   */
  async during(renewal: number, ids: readonly string[], repository: BillingRepository): Promise<void> {
    if (renewal === 1) await this.#cancelsPausesAndRefunds(ids);
    if (renewal === 2)
      await Promise.all([
        mapConcurrently(this.#paused, CONCURRENCY, (id) => this.#resume(id)),
        this.#forgeries(ids),
        mapConcurrently(this.#seating, CONCURRENCY, (id) =>
          Promise.all([
            this.#seats(id, 2, "fewer"),
            this.#seats(id, 1, "fewer-credited", "refund_now"),
            this.#coupon(id, "once"),
            this.#coupon(id, null),
            this.#seats(id, 5, "more-again", "charge_now"),
          ]),
        ),
      ]);
    // Every other past_due customer gets a new card from the merchant; the others fix it in the portal.
    if (renewal === 3)
      await this.#newCards((await pastDue(repository, new Set(ids))).filter((_, index) => index % 2 === 0));
  }

  async #cancelsPausesAndRefunds(ids: readonly string[]): Promise<void> {
    // Shuffled by the seed first, so the seed decides who does what whatever the requests' timing; a few of each
    // however small the run.
    const shuffled = ids
      .map((id) => ({ id, order: this.random() }))
      .sort((a, b) => a.order - b.order)
      .map(({ id }) => id);
    const take = (share: number) => shuffled.splice(0, Math.max(2, Math.round(ids.length * share)));
    const atPeriodEnd = take(0.02);
    const withRefund = take(0.01);
    const pauses = take(0.02);
    this.#refunding = take(0.01);
    this.#upgrading = take(0.01);
    this.#seating = take(0.01);
    await this.#createCoupons();
    await Promise.all([
      mapConcurrently(this.#seating, CONCURRENCY, (id) =>
        Promise.all([
          this.#seats(id, 3, "more", "charge_now"),
          this.#seats(id, 4, "even-more", "charge_now"),
          this.#coupon(id, "repeating"),
          this.#coupon(id, "capped"),
        ]),
      ),
      mapConcurrently(this.#refunding, CONCURRENCY, (id) => this.#refundRace(id, "first")),
      mapConcurrently(atPeriodEnd, CONCURRENCY, async (id) => {
        if (accepted(await this.#call("DELETE", id, "", { at_period_end: true }), "cancel at period end"))
          this.#count("cancelsAtPeriodEnd");
      }),
      mapConcurrently(withRefund, CONCURRENCY, async (id) => {
        if (accepted(await this.#call("DELETE", id, "", { refund: "prorated" }), "cancel with refund"))
          this.#count("cancelsWithRefund");
      }),
      mapConcurrently(pauses, CONCURRENCY, (id) => this.#pause(id, "1")),
    ]);
  }

  /**
   * Once the renewal is settled: a pause refused while its period was being charged is asked again, and applies; each
   * refund key is asked again and answers what it came to; the upgrades race an edit (renewal 1), and are asked again
   * with a new key once settled (renewal 2).
   */
  async afterSettling(renewal: number): Promise<void> {
    if (renewal === 1) {
      const refused = this.#pauseRefused.splice(0);
      await Promise.all([
        mapConcurrently(refused, CONCURRENCY, (id) => this.#pause(id, "2")),
        mapConcurrently(this.#refunding, CONCURRENCY, (id) => this.#refundRace(id, "again")),
        mapConcurrently(this.#upgrading, CONCURRENCY, (id) =>
          Promise.all([
            this.#upgrade(id, "a"),
            this.#upgrade(id, "b"),
            this.#upgrade(id, "higher", HIGHER_AMOUNT),
            this.#edit(id),
          ]),
        ),
        // Fewer seats with their unused part refunded, asked at once under three keys (to two targets).
        mapConcurrently(this.#seating, CONCURRENCY, (id) =>
          Promise.all([
            this.#seats(id, 2, "credited-a", "refund_now"),
            this.#seats(id, 2, "credited-b", "refund_now"),
            this.#seats(id, 1, "credited-c", "refund_now"),
          ]),
        ),
      ]);
    }
    if (renewal === 2) await mapConcurrently(this.#upgrading, CONCURRENCY, (id) => this.#upgrade(id, "c"));
  }

  /**
   * Partial refunds of the subscription's first charge, REFUND_KEYS keys each sent twice at once; asked `again`, each
   * key once, it must answer what it came to: made (201) or refused (422).
   */
  async #refundRace(id: string, round: "first" | "again"): Promise<void> {
    const sends = round === "first" ? 2 : 1;
    const keys = Array.from({ length: REFUND_KEYS }, (_, key) => key);
    await Promise.all(
      keys.flatMap((key) =>
        Array.from({ length: sends }, async () => {
          const answer = await this.client.post(
            `/v1/charges/${id}-0-0/refunds`,
            { amount: REFUND_AMOUNT, reason: "chaos partial refund" },
            `chaos-${id}-refund-${key}`,
          );
          this.answers.push(JSON.stringify(answer.body));
          this.#count("refundRequests");
          if (![201, 202, 422].includes(answer.status))
            throw new Error(`refund of ${id} answered ${answer.status}`);
          if (round === "again" && answer.status === 201) this.#count("refundsMade");
          if (round === "again" && answer.status === 422) this.#count("refundsRefused");
        }),
      ),
    );
  }

  /**
   * A plan change with proration charge_now: 200, 202 (its proration being settled) or 409 (another change being paid
   * for). Concurrent ones each price their own difference on the plan they find; a price computed on a plan another
   * change replaced is priced again, never charged.
   */
  async #upgrade(id: string, key: string, amount = UPGRADED_AMOUNT): Promise<void> {
    const answer = await this.#call("POST", id, "/adjust", { amount, proration: "charge_now" }, key);
    this.#count("upgrades");
    if (![200, 202, 409].includes(answer.status))
      throw new Error(`upgrade of ${id} answered ${answer.status}`);
  }

  /** The run's coupons, each made once (its key). */
  async #createCoupons(): Promise<void> {
    for (const [name, terms] of Object.entries(COUPONS) as [CouponName, object][]) {
      const answer = await this.client.post("/v1/coupons", terms, `chaos-coupon-${name}`);
      const id = (answer.body as { coupon_id?: unknown }).coupon_id;
      if (answer.status !== 201 || typeof id !== "string")
        throw new Error(`coupon ${name} answered ${answer.status}`);
      this.#coupons.set(name, id);
    }
  }

  /**
   * New seats: 200, 202 (a proration being settled) or 409 (another change being paid for, or a proration priced on a
   * plan since replaced too often); fewer seats wait for the next renewal, or with refund_now give their unused part
   * back at once.
   */
  async #seats(id: string, quantity: number, key: string, proration = "none"): Promise<void> {
    const answer = await this.#call("POST", id, "/adjust", { quantity, proration }, `seats-${key}`);
    this.#count("seatChanges");
    if (![200, 202, 409].includes(answer.status)) throw new Error(`seats of ${id} answered ${answer.status}`);
  }

  /**
   * A coupon applied (null: removed): 200; a 409 because the subscription changed under it is asked again, as a
   * merchant would; one because the capped coupon is used up, or the subscription canceled, is final.
   */
  async #coupon(id: string, name: CouponName | null): Promise<void> {
    const coupon = name === null ? null : this.#coupons.get(name);
    for (let tries = 1; tries <= CONFLICT_TRIES; tries += 1) {
      const answer = await this.#call("POST", id, "", { coupon }, `coupon-${name ?? "none"}-${tries}`);
      this.#count("couponEdits");
      if (answer.status === 200) return;
      if (answer.status !== 409) throw new Error(`coupon on ${id} answered ${answer.status}`);
      const reason = JSON.stringify(answer.body);
      if (reason.includes("max_redemptions")) return this.#count("couponsRefused");
      if (reason.includes("canceled")) return;
      await sleep(50);
    }
    throw new Error(`coupon on ${id} kept meeting conflicts`);
  }

  /**
   * The capped coupon never redeemed past its cap: its own count, and the subscriptions that ever had its discount
   * (their events), at most max_redemptions.
   */
  async couponOverRedemptions(
    events: readonly { readonly subscription_id: string; readonly subscription?: unknown }[],
  ) {
    const id = this.#coupons.get("capped");
    if (id === undefined) return [];
    const answer = await this.client.get(`/v1/coupons/${id}`, z.object({ times_redeemed: z.number() }));
    const holders = new Set(
      events
        .filter((event) => JSON.stringify(event.subscription ?? {}).includes(`"coupon_id":"${id}"`))
        .map((event) => event.subscription_id),
    );
    const cap = COUPONS.capped.max_redemptions;
    return [
      ...(answer.times_redeemed > cap
        ? [`${id}: redeemed ${answer.times_redeemed} times, at most ${cap} allowed`]
        : []),
      ...(holders.size > cap
        ? [`${id}: ${holders.size} subscriptions had its discount, at most ${cap} allowed`]
        : []),
    ];
  }

  /** The merchant's own references edited while an upgrade is paid for. */
  async #edit(id: string): Promise<void> {
    await this.#untilApplied("edit", (tries) =>
      this.#call("POST", id, "", { metadata: { chaos: "edited" } }, `edit-${tries}`),
    );
  }

  /**
   * Forgeries through the webhook routes: recurring notices naming a subscription and its own paid order, without its
   * plan's secret (each must be a 404); partner hints naming an order never paid, and another subscription's sale
   * with a transaction that is not its own (acknowledged; process-intake must change nothing).
   */
  async #forgeries(ids: readonly string[]): Promise<void> {
    const targets = ids.filter((_, index) => index % 50 === 7);
    await mapConcurrently(targets, CONCURRENCY, async (id, index) => {
      for (const query of [`subscription_id=${id}`, `subscription_id=${id}&token=forged`]) {
        const notice = await this.client.post(
          `/webhooks/recurring?${query}`,
          { order_id: `${id}-0-0` },
          "forged",
        );
        this.#count("forgedNotices");
        if (notice.status !== 404) throw new Error(`a forged recurring notice answered ${notice.status}`);
      }
      const other = ids[(ids.indexOf(id) + 1) % ids.length] ?? id;
      const hints: readonly (readonly [string, string])[] = [
        [`${id}-0-9`, `FORGED${String(index).padStart(18, "0")}`],
        [`${other}-0-0`, `FORGED${String(index + 1).padStart(18, "0")}`],
      ];
      for (const [orderId, transactionId] of hints) {
        const hint = await this.client.post(
          "/webhooks/partner",
          partnerHint(orderId, transactionId),
          "forged",
        );
        this.#count("forgedHints");
        if (hint.status !== 200) throw new Error(`a forged partner hint answered ${hint.status}`);
      }
    });
  }

  async #pause(id: string, key: string): Promise<void> {
    if (accepted(await this.#call("POST", id, "/pause", {}, key), "pause")) {
      this.#paused.push(id);
      this.#count("pauses");
    } else {
      this.#pauseRefused.push(id);
      this.#count("pausesRefused");
    }
  }

  async #resume(id: string): Promise<void> {
    await this.#untilApplied("resume", (tries) => this.#call("POST", id, "/resume", {}, `resume-${tries}`));
    this.#count("resumes");
  }

  /** A change met by a conflict (the subscription changed under it) is asked again, as a merchant would. */
  async #untilApplied(what: string, request: (tries: number) => Promise<ApiAnswer>): Promise<void> {
    let last: ApiAnswer | undefined;
    for (let tries = 1; tries <= CONFLICT_TRIES; tries += 1) {
      last = await request(tries);
      if (last.status === 200) return;
      if (last.status !== 409) break;
      await sleep(50);
    }
    throw new Error(`${what} did not succeed: ${last?.status} ${JSON.stringify(last?.body)}`);
  }

  async #newCards(ids: readonly string[]): Promise<void> {
    await mapConcurrently(ids, CONCURRENCY, async (id) => {
      const answer = await this.#call("POST", id, "/payment-method", { card: CARD });
      if (answer.status === 200 || answer.status === 202) this.#count("cardUpdates");
      else if (answer.status === 409 || answer.status === 422) this.#count("cardUpdatesRefused");
      else throw new Error(`card update of ${id} answered ${answer.status}`);
    });
  }

  async #call(
    method: "POST" | "DELETE",
    id: string,
    path: string,
    body: unknown,
    key = "1",
  ): Promise<ApiAnswer> {
    const url = `/v1/subscriptions/${id}${path}`;
    const answer =
      method === "DELETE"
        ? await this.client.delete(url, body)
        : await this.client.post(url, body, `chaos-${id}${path}-${key}`);
    this.answers.push(JSON.stringify(answer.body));
    return answer;
  }

  #count(what: keyof MerchantActionCounts): void {
    this.#counts = { ...this.#counts, [what]: this.#counts[what] + 1 };
  }
}

/** A PAYMENT_COMPLETED event as the partner API sends it (unsigned: a hint only). */
function partnerHint(orderId: string, transactionId: string) {
  return {
    id: `evt_${transactionId}`,
    eventType: "PAYMENT_COMPLETED",
    timestamp: new Date().toISOString(),
    data: {
      invoice: { invoiceId: `inv_${transactionId}`, invoiceNumber: orderId, status: "COMPLETED" },
      payment: { transactionId, amount: "19.90", currency: "USD", rescode: "0000", resmsg: "Success" },
    },
  };
}

/**
 * 200: done; 409: refused, nothing changed (a pause while the period is being charged, a cancel at period end with
 * no paid period running); anything else fails the run.
 */
function accepted(answer: ApiAnswer, what: string): boolean {
  if (answer.status !== 200 && answer.status !== 409) throw new Error(`${what} answered ${answer.status}`);
  return answer.status === 200;
}

/** The run's past_due subscriptions, from the status listing (an index, as the merchant API reads it). */
export async function pastDue(repository: BillingRepository, ours: ReadonlySet<string>): Promise<string[]> {
  const found: Subscription[] = [];
  let cursor: string | undefined;
  do {
    const page = await repository.listSubscriptions({ status: "past_due" }, { limit: 100, cursor });
    found.push(...page.subscriptions);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return found.map((subscription) => subscription.subscription_id).filter((id) => ours.has(id));
}
