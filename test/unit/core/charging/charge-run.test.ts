import { describe, expect, it } from "vitest";
import { runChargeRun } from "../../../../functions/core/charging/charge-run";
import type { DueEntry, SubscriptionStore } from "../../../../functions/core/ports/billing-repository";
import type { ChargeMessage } from "../../../../functions/core/ports/queues";
import { partialPort } from "../../../support/partial-port";

const NOW = new Date("2027-03-01T10:00:00.000Z");
const entry = (n: number): DueEntry => ({ subscription_id: `sub_${n}`, period: 1 });

/** A due index of `pages` pages of two entries, recording when each page is read. */
function dueIndex(pages: number, reads: string[]): SubscriptionStore {
  return partialPort<SubscriptionStore>({
    async *listDue() {
      for (let page = 0; page < pages; page += 1) {
        reads.push(`read ${page}`);
        yield [entry(2 * page), entry(2 * page + 1)];
      }
    },
  });
}

describe("runChargeRun", () => {
  it("reads the next page of the due index while the current one is sent", async () => {
    const log: string[] = [];
    const sent: ChargeMessage[] = [];
    const report = await runChargeRun({
      repository: dueIndex(3, log),
      clock: { now: () => NOW },
      queue: {
        async send(messages) {
          log.push(`send ${messages[0]?.subscription_id}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
          log.push(`sent ${messages[0]?.subscription_id}`);
          sent.push(...messages);
        },
      },
    });
    expect(report).toEqual({ enqueued: 6, pages: 3 });
    expect(sent.map((message) => message.subscription_id)).toEqual([
      "sub_0",
      "sub_1",
      "sub_2",
      "sub_3",
      "sub_4",
      "sub_5",
    ]);
    // Page 1 is read before page 0's send has finished, and so on.
    expect(log).toEqual([
      ...["read 0", "send sub_0", "read 1", "sent sub_0"],
      ...["send sub_2", "read 2", "sent sub_2"],
      ...["send sub_4", "sent sub_4"],
    ]);
  });

  it("stops at a failed send: nothing after it is sent and the run fails", async () => {
    const sent: string[] = [];
    const run = runChargeRun({
      repository: dueIndex(4, []),
      clock: { now: () => NOW },
      queue: {
        async send(messages) {
          const first = messages[0]?.subscription_id ?? "";
          if (first === "sub_2") throw new Error("SQS unavailable");
          sent.push(first);
        },
      },
    });
    await expect(run).rejects.toThrow("SQS unavailable");
    expect(sent).toEqual(["sub_0"]);
  });
});
