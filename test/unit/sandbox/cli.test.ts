import { describe, expect, it } from "vitest";
import { sandboxOptionsFromCli } from "../../../sandbox/cli";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";

describe("sandbox CLI options", () => {
  it("defaults to port 4010 on 127.0.0.1 with the test merchant", () => {
    expect(sandboxOptionsFromCli([], {})).toEqual({
      port: 4010,
      host: "127.0.0.1",
      callbackForm: "real",
      merchants: [TEST_MERCHANT],
    });
  });

  it("reads port, host, callback form, seed and faults, and the merchant from the environment", () => {
    const options = sandboxOptionsFromCli(
      [
        ...["--port", "0", "--host", "localhost", "--seed", "42", "--faults", '{"errorRate":0.1}'],
        ...["--callback-form", "short"],
      ],
      { SANDBOX_MID: "SBXOTHER01" },
    );
    expect(options).toMatchObject({
      port: 0,
      host: "localhost",
      callbackForm: "short",
      seed: 42,
      faults: { global: { errorRate: 0.1 }, routes: {} },
    });
    expect(options.merchants?.[0]?.mid).toBe("SBXOTHER01");
  });

  it.each([
    [["--port", "abc"], /--port must be 0–65535/],
    [["--port", "70000"], /--port must be 0–65535/],
    [["--faults", "{"], /--faults must be JSON/],
    [["--faults", '{"routes":{"x":{"resetRate":2}}}'], /--faults: routes\.x\.resetRate/],
    [["--unknown"], /Unknown option/],
    [["--callback-form", "status"], /--callback-form must be real, short or seed/],
  ])("refuses %j", (argv, message) => {
    expect(() => sandboxOptionsFromCli(argv, {})).toThrow(message);
  });

  it("names a bad SANDBOX_* variable", () => {
    expect(() => sandboxOptionsFromCli([], { SANDBOX_AES_KEY: "short" })).toThrow(/^SANDBOX_AES_KEY/);
  });
});
