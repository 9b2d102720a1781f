import type { Command } from "commander";
import { z } from "zod";
import { couponViewOf } from "../functions/api/coupon-schemas";
import {
  argumentsOf,
  CliError,
  type CommandRunner,
  emit,
  emitPage,
  orDash,
  pageOrBadCursor,
  parseLimit,
} from "./cli-io";
import { formatInstant, instantOrDash } from "./dates";
import { couponsOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

// The merchant's coupons (README, Coupons), read from the table as GET /v1/coupons reads them: what each takes off,
// for how long, and how often it was redeemed.

type CouponView = ReturnType<typeof couponViewOf>;

/** What a coupon or a subscription's discount takes off each charge: "20%", or "5.00 USD". */
export const offText = (
  discount: { readonly percent_off?: number | null; readonly amount_off?: string | null },
  currency: string | null | undefined,
): string =>
  discount.amount_off === undefined || discount.amount_off === null
    ? `${discount.percent_off}%`
    : `${discount.amount_off} ${currency ?? ""}`.trimEnd();

/** How many period charges a coupon takes off. */
const durationText = (coupon: CouponView) =>
  coupon.duration === "repeating" ? `${coupon.duration_in_months} charges` : coupon.duration;

/** Redemptions, and their cap when it has one. */
const redeemedText = (coupon: CouponView) =>
  coupon.max_redemptions === null
    ? String(coupon.times_redeemed)
    : `${coupon.times_redeemed} of ${coupon.max_redemptions}`;

/** Coupons as a table, by id. */
export function couponTable(coupons: readonly CouponView[]): string {
  return formatTable(
    ["ID", "CODE", "OFF", "DURATION", "REDEEMED", "VALID", "REDEEM BY", "CREATED"],
    coupons.map((coupon) => [
      coupon.coupon_id,
      orDash(coupon.code),
      offText(coupon, coupon.currency),
      durationText(coupon),
      redeemedText(coupon),
      coupon.valid ? "yes" : "no",
      instantOrDash(coupon.redeem_by),
      formatInstant(coupon.created_at),
    ]),
  );
}

const listOptions = z.object({ limit: z.number(), cursor: z.string().optional() });

export function addCouponsCommands(program: Command, run: CommandRunner): void {
  const coupons = program.command("coupons").description("read the merchant's coupons");
  coupons
    .command("list")
    .description("coupons by id, as GET /v1/coupons lists them")
    .option("--limit <n>", "at most this many", parseLimit, 50)
    .option("--cursor <cursor>", "where the previous list stopped (it prints the next cursor)")
    .action(
      run(async (command, out) => {
        const { limit, cursor } = listOptions.parse(command.opts());
        await withTarget(await resolveTarget(command), async (session) => {
          const { coupons: store, clock } = await couponsOf(session);
          const page = await pageOrBadCursor(() => store.listCoupons({ limit, cursor }));
          const views = page.coupons.map((coupon) => couponViewOf(coupon, clock.now()));
          emitPage(out, "coupons", views, page.cursor, couponTable);
        });
      }),
    );
  coupons
    .command("show")
    .description("a coupon: what it takes off, for how long, how often it was redeemed")
    .argument("<id>", "coupon id (co_…)")
    .action(
      run(async (command, out) => {
        const [id = ""] = argumentsOf(command);
        await withTarget(await resolveTarget(command), async (session) => {
          const { coupons: store, clock } = await couponsOf(session);
          const coupon = await store.getCoupon(id);
          if (coupon === undefined)
            throw new CliError(`no coupon ${id} at this target: find its id with coupons list`);
          const view = couponViewOf(coupon, clock.now());
          emit(out, { coupon: view }, () => [
            `coupon ${view.coupon_id}: ${view.valid ? "valid" : "no longer redeemable"}`,
            `  code          ${orDash(view.code)}`,
            `  off           ${offText(view, view.currency)} of each period charge`,
            `  duration      ${durationText(view)}`,
            `  redeemed      ${redeemedText(view)}`,
            `  redeem by     ${instantOrDash(view.redeem_by)}`,
            `  created       ${formatInstant(view.created_at)}`,
          ]);
        });
      }),
    );
}
