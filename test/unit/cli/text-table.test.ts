import { describe, expect, it } from "vitest";
import { formatTable, MAX_WIDTH, shortUuid, wrapLine, wrapText } from "../../../cli/text-table";

describe("formatTable", () => {
  it("aligns the columns under a header and a rule, the last column unpadded", () => {
    expect(
      formatTable(
        ["ID", "STATUS"],
        [
          ["sub_1", "active"],
          ["sub_22", "-"],
        ],
      ).split("\n"),
    ).toEqual(["ID      STATUS", "------  ------", "sub_1   active", "sub_22  -"]);
  });

  it("leaves a table that fits as it is, cut columns included", () => {
    const table = formatTable(["ID", { title: "NOTE", fit: "cut" }], [["a", "short"]]);
    expect(table.split("\n")[2]).toBe("a   short");
  });

  it("cuts a cut column to the width left, an ellipsis marking the cut", () => {
    const [, rule = "", row = ""] = formatTable(
      ["ID", { title: "NOTE", fit: "cut" }],
      [["x".repeat(30), "word ".repeat(40)]],
      60,
    ).split("\n");
    expect(rule).toHaveLength(60);
    expect(row).toHaveLength(60);
    expect(row.endsWith("…")).toBe(true);
  });

  it("wraps a wrapped column onto lines of its own, at spaces, other cells blank", () => {
    const lines = formatTable(
      ["ID", { title: "DIFFERENCE", fit: "wrap" }],
      [["abc", "gateway 19.90, ledger 9.90"]],
      20,
    ).split("\n");
    expect(lines).toEqual([
      "ID   DIFFERENCE",
      "---  ---------------",
      "abc  gateway 19.90,",
      "     ledger 9.90",
    ]);
  });

  it("never cuts a column that may not be cut (ids, amounts, times)", () => {
    const row = formatTable(["ID", "WHEN"], [["y".repeat(100), "z".repeat(30)]]).split("\n")[2] ?? "";
    expect(row).toBe(`${"y".repeat(100)}  ${"z".repeat(30)}`);
  });
});

describe("wrapping and ids", () => {
  it("wraps prose at spaces to MAX_WIDTH, later lines indented", () => {
    const text = `${"word ".repeat(40)}end`;
    const lines = wrapLine(text).split("\n");
    expect(lines.every((line) => line.length <= MAX_WIDTH)).toBe(true);
    expect(lines[1]?.startsWith("  word")).toBe(true);
    expect(lines.join(" ").replaceAll(/\s+/g, " ")).toBe(text.replaceAll(/\s+/g, " "));
    expect(wrapText("unbreakable".repeat(3), 10)).toEqual(["unbreakabl", "eunbreakab", "leunbreaka", "ble"]);
  });

  it("shortens UUIDs to their first 8 characters, and nothing else", () => {
    expect(shortUuid("49104faf-24a0-42e5-ade3-f4e942a62423")).toBe("49104faf…");
    expect(shortUuid("sub_4mjf0mp6q6kny7ba")).toBe("sub_4mjf0mp6q6kny7ba");
  });
});
