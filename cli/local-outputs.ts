import { z } from "zod";

// What `npm start` publishes for the ops CLI's --local target: the CLI's contract, written by local/stack/local-stack.ts,
// so that the CLI imports nothing from local/ (no emulators, no dev dependencies).

export const localOutputsSchema = z.object({
  apiUrl: z.url(),
  apiKey: z.string(),
  sandboxUrl: z.url(),
  environment: z.record(z.string(), z.string()),
});
export type LocalOutputs = z.infer<typeof localOutputsSchema>;

/** Where `npm start` writes its outputs while it runs. */
export const LOCAL_OUTPUTS_FILE = ".local/outputs.json";
