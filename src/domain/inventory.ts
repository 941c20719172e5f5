/**
 * Limited options (`quantitylimitsettings.inventory`, design.md §11). What each option has
 * given out is a count in the form's counter record, `inventory:<field>:<option>`, beside
 * `submissions`: S2 takes both in the one conditional write that takes its slot, so the
 * inventory is exact under concurrent posts and after a crash exactly as the submission
 * count is; S7 and a failed S2 give both back.
 */
import { ValidationError, type ValidationIssue } from "../errors.ts";
import type { FormRules } from "./form-rules.ts";
import type { SubmittedField } from "./submission-record.ts";

/** The counter record's count of one limited option. */
export function inventoryCount(field: string, option: string): string {
  return `inventory:${field}:${option}`;
}

/** The inventory counts a stored non-draft submission with `values` holds, one each. */
export function inventoryTaken(rules: FormRules, values: readonly SubmittedField[]): string[] {
  if (rules.inventory.length === 0) return [];
  const chosen = new Map(values.map((f) => [f.unique_system_name, f.submitted_value.split("|")]));
  const taken = new Set<string>();
  for (const item of rules.inventory) {
    if (chosen.get(item.unique_system_name)?.includes(item.option)) {
      taken.add(inventoryCount(item.unique_system_name, item.option));
    }
  }
  return [...taken];
}

/** The quantity of each limited option by its count name (the least, if listed twice). */
export function inventoryQuantities(rules: FormRules): Map<string, number> {
  const quantities = new Map<string, number>();
  for (const item of rules.inventory) {
    const name = inventoryCount(item.unique_system_name, item.option);
    quantities.set(name, Math.min(quantities.get(name) ?? item.quantity, item.quantity));
  }
  return quantities;
}

/**
 * The counts of the form's counter record once a post that takes one submission slot and
 * the inventory `taken` is stored. @throws {ValidationError} naming each field whose chosen
 * option is sold out.
 */
export function countsAfterPost(
  counts: Readonly<Record<string, number>>,
  rules: FormRules,
  taken: readonly string[],
): Record<string, number> {
  const next: Record<string, number> = { ...counts, submissions: (counts.submissions ?? 0) + 1 };
  if (taken.length === 0) return next;
  const quantities = inventoryQuantities(rules);
  const issues: ValidationIssue[] = [];
  for (const name of taken) {
    const count = (counts[name] ?? 0) + 1;
    next[name] = count;
    if (count > (quantities.get(name) ?? 0)) issues.push(soldOut(name));
  }
  if (issues.length) throw new ValidationError("A chosen option is sold out", issues);
  return next;
}

/** The issue of a sold-out option, named by its field. */
export function soldOut(countName: string): ValidationIssue {
  const [, field = "", ...option] = countName.split(":");
  return { path: field, message: `${option.join(":")} is sold out` };
}
