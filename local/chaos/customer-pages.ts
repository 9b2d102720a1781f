import { z } from "zod";
import { portalSessionView } from "../../functions/api/merchant-api-schemas";
import { checkoutView } from "../../functions/api/merchant-api-views";
import type { Plan } from "../../functions/core/base/model";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { MerchantClient } from "../clients/merchant-client";
import { sandboxControl } from "../clients/sandbox-controls";
import type { BillingStack } from "../stack/billing-stack";
import { pastDue } from "./merchant-actions";

// The customers' own pages in the chaos run, over HTTP as a browser posts them (the page's form token, same origin):
// hosted checkouts paid at once, refused and tried again from the page, or left to expire; and the customer portal —
// the overdue period retried with the card on file or paid with a new card in the window, a cancel at the period's
// end (some kept again). Whatever they race, no period may be charged twice or lost, and no checkout may stay pending
// past its end.

export interface CustomerPageCounts {
  readonly hostedPaid: number;
  /** Refused in the window, then tried again from the checkout page and paid. */
  readonly hostedRetried: number;
  /** Never paid: each must end expired (checkout.expired) once its link has run out. */
  readonly hostedLeft: number;
  readonly portalRetries: number;
  readonly portalNewCards: number;
  readonly portalCancels: number;
  /** Portal actions the page no longer offered when posted (404: the subscription moved on meanwhile). */
  readonly portalActionsGone: number;
}

/** The card details a customer types in the window (sandbox test cards). */
export interface WindowCards {
  readonly approving: string;
  readonly refused: string;
  readonly expiry: string;
  readonly cvc: string;
}

const CONCURRENCY = 4;
/** A hosted checkout's link lives an hour here: the run's clock passes it long before the end. */
const CHECKOUT_MINUTES = 60;

const requestPay = z.looseObject({ fgkey: z.string() });

