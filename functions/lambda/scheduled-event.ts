import * as z from "zod";
import { lazySchema } from "../shared/lazy-schema";

const lenient = <S extends z.ZodType>(schema: S) => schema.optional().catch(undefined);

/**
 * What a scheduled invocation receives: EventBridge Scheduler sends the target's input (a plain object, often {}),
 * an EventBridge rule the "Scheduled Event" envelope, a manual invoke anything. The run never depends on it; the
 * envelope's id and time are kept for the log, and anything unreadable counts as no input.
 */
export const scheduledEventSchema = lazySchema(() =>
  z
    .looseObject({
      id: lenient(z.string()),
      time: lenient(z.iso.datetime({ offset: true })),
      "detail-type": lenient(z.string()),
    })
    .nullish()
    .catch(undefined)
    .transform((event) => ({
      trigger: event?.["detail-type"] ?? "direct",
      eventId: event?.id,
      scheduledAt: event?.time,
    })),
);

export type ScheduledInvocation = z.output<typeof scheduledEventSchema>;
