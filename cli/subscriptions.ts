import { type Command, Option } from "commander";
import { z } from "zod";
import type { RefundView } from "../functions/api/merchant-api-views";
import { chargeView, refundView, subscriptionView } from "../functions/api/views";
import { subscriptionStatus } from "../functions/core/base/model";
import { planTotal } from "../functions/core/base/plan-price";
import type { SubscriptionView } from "../functions/core/base/subscription-view";
import { listCharges } from "../functions/core/charging/charge-list";
import { amountColumn, chargeTable } from "./charges";
import {
  argumentsOf,
  CliError,
  type CommandRunner,
  emit,
  emitPage,
  noSubscription,
  orDash,
  pageOrBadCursor,
  parseLimit,
} from "./cli-io";
import { offText } from "./coupons";
import { formatInstant, instantOrDash } from "./dates";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

/** The last paid period: its index and span. */
const periodText = ({ current_period: period }: SubscriptionView) =>
  period ? `#${period.index} ${formatInstant(period.start)} → ${formatInstant(period.end)}` : "-";

/** The plan's unit amount, and with seats what they come to ("19.90 USD × 3 seats = 59.70 USD"). */
export function planAmountText({ plan }: SubscriptionView): string {
  const unit = `${plan.amount} ${plan.currency}`;
  return plan.quantity === 1
    ? unit
    : `${unit} × ${plan.quantity} seats = ${planTotal(plan)} ${plan.currency}`;
}

/** The catalog's price the plan was taken from, and its product. */
export const priceText = ({ plan }: SubscriptionView): string =>
  [plan.price_id, plan.product === undefined ? undefined : `(${plan.product})`]
    .filter((part) => part !== undefined)
    .join(" ") || "-";

/** The coupon a subscription has: its code and id, what it takes off each charge, and how many charges it has left. */
export function discountText({ discount, plan }: SubscriptionView): string {
  if (discount === null) return "-";
  const name = discount.code === undefined ? discount.coupon_id : `${discount.code} (${discount.coupon_id})`;
  const left = discount.charges_left === null ? "forever" : `${discount.charges_left} charge(s) left`;
  return `${name}: ${offText(discount, plan.currency)} off, ${left}`;
}

const listOptions = z.object({
  status: subscriptionStatus.optional(),
  externalId: z.string().optional(),
  limit: z.number(),
  cursor: z.string().optional(),
});

/**
 * Subscriptions as a table: the paid period by its end (subscriptions show has its span), the customer's
 * external id last, cut to what is left of the width.
 */
export function subscriptionTable(views: readonly SubscriptionView[]): string {
  return formatTable(
    ["ID", "STATUS", "PLAN", "PAID UNTIL", "NEXT CHARGE", "CARD", { title: "EXTERNAL ID", fit: "cut" }],
    views.map((view) => [
      view.subscription_id,
      view.status,
      `${view.plan.amount} ${view.plan.currency}${view.plan.quantity === 1 ? "" : ` × ${view.plan.quantity}`} / ${view.plan.interval_months} mo`,
      instantOrDash(view.current_period?.end),
      instantOrDash(view.next_charge_at),
      view.card ? `…${view.card.last4}` : "-",
      orDash(view.external_id),
    ]),
  );
}

/** A subscription's refunds as a table, the reason last, cut to what is left of the width. */
export function refundTable(refunds: readonly RefundView[]): string {
  const amount = amountColumn("AMOUNT", refunds);
  return formatTable(
    ["REFUND", "CHARGE", amount.title, "STATUS", "CREATED", { title: "REASON", fit: "cut" }],
    refunds.map((refund) => [
      refund.refund_id,
      refund.charge_id,
      amount.cell(refund.amount, refund.currency),
      refund.status,
      formatInstant(refund.created_at),
      refund.reason,
    ]),
  );
}

export function addSubscriptionsCommands(program: Command, run: CommandRunner): void {
  const subscriptions = program.command("subscriptions").description("read subscriptions");
  subscriptions
    .command("list")
    .description("subscriptions, from the same indexes as GET /v1/subscriptions (never a Scan)")
    .addOption(new Option("--status <status>", "only this status").choices(subscriptionStatus.options))
    .option("--external-id <id>", "only this customer's (your external_id)")
    .option("--limit <n>", "at most this many", parseLimit, 50)
    .option("--cursor <cursor>", "where the previous list stopped (it prints the next cursor)")
    .action(
      run(async (command, out) => {
        const { status, externalId, limit, cursor } = listOptions.parse(command.opts());
        await withTarget(await resolveTarget(command), async (session) => {
          const repository = await repositoryOf(session);
          const page = await pageOrBadCursor(() =>
            repository.listSubscriptions({ status, external_id: externalId }, { limit, cursor }),
          );
          const views = page.subscriptions.map(subscriptionView);
          emitPage(out, "subscriptions", views, page.cursor, subscriptionTable);
        });
      }),
    );
  subscriptions
    .command("show")
    .description("a subscription, its charge attempts and refunds")
    .argument("<id>", "subscription id")
    .action(
      run(async (command, out) => {
        const [id = ""] = argumentsOf(command);
        await withTarget(await resolveTarget(command), async (session) => {
          const repository = await repositoryOf(session);
          const [subscription, charges, refunds] = await Promise.all([
            repository.getSubscription(id),
            listCharges(id, { repository }),
            repository.listRefunds(id),
          ]);
          if (subscription === undefined || charges === undefined) throw new CliError(noSubscription(id));
          const view = subscriptionView(subscription);
          const chargeViews = charges.map((charge) => chargeView(charge));
          const refundViews = refunds.map(refundView);
          emit(out, { subscription: view, charges: chargeViews, refunds: refundViews }, () => [
            `subscription ${view.subscription_id}: ${view.status}${view.status_reason ? ` (${view.status_reason})` : ""}`,
            `  plan          ${planAmountText(view)} every ${view.plan.interval_months} month(s), ${view.billing}`,
            `  price         ${priceText(view)}`,
            `  discount      ${discountText(view)}`,
            `  paid period   ${periodText(view)}`,
            `  next charge   ${instantOrDash(view.next_charge_at)}`,
            `  card          ${view.card ? `${view.card.first4} …${view.card.last4}` : "-"}`,
            `  dunning       ${view.dunning ? `step ${view.dunning.step}: ${view.dunning.reason}` : "-"}`,
            `  created       ${formatInstant(view.created_at)}`,
            "",
            `charges (${chargeViews.length})`,
            chargeTable(chargeViews),
            "",
            `refunds (${refundViews.length})`,
            ...(refundViews.length === 0 ? [] : [refundTable(refundViews)]),
          ]);
        });
      }),
    );
}
