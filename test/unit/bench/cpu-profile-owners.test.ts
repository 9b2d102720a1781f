import { describe, expect, it } from "vitest";
import { type CpuProfile, cpuByOwner } from "../../../bench/cpu-profile-owners";

const frame = (id: number, url: string, functionName = "f") => ({ id, callFrame: { functionName, url } });

describe("cpuByOwner", () => {
  it("adds each sample's time to the owner of the script it was taken in, idle left out", () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, "", "(idle)"),
        frame(2, "file:///work/main/functions/core/charging/charge-engine.ts"),
        frame(3, "/work/main/node_modules/@smithy/core/dist-cjs/index.js"),
        frame(4, "/work/main/node_modules/@aws-sdk/lib-dynamodb/dist-cjs/index.js"),
        frame(5, "file:///work/main/node_modules/zod/v4/core/core.js"),
        frame(6, "node:_http_client"),
        frame(7, "", "(garbage collector)"),
        frame(8, "file:///work/main/local/lambda/event-source-mapping.ts"),
        frame(9, "/work/main/node_modules/undici/index.js"),
      ],
      samples: [1, 2, 3, 4, 5, 6, 7, 8, 9, 2],
      timeDeltas: [5000, 1000, 2000, 500, 250, 750, 300, 400, 100, 1000],
    };
    expect(cpuByOwner(profile)).toEqual({
      "our code": 2,
      zod: 0.25,
      Powertools: 0,
      "AWS SDK": 2.5,
      "node (HTTP, streams, timers)": 0.75,
      "native and GC": 0.3,
      "local mode (the event source mapping Lambda runs for us)": 0.4,
      other: 0.1,
    });
  });
});
