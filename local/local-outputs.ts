import { z } from "zod";

// What `npm start` publishes for the ops CLI. Kept apart from local-stack.ts so that a reader of the file does not
// load the emulators and the handlers.

export const localOutputsSchema = z.object({
  apiUrl: z.url(),
  apiKey: z.string(),
  sandboxUrl: z.url(),
  environment: z.record(z.string(), z.string()),
});
export type LocalOutputs = z.infer<typeof localOutputsSchema>;

/** Where `npm start` writes its outputs while it runs. */
export const LOCAL_OUTPUTS_FILE = ".local/outputs.json";
