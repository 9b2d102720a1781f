import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";

// Whose code a CPU profile's time went to: the samples' self time, by the script each sampled function is in. What a
// worker spends in the AWS SDK or Node's HTTP stack is not ours to cut; what it spends in functions/ is.

export const CPU_OWNERS = [
  "our code",
  "zod",
  "Powertools",
  "AWS SDK",
  "node (HTTP, streams, timers)",
  "native and GC",
  "local mode (the event source mapping Lambda runs for us)",
  "other",
] as const;
export type CpuOwner = (typeof CPU_OWNERS)[number];

const cpuProfileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string() }),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});
export type CpuProfile = z.infer<typeof cpuProfileSchema>;

function ownerOf(url: string, functionName: string): CpuOwner | "idle" {
  if (url === "") return functionName === "(idle)" ? "idle" : "native and GC";
  if (/node_modules\/(@smithy|@aws-sdk)\//.test(url)) return "AWS SDK";
  if (url.includes("node_modules/zod/")) return "zod";
  if (url.includes("node_modules/@aws-lambda-powertools/")) return "Powertools";
  if (url.includes("node_modules/")) return "other";
  if (url.startsWith("node:")) return "node (HTTP, streams, timers)";
  if (/\/(local|bench)\//.test(url)) return "local mode (the event source mapping Lambda runs for us)";
  if (url.includes("/functions/")) return "our code";
  return "other";
}

/** Milliseconds of busy CPU by owner (idle samples left out). */
export function cpuByOwner(profile: CpuProfile): Record<CpuOwner, number> {
  const owners = new Map(
    profile.nodes.map((node) => [node.id, ownerOf(node.callFrame.url, node.callFrame.functionName)]),
  );
  const totals = Object.fromEntries(CPU_OWNERS.map((owner) => [owner, 0])) as Record<CpuOwner, number>;
  profile.samples.forEach((id, index) => {
    const owner = owners.get(id);
    if (owner === undefined || owner === "idle") return;
    totals[owner] += (profile.timeDeltas[index] ?? 0) / 1000;
  });
  return totals;
}

/**
 * The main thread's profile of the one process that wrote into `dir` (node --cpu-prof --cpu-prof-dir): its name is
 * CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile, the main thread's id 0 (tsx's loader thread has its own).
 */
export async function readCpuProfile(dir: string): Promise<CpuProfile> {
  const files = (await readdir(dir)).filter((file) => /\.\d+\.0\.\d+\.cpuprofile$/.test(file));
  if (files.length !== 1)
    throw new Error(`expected one main-thread .cpuprofile in ${dir}, found ${files.length}`);
  return cpuProfileSchema.parse(JSON.parse(await readFile(join(dir, files[0] as string), "utf8")));
}
