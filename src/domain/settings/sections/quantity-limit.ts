/**
 * `quantitylimitsettings` (docs/design.md §11): the most submissions a form takes, when it
 * closes, and its limited options (`inventory`, counted by inventory.ts). F5 shows what is
 * `remaining` of each limited option, and the hosted page disables sold-out options live.
 */
import * as v from "valibot";
import type { FormRecord } from "../../forms/form-record.ts";
import { inventoryCount } from "../inventory.ts";
import { definitionChecks, isChoice } from "./definition-checks.ts";
import { fieldName, lenient } from "./schema-parts.ts";
import type { SettingsSection } from "./section.ts";

const isoTimestamp = v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 timestamp"));

/** One limited option of `inventory`. */
const inventorySchema = v.object({
  unique_system_name: fieldName,
  option: v.pipe(v.string(), v.minLength(1, "must not be empty")),
  quantity: v.pipe(v.number(), v.integer("must be a whole number"), v.minValue(0)),
});

const schema = v.looseObject({
  max_total_submissions: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
  closes_at_utc: v.optional(v.nullable(isoTimestamp)),
  inventory: v.optional(v.array(inventorySchema)),
});

/** The inventory as the engine reads it: the rest of the section may not parse. */
const inventoryOnly = v.object({ inventory: v.array(inventorySchema) });

/** Quantity limits as stored. */
export type QuantityLimits = v.InferOutput<typeof schema>;

/** The `quantitylimitsettings` section. */
export const quantityLimitSettings: SettingsSection<QuantityLimits> = {
  name: "quantitylimitsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    for (const [i, item] of (value.inventory ?? []).entries()) {
      const target = check.field(item.unique_system_name, `inventory.${i}.unique_system_name`);
      if (target && !(isChoice(target) && offers(target, item.option))) {
        check.issues.push({
          path: `inventory.${i}.option`,
          message: `${item.option} is not an option of ${item.unique_system_name}`,
        });
      }
    }
    return check.issues;
  },
  compile(stored, fields) {
    const inventory = lenient(inventoryOnly, stored)?.inventory ?? [];
    return { inventory: inventory.filter((item) => fields.has(item.unique_system_name)) };
  },
  rendered: {
    position: 6,
    value({ rules, counts }) {
      if (rules.inventory.length === 0) return undefined;
      const inventory = rules.inventory.map((item) => {
        const taken = counts[inventoryCount(item.unique_system_name, item.option)] ?? 0;
        return { ...item, remaining: Math.max(0, item.quantity - taken) };
      });
      return { inventory };
    },
  },
  live: {
    feeds: "inventory",
    items: (rendered) => (rendered as { inventory?: unknown[] } | undefined)?.inventory ?? [],
  },
};

/** The submission limits S2 checks: when the form closes, and how many it takes. */
export function submissionLimitsOf(form: FormRecord): {
  closes_at_utc?: string | null;
  max_total_submissions?: number | null;
} {
  return (form.form_configuration[quantityLimitSettings.name] ?? {}) as QuantityLimits;
}

/** Why a form takes no more posts, as S2 says it to anyone who posts (docs/design.md §11). */
export const closedMessages = {
  /** Past `closes_at_utc`. */
  closed: "This form is closed to new submissions",
  /** At `max_total_submissions`. */
  sold_out: "This form has received all the submissions it takes",
} as const;

/** Why a form takes no more posts. */
export type ClosedReason = keyof typeof closedMessages;

/**
 * Why S2 would refuse any post to `form` now, given its counter's `counts`: past
 * `closes_at_utc` (which S2 checks first), or at `max_total_submissions`; `null` while it
 * takes posts.
 */
export function closedReason(
  form: FormRecord,
  now: Date,
  counts: Readonly<Record<string, number>>,
): ClosedReason | null {
  if (pastClosing(form, now)) return "closed";
  const limit = submissionLimitsOf(form).max_total_submissions ?? Number.POSITIVE_INFINITY;
  return (counts.submissions ?? 0) >= limit ? "sold_out" : null;
}

/** Whether `form` is past its `closes_at_utc` at `now` (S2 and the page judge it alike). */
export function pastClosing(form: FormRecord, now: Date): boolean {
  const closes = submissionLimitsOf(form).closes_at_utc;
  return closes ? Date.parse(closes) <= now.getTime() : false;
}

/** Whether a choice field may offer `option`: its own options, or any value of a datalist. */
function offers(field: object, option: string): boolean {
  const options = (field as { options?: string[] }).options;
  return options ? options.includes(option) : true;
}
