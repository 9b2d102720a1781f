import { describe, expect, it } from "vitest";
import { applyChargebackReport, chargebackStatusOf } from "../../../../functions/core/refunds/disputes";

const DAY_1 = new Date("2025-03-20T01:00:00.000Z");
const DAY_2 = new Date("2025-04-11T01:00:00.000Z");

describe("applyChargebackReport", () => {
  it("opens a dispute with the first report, its facts and revision 1", () => {
    expect(
      applyChargebackReport(
        undefined,
        { status: "REPORTED", reason: "Cardholder dispute", report_date: "20250320", deadline: "20250410" },
        DAY_1,
      ),
    ).toEqual({
      status: "REPORTED",
      reason: "Cardholder dispute",
      report_date: "20250320",
      deadline: "20250410",
      history: [{ status: "REPORTED", received_at: DAY_1.toISOString() }],
      revision: 1,
    });
  });

  it("reads a report without a status (the seed's form) as REPORTED, and statuses in any case", () => {
    expect(applyChargebackReport(undefined, {}, DAY_1)?.status).toBe("REPORTED");
    expect(chargebackStatusOf({ status: " deduction " })).toBe("DEDUCTION");
  });

  it("adds each later status once, keeping earlier facts and filling new ones", () => {
    const reported = applyChargebackReport(undefined, { status: "REPORTED", reason: "fraud" }, DAY_1);
    const deducted = applyChargebackReport(
      reported,
      { status: "DEDUCTION", deduct_date: "20250411", reason: "" },
      DAY_2,
    );
    expect(deducted).toMatchObject({
      status: "DEDUCTION",
      reason: "fraud",
      deduct_date: "20250411",
      revision: 2,
      history: [
        { status: "REPORTED", received_at: DAY_1.toISOString() },
        { status: "DEDUCTION", received_at: DAY_2.toISOString() },
      ],
    });
    // The same status again (a re-send, a replay) changes nothing.
    expect(applyChargebackReport(deducted, { status: "DEDUCTION" }, DAY_2)).toBeUndefined();
    expect(applyChargebackReport(deducted, { status: "reported" }, DAY_2)).toBeUndefined();
  });

  it("never moves back: a report that arrives after the final status is recorded, the final status stays", () => {
    const deducted = applyChargebackReport(undefined, { status: "DEDUCTION" }, DAY_1);
    const late = applyChargebackReport(deducted, { status: "REPORTED" }, DAY_2);
    expect(late).toMatchObject({ status: "DEDUCTION", revision: 2 });
    expect(late?.history.map((entry) => entry.status)).toEqual(["DEDUCTION", "REPORTED"]);
    // An intermediate status after the final one does not reopen it either; a later final one wins.
    const deadline = applyChargebackReport(late, { status: "DEADLINE" }, DAY_2);
    expect(deadline?.status).toBe("DEDUCTION");
    expect(applyChargebackReport(deadline, { status: "RESOLVED" }, DAY_2)?.status).toBe("RESOLVED");
  });
});
