import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { type Asked, readInputs, type TerminalInput } from "../../../cli/secret-input";

// `billing setup`'s values: from the environment, else asked in the terminal — a secret without echo.

/**
 * A terminal that types `keys` (chunks as they arrive) while it is read, each chunk after the last, recording raw
 * mode and what was shown.
 */
function terminal(keys: readonly string[], tty = true) {
  const events = new EventEmitter();
  const typed = [...keys];
  const state = { raw: [] as boolean[], shown: "" };
  const input: TerminalInput = {
    isTTY: tty,
    setRawMode: (raw: boolean) => state.raw.push(raw),
    setEncoding: () => undefined,
    on: (event, listener) => events.on(event, listener),
    off: (event, listener) => events.off(event, listener),
    resume: () => {
      const pump = () => {
        const next = typed.shift();
        if (next === undefined) return;
        events.emit("data", next);
        // Still read (no Enter in that chunk): the next chunk arrives.
        if (events.listenerCount("data") > 0) queueMicrotask(pump);
      };
      queueMicrotask(pump);
    },
    pause: () => undefined,
  };
  return { input, state, prompts: { write: (text: string) => (state.shown += text) } };
}

const ASKED = {
  mid: { variable: "MID", question: "mid", secret: false },
  apiKey: { variable: "API_KEY", question: "API key", secret: true },
  webhook: { variable: "WEBHOOK", question: "webhook secret", secret: true, optional: true },
} satisfies Record<string, Asked>;

describe("readInputs", () => {
  it("takes each value from its variable, trimmed, and asks nothing", async () => {
    const { input, state, prompts } = terminal([]);
    const values = await readInputs(ASKED, {
      environment: { MID: " M1 ", API_KEY: "k", WEBHOOK: "" },
      terminal: input,
      prompts,
    });
    expect(values).toEqual({ mid: "M1", apiKey: "k", webhook: undefined });
    expect(state.shown).toBe("");
  });

  it("asks in the terminal for what is missing: the mid echoed, a secret not at all, Backspace taking back", async () => {
    const { input, state, prompts } = terminal(["M1x\u007f2\r", "s3cr", "et\u007fT\r", "\r"]);
    const values = await readInputs(ASKED, { environment: {}, terminal: input, prompts });
    expect(values).toEqual({ mid: "M12", apiKey: "s3creT", webhook: undefined });
    expect(state.shown).toBe("mid: M1x\b \b2\nAPI key: \nwebhook secret (Enter to leave out): \n");
    expect(state.shown).not.toContain("s3cr");
    expect(state.raw).toEqual([true, false, true, false, true, false]);
  });

  it("asks again for a required value left empty; Ctrl-C cancels", async () => {
    const again = terminal(["\r", "M1\r"]);
    const values = await readInputs(
      { mid: ASKED.mid },
      { environment: {}, terminal: again.input, prompts: again.prompts },
    );
    expect(values).toEqual({ mid: "M1" });
    expect(again.state.shown).toBe("mid: \nmid: M1\n");

    const canceled = terminal(["ab\u0003"]);
    await expect(
      readInputs(ASKED, { environment: {}, terminal: canceled.input, prompts: canceled.prompts }),
    ).rejects.toThrow("canceled: nothing was written");
    expect(canceled.state.raw.at(-1)).toBe(false);
  });

  it("without a terminal, names every required variable missing", async () => {
    const { input, prompts } = terminal([], false);
    await expect(
      readInputs(ASKED, { environment: { API_KEY: "" }, terminal: input, prompts }),
    ).rejects.toThrow("set MID, API_KEY (or run this in a terminal, which asks for them)");
  });
});
