import type { z } from "zod";

// The project's own inputs (API requests, events, environment, secrets, queue messages) name what is wrong by field
// and never repeat the value; the gateway client has its own for the gateway's requests.

/** Path of a zod issue as a dotted field (`card.number`); an unknown key is named itself (`plan.color`). */
export function fieldOf(issue: z.core.$ZodIssue): string | undefined {
  const path = issue.code === "unrecognized_keys" ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  return path.length === 0 ? undefined : path.map(String).join(".");
}

/** "field reason" for one issue; the whole input is "(body)". */
export const issueText = (issue: z.core.$ZodIssue): string =>
  `${fieldOf(issue) ?? "(body)"} ${issue.message}`;

/** Parses an event with its schema; the first issue fails it, naming the field, never the value. */
export function parseFields<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw new Error(issue ? `invalid ${fieldOf(issue) ?? "(body)"}: ${issue.message}` : "invalid (body)");
}
