import { setTimeout as sleep } from "node:timers/promises";
import type { Subscription } from "../../functions/core/model";
import type { BillingRepository } from "../../functions/core/ports";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { ApiAnswer, MerchantClient } from "../merchant-client";

// The merchant's own requests in the chaos run, over HTTP while the charge workers renew the same subscriptions: cancels
// at period end and cancels now with a prorated refund, pauses (refused while a period is being charged) and their
// resumes a renewal later, and new cards for past_due subscriptions in dunning. Whatever they race, no period may be
// charged twice or lost.

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
}

/** The merchant's concurrent requests at once. */
const CONCURRENCY = 4;
const CARD = { number: "5555555555554444", expiry: "203012", cvc: "123" };
/** A resume meets a conflict when the subscription changed under it: asked again, as a merchant would. */
const RESUME_TRIES = 5;

export class MerchantActions {
  readonly #paused: string[] = [];
  readonly #pauseRefused: string[] = [];
  #counts: MerchantActionCounts = {
    cancelsAtPeriodEnd: 0,
    cancelsWithRefund: 0,
    pauses: 0,
    pausesRefused: 0,
    resumes: 0,
    cardUpdates: 0,
    cardUpdatesRefused: 0,
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

  /** What the merchant does during renewal `renewal` (1: cancels and pauses, 2: resumes, 3: new cards). */
  async during(renewal: number, ids: readonly string[], repository: BillingRepository): Promise<void> {
    if (renewal === 1) await this.#cancelsAndPauses(ids);
    if (renewal === 2) await mapConcurrently(this.#paused, CONCURRENCY, (id) => this.#resume(id));
    if (renewal === 3) await this.#newCards(await pastDue(repository, new Set(ids)));
  }

  async #cancelsAndPauses(ids: readonly string[]): Promise<void> {
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
    await Promise.all([
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

  /** Once the renewal is settled: a pause refused while its period was being charged is asked again, and applies. */
  async afterSettling(renewal: number): Promise<void> {
    if (renewal !== 1) return;
    const refused = this.#pauseRefused.splice(0);
    await mapConcurrently(refused, CONCURRENCY, (id) => this.#pause(id, "2"));
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
    for (let tries = 1; tries <= RESUME_TRIES; tries += 1) {
      const answer = await this.#call("POST", id, "/resume", {}, `resume-${tries}`);
      if (answer.status === 200) {
        this.#count("resumes");
        return;
      }
      if (answer.status !== 409) break;
      await sleep(50);
    }
    throw new Error(`resume of ${id} did not succeed`);
  }

  async #newCards(ids: readonly string[]): Promise<void> {
    const chosen = ids.filter((_, index) => index % 2 === 0);
    await mapConcurrently(chosen, CONCURRENCY, async (id) => {
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

/**
 * 200: done; 409: refused, nothing changed (a pause while the period is being charged, a cancel at period end with
 * no paid period running); anything else fails the run.
 */
function accepted(answer: ApiAnswer, what: string): boolean {
  if (answer.status !== 200 && answer.status !== 409) throw new Error(`${what} answered ${answer.status}`);
  return answer.status === 200;
}

/** The run's past_due subscriptions, from the status listing (an index, as the merchant API reads it). */
async function pastDue(repository: BillingRepository, ours: ReadonlySet<string>): Promise<string[]> {
  const found: Subscription[] = [];
  let cursor: string | undefined;
  do {
    const page = await repository.listSubscriptions({ status: "past_due" }, { limit: 100, cursor });
    found.push(...page.subscriptions);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return found.map((subscription) => subscription.subscription_id).filter((id) => ours.has(id));
}