export class CustomerPages {
  /** Portal sessions asked for so far: each under its own key. */
  #sessions = 0;
  /** The hosted checkouts left unpaid: canceled once expired, so no merchant request is made of them. */
  readonly leftToExpire = new Set<string>();
  #counts: CustomerPageCounts = {
    hostedPaid: 0,
    hostedRetried: 0,
    hostedLeft: 0,
    portalRetries: 0,
    portalNewCards: 0,
    portalCancels: 0,
    portalActionsGone: 0,
  };

  constructor(
    private readonly client: MerchantClient,
    private readonly sandboxUrl: string,
    private readonly cards: WindowCards,
    private readonly random: () => number,
    /** Every page and answer, for the leak scan. */
    private readonly answers: string[],
  ) {}

  get counts(): CustomerPageCounts {
    return this.#counts;
  }

  /**
   * `count` hosted checkouts (our checkout page): a third paid at once, a third refused in the window and paid on
   * the page's second try, a third never paid. Answers the subscription ids.
   */
  async hostedCheckouts(count: number, plan: Plan): Promise<string[]> {
    return mapConcurrently(
      Array.from({ length: count }, (_, index) => index),
      CONCURRENCY,
      async (index) => {
        const customer = { name: `Hosted customer ${index}`, email: `hosted${index}@example.com` };
        const answer = await this.client.post(
          "/v1/checkouts",
          { customer, plan, billing: "token", expires_in_minutes: CHECKOUT_MINUTES },
          `chaos-hosted-${index}`,
        );
        this.answers.push(JSON.stringify(answer.body));
        const checkout = checkoutView.parse(answer.body);
        const fate = index % 3;
        if (fate === 2) {
          this.#count("hostedLeft");
          this.leftToExpire.add(checkout.subscription_id);
          return checkout.subscription_id;
        }
        // The customer opens the page, whose pay button opens the window the checkout prepared.
        await this.#open(checkout.checkout_url);
        const firstCard = fate === 1 ? this.cards.refused : this.cards.approving;
        await this.#payInWindow(checkout.fgkey, firstCard);
        if (fate === 0) {
          this.#count("hostedPaid");
          return checkout.subscription_id;
        }
        // The refusal reaches the page through the intake queue: the page offers another try once it has.
        const refused = await this.#until(checkout.checkout_url, (text) =>
          text.includes('name="form_token"'),
        );
        await this.#post(`${checkout.checkout_url}/retry`, formTokenOf(refused));
        const again = await this.#open(checkout.checkout_url);
        await this.#payInWindow(windowOf(again).fgkey, this.cards.approving);
        this.#count("hostedRetried");
        return checkout.subscription_id;
      },
    );
  }

  /**
   * The portal of some past_due customers (half retry the overdue period with the card on file, half pay it with a
   * new card in the window) and of some active ones (a cancel at the period's end, every other one kept again).
   */
  async portal(overdue: readonly string[], active: readonly string[]): Promise<void> {
    await Promise.all([
      mapConcurrently(overdue, CONCURRENCY, async (id) => {
        const url = await this.#portalOf(id);
        const page = await this.#open(url);
        if (this.random() < 0.5) {
          if (await this.#act(page, /Retry with the card ending \d{4}/)) this.#count("portalRetries");
          return;
        }
        const started = await this.#act(page, /Pay [^<]+ with a new card/);
        if (started === undefined) return;
        // The window page sends the customer back to the portal when no window could be opened (the overdue
        // period's charge in flight, the gateway refusing to prepare one): nothing to pay then.
        const cardPage = await this.#open(started, [200, 303]);
        if (!cardPage.includes('id="request-pay"')) {
          this.#count("portalActionsGone");
          return;
        }
        await this.#payInWindow(windowOf(cardPage).fgkey, this.cards.approving);
        this.#count("portalNewCards");
      }),
      mapConcurrently(active, CONCURRENCY, async (id, index) => {
        const url = await this.#portalOf(id);
        const done = await this.#act(await this.#open(url), /Cancel at the end of the period/);
        if (done === undefined) return;
        this.#count("portalCancels");
        if (index % 2 === 0) await this.#act(await this.#open(done), /Keep my subscription/);
      }),
    ]);
  }

  async #portalOf(subscriptionId: string): Promise<string> {
    this.#sessions += 1;
    const answer = await this.client.post(
      "/v1/portal-sessions",
      { subscription_id: subscriptionId },
      `chaos-portal-${subscriptionId}-${this.#sessions}`,
    );
    this.answers.push(JSON.stringify(answer.body));
    return portalSessionView.parse(answer.body).url;
  }

  /** Posts the page's form whose button reads `label`; where it led, or undefined when the page did not offer it. */
  async #act(page: string, label: RegExp): Promise<string | undefined> {
    const action = actionOf(page, label);
    if (action === undefined) {
      this.#count("portalActionsGone");
      return undefined;
    }
    const answer = await this.#post(action, formTokenOf(page));
    if (answer.status === 404) {
      this.#count("portalActionsGone");
      return undefined;
    }
    if (answer.status !== 303) throw new Error(`a page action answered ${answer.status}`);
    return answer.location;
  }

  async #payInWindow(fgkey: string, cardNumber: string): Promise<void> {
    await sandboxControl(this.sandboxUrl, `/sandbox/windows/${fgkey}/complete`, {
      card_number: cardNumber,
      expiry_date: this.cards.expiry,
      cvc: this.cards.cvc,
    });
  }

  async #open(url: string, expected: readonly number[] = [200]): Promise<string> {
    const response = await fetch(url, { redirect: "manual" });
    const text = await response.text();
    this.answers.push(text);
    if (!expected.includes(response.status))
      throw new Error(`GET ${new URL(url).pathname.split("/")[1]} answered ${response.status}`);
    return text;
  }

  /** Opens the page until it shows what `ready` looks for (a result the intake queue has still to bring). */
  async #until(url: string, ready: (text: string) => boolean): Promise<string> {
    for (let tries = 0; tries < 100; tries += 1) {
      const text = await this.#open(url);
      if (ready(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the page never showed the result");
  }

  async #post(url: string, formToken: string): Promise<{ status: number; location: string | undefined }> {
    const response = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: new URLSearchParams({ form_token: formToken }).toString(),
    });
    this.answers.push(await response.text());
    return { status: response.status, location: response.headers.get("location") ?? undefined };
  }

  #count(what: keyof CustomerPageCounts): void {
    this.#counts = { ...this.#counts, [what]: this.#counts[what] + 1 };
  }
}

/**
 * The customers' portal during a renewal: the past_due customers the merchant gives no new card (every other one),
 * and a few others cancelling at the period's end.
 */
export async function portalActions(
  pages: CustomerPages,
  ids: readonly string[],
  stack: BillingStack,
): Promise<void> {
  const overdue = (await pastDue(stack.services.repository, new Set(ids))).filter(
    (_, index) => index % 2 === 1,
  );
  const overdueSet = new Set(overdue);
  await pages.portal(
    overdue,
    ids.filter((id, index) => index % 40 === 13 && !overdueSet.has(id)),
  );
}

/** The window a page opens (its request_pay block). */
const windowOf = (page: string) => requestPay.parse(scriptJson(page, "request-pay"));

function formTokenOf(page: string): string {
  const found = /name="form_token" value="([^"]*)"/.exec(page);
  if (found?.[1] === undefined) throw new Error("the page has no form token");
  return found[1];
}

function scriptJson(page: string, id: string): unknown {
  const found = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(page);
  if (found?.[1] === undefined) throw new Error(`the page has no JSON block ${id}`);
  return JSON.parse(found[1]);
}

/** The action URL of the page's form whose button reads `label`. */
function actionOf(page: string, label: RegExp): string | undefined {
  const forms = page.matchAll(/<form method="post" action="([^"]+)">((?:(?!<\/form>)[\s\S])*)<\/form>/g);
  for (const [, action, inner] of forms)
    if (
      action !== undefined &&
      new RegExp(`<button type="submit"[^>]*>${label.source}</button>`).test(inner ?? "")
    )
      return action.replaceAll("&amp;", "&");
  return undefined;
}
