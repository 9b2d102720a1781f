import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";

const TSX = "node_modules/.bin/tsx";

function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(TSX, ["bin/sandbox.ts", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function lines(child: ChildProcess, count: number): Promise<string[]> {
  if (!child.stdout) throw new Error("no stdout");
  const read: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    read.push(line);
    if (read.length === count) break;
  }
  return read;
}

describe("bin/sandbox.ts", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.exitCode === null) child.kill("SIGKILL");
  });

  it("prints the listening line then the credentials, serves, and stops cleanly on SIGTERM", async () => {
    child = start(["--port", "0"]);
    const [first, ...credentials] = await lines(child, 6);
    const url = /^sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first ?? "")?.[1];
    expect(url).toBeDefined();
    const printed = credentials.join("\n");
    for (const value of Object.values(TEST_MERCHANT)) expect(printed).toContain(value);
    const reply = await (await fetch(`${url}/sandbox/clock`)).json();
    expect(reply).toMatchObject({ rescode: "0000" });
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect(await exited).toEqual([0, null]);
  });

  it("exits 1 with a message naming a bad variable", async () => {
    child = start(["--port", "0"], { SANDBOX_AES_KEY: "not-hex" });
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(stderr).toMatch(/SANDBOX_AES_KEY must be 64 hex characters/);
    expect(stderr).not.toContain("not-hex");
  });
});
