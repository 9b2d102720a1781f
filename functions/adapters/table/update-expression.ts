import type { UpdateCommandInput } from "@aws-sdk/lib-dynamodb";

/** One clause of a condition expression; a plan's clauses must all hold. */
export type Condition =
  | { readonly kind: "equals"; readonly name: string; readonly value: unknown }
  | { readonly kind: "absentOrEquals"; readonly name: string; readonly value: unknown }
  | { readonly kind: "exists" | "absent"; readonly name: string };

export const equals = (name: string, value: unknown): Condition => ({ kind: "equals", name, value });
export const exists = (name: string): Condition => ({ kind: "exists", name });
export const absent = (name: string): Condition => ({ kind: "absent", name });
/** For a field whose absence means a known value (e.g. nothing refunded yet = "0"). */
export const absentOrEquals = (name: string, value: unknown): Condition => ({
  kind: "absentOrEquals",
  name,
  value,
});

/** A conditional single-item update: SET these attributes (whole values), REMOVE those, if every condition holds. */
export interface UpdatePlan {
  /** Undefined values are skipped: a record never stores undefined. */
  readonly set: Readonly<Record<string, unknown>>;
  /** Set only where the attribute is absent (a value already there stays). */
  readonly setIfAbsent?: Readonly<Record<string, unknown>>;
  /** Appended to the list attribute, created empty when absent. */
  readonly append?: Readonly<Record<string, readonly unknown[]>>;
  readonly remove: readonly string[];
  readonly conditions: readonly Condition[];
}

export type UpdateExpressionParts = Pick<
  UpdateCommandInput,
  "UpdateExpression" | "ConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"
>;

/**
 * Every name goes through a placeholder (status, period and attempt are reserved words); one per attribute. A
 * condition may name a nested attribute as a dotted path (`dispute.revision`): one placeholder per segment.
 */
function placeholders() {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const byAttribute = new Map<string, string>();
  return {
    names,
    values,
    name(path: string): string {
      return path
        .split(".")
        .map((attribute) => {
          const known = byAttribute.get(attribute);
          if (known) return known;
          const placeholder = `#n${byAttribute.size}`;
          byAttribute.set(attribute, placeholder);
          names[placeholder] = attribute;
          return placeholder;
        })
        .join(".");
    },
    value(value: unknown): string {
      const placeholder = `:v${Object.keys(values).length}`;
      values[placeholder] = value;
      return placeholder;
    },
  };
}

export function buildUpdateExpression(plan: UpdatePlan): UpdateExpressionParts {
  const slots = placeholders();
  const sets = [
    ...Object.entries(plan.set)
      .filter(([, value]) => value !== undefined)
      .map(([attribute, value]) => `${slots.name(attribute)} = ${slots.value(value)}`),
    ...Object.entries(plan.setIfAbsent ?? {}).map(([attribute, value]) => {
      const name = slots.name(attribute);
      return `${name} = if_not_exists(${name}, ${slots.value(value)})`;
    }),
    ...Object.entries(plan.append ?? {}).map(([attribute, items]) => {
      const name = slots.name(attribute);
      return `${name} = list_append(if_not_exists(${name}, ${slots.value([])}), ${slots.value(items)})`;
    }),
  ];
  const removes = plan.remove.map((attribute) => slots.name(attribute));
  const conditions = plan.conditions.map((condition) => {
    const name = slots.name(condition.name);
    if (condition.kind === "equals") return `${name} = ${slots.value(condition.value)}`;
    if (condition.kind === "absentOrEquals") {
      return `(attribute_not_exists(${name}) OR ${name} = ${slots.value(condition.value)})`;
    }
    return condition.kind === "exists" ? `attribute_exists(${name})` : `attribute_not_exists(${name})`;
  });
  const clauses = [
    sets.length > 0 ? `SET ${sets.join(", ")}` : "",
    removes.length > 0 ? `REMOVE ${removes.join(", ")}` : "",
  ];
  return {
    UpdateExpression: clauses.filter((clause) => clause !== "").join(" "),
    ConditionExpression: conditions.length > 0 ? conditions.join(" AND ") : undefined,
    ExpressionAttributeNames: slots.names,
    // DynamoDB rejects an empty value map.
    ExpressionAttributeValues: Object.keys(slots.values).length > 0 ? slots.values : undefined,
  };
}
