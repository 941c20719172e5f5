/**
 * Limited options (`quantitylimitsettings.inventory`, docs/design.md §11). What each option has
 * given out is a count in the form's counter record, `inventory:<field>:<option>`, beside
 * `submissions`: S2 takes both in the one conditional write that takes its slot, so the
 * inventory is exact under concurrent posts and after a crash exactly as the submission
 * count is; S7 gives both back in the batch of its delete, and S6 moves the inventory in the
 * batch of its replace. The submission record keeps the names it took (`inventory_taken`),
 * so that what is given back is what was taken, whatever the settings say by then.
 */
import { ValidationError, type ValidationIssue } from "../../kernel/errors.ts";
import { problemText } from "../../rules/field-problems.ts";
import type { SubmissionRecord, SubmittedField } from "../records/submission-record.ts";
import type { FormRules } from "./compiled-rules.ts";

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

/**
 * The inventory counts a stored submission holds: the ones it took, as its record keeps them;
 * none for a draft. A record stored before `inventory_taken` was kept has no list: it is
 * taken to hold what `rules` (the current settings) imply for its values, as S6 and S7 gave
 * back before, which is exact as long as the settings have not changed since it was stored.
 */
export function inventoryHeld(rules: FormRules, record: SubmissionRecord): string[] {
  if (record.is_draft_submission) return [];
  return record.inventory_taken ?? inventoryTaken(rules, record.form_fields);
}

/**
 * The inventory counts a stored submission holds once S6 gives it `values` (none while
 * `draft`): each limited option it chooses that it held already, or did not choose before.
 * An option it chose while that option was not limited stays untaken, as when it was stored:
 * an edit of another field takes nothing from under the settings changed since, and is never
 * refused as sold out for a choice it did not make now.
 */
export function inventoryAfterEdit(
  rules: FormRules,
  record: SubmissionRecord,
  values: readonly SubmittedField[],
  draft: boolean,
): string[] {
  if (draft) return [];
  const held = new Set(inventoryHeld(rules, record));
  const before = new Set(
    record.is_draft_submission ? [] : inventoryTaken(rules, record.form_fields),
  );
  return inventoryTaken(rules, values).filter((name) => held.has(name) || !before.has(name));
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

/**
 * The counts of the form's counter record once a stored submission that held the inventory
 * `held` holds `wanted` instead (S6): each count only in `held` goes down by one (never below
 * 0), each only in `wanted` goes up by one and must stay within its option's quantity.
 * @returns `null` when no count changes.
 * @throws {ValidationError} naming each field whose newly chosen option is sold out.
 */
export function countsAfterRetake(
  counts: Readonly<Record<string, number>>,
  rules: FormRules,
  held: readonly string[],
  wanted: readonly string[],
): Record<string, number> | null {
  const deltas = new Map<string, number>();
  for (const name of new Set(held)) deltas.set(name, -1);
  for (const name of new Set(wanted)) deltas.set(name, (deltas.get(name) ?? 0) + 1);
  const quantities = inventoryQuantities(rules);
  const next: Record<string, number> = { ...counts };
  const issues: ValidationIssue[] = [];
  let changed = false;
  for (const [name, delta] of deltas) {
    if (delta === 0) continue;
    changed = true;
    next[name] = Math.max(0, (counts[name] ?? 0) + delta);
    if (delta > 0 && (next[name] ?? 0) > (quantities.get(name) ?? 0)) issues.push(soldOut(name));
  }
  if (issues.length) throw new ValidationError("A chosen option is sold out", issues);
  return changed ? next : null;
}

/** The issue of a sold-out option, named by its field. */
export function soldOut(countName: string): ValidationIssue {
  const [, field = "", ...option] = countName.split(":");
  return { path: field, message: problemText({ code: "sold_out", option: option.join(":") }) };
}
