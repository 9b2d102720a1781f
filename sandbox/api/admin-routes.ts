import { z } from "zod";
import { DELIVERY_KINDS } from "../acquirer/deliveries";
import { okReply, parseFields } from "../http/replies";
import { defineRoute, type RouteContext, type RouteDefinition } from "../http/routes";
import { RECORD_KINDS } from "../state/ledger";
import { parseIsoDuration } from "../time/iso-duration";
import { SETTLEMENT_AMOUNT_FIELDS } from "./reconciliation-routes";

// The sandbox's own controls, under /sandbox/: no auth, no injected faults, rescode-style replies.

const clockChange = z
  .strictObject({
    advance: z
      .string()
      .refine((value) => parseIsoDuration(value) !== undefined, "must be an ISO 8601 duration")
      .optional(),
    set: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" }).optional(),
  })
  .refine((body) => (body.advance === undefined) !== (body.set === undefined), {
    path: ["advance"],
    message: "give exactly one of advance and set",
  });

const ledgerQuery = z.object({
  kind: z.enum(RECORD_KINDS).optional(),
  mid: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

const deliveriesQuery = z.object({
  kind: z.enum(DELIVERY_KINDS).optional(),
});

const settlementAlteration = z
  .strictObject({
    transaction_id: z.string().min(1, "must name a movement's transaction"),
    set: z
      .partialRecord(
        z.enum(SETTLEMENT_AMOUNT_FIELDS),
        z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal amount"),
      )
      .default({}),
    omit: z.boolean().default(false),
  })
  .refine((body) => body.omit || Object.keys(body.set).length > 0, {
    path: ["set"],
    message: "give the fields to misreport, or omit: true",
  });

const faultsView = ({ faults }: RouteContext) =>
  okReply({ seed: faults.seed, ...faults.config, counters: faults.counters() });

const admin = { auth: "none", faults: false } as const;

function page<T>(items: Iterable<T>, offset: number, limit: number): { total: number; records: T[] } {
  const records: T[] = [];
  let total = 0;
  for (const item of items) {
    if (total >= offset && records.length < limit) records.push(item);
    total++;
  }
  return { total, records };
}

export const adminRoutes: readonly RouteDefinition[] = [
  defineRoute({
    ...admin,
    name: "sandbox.clock.get",
    method: "GET",
    path: "/sandbox/clock",
    handler: (_request, { clock }) => okReply({ now: clock.now().toISOString() }),
  }),
  defineRoute({
    ...admin,
    name: "sandbox.clock.move",
    method: "POST",
    path: "/sandbox/clock",
    handler: async (request, { clock }) => {
      const change = parseFields(clockChange, request.body);
      const now =
        change.set === undefined
          ? await clock.advance(change.advance ?? "PT0S")
          : await clock.set(new Date(change.set));
      return okReply({ now: now.toISOString() });
    },
  }),
  defineRoute({
    ...admin,
    name: "sandbox.faults.get",
    method: "GET",
    path: "/sandbox/faults",
    handler: (_r, ctx) => faultsView(ctx),
  }),
  defineRoute({
    ...admin,
    name: "sandbox.faults.put",
    method: "PUT",
    path: "/sandbox/faults",
    handler: (request, ctx) => {
      ctx.faults.configure(request.body);
      return faultsView(ctx);
    },
  }),
  defineRoute({
    ...admin,
    name: "sandbox.ledger",
    method: "GET",
    path: "/sandbox/ledger",
    handler: (request, { ledger }) => {
      const query = parseFields(ledgerQuery, Object.fromEntries(request.query));
      const summary = { revision: ledger.revision, counts: ledger.counts() };
      if (query.kind === undefined) return okReply(summary);
      return okReply({
        ...summary,
        kind: query.kind,
        ...page(ledger.records(query.kind, query.mid), query.offset, query.limit),
      });
    },
  }),
  defineRoute({
    ...admin,
    name: "sandbox.settlement-alterations.add",
    method: "POST",
    path: "/sandbox/settlement-alterations",
    handler: (request, { ledger }) => {
      const { transaction_id, set, omit } = parseFields(settlementAlteration, request.body);
      ledger.settlementAlterations.alter(transaction_id, {
        set: Object.fromEntries(Object.entries(set)),
        omit,
      });
      return okReply({ alterations: ledger.settlementAlterations.all() });
    },
  }),
  defineRoute({
    ...admin,
    name: "sandbox.settlement-alterations.list",
    method: "GET",
    path: "/sandbox/settlement-alterations",
    handler: (_request, { ledger }) => okReply({ alterations: ledger.settlementAlterations.all() }),
  }),
  defineRoute({
    ...admin,
    name: "sandbox.deliveries",
    method: "GET",
    path: "/sandbox/deliveries",
    handler: (request, { deliveries }) => {
      const query = parseFields(deliveriesQuery, Object.fromEntries(request.query));
      return okReply({ deliveries: deliveries.entries(query.kind) });
    },
  }),
];
