import { ValidationError, type ValidationIssue } from "../../kernel/errors.ts";
import { problemText } from "../../rules/field-problems.ts";
import { fieldValueProblem } from "../../rules/field-values.ts";
import type { Context } from "../context.ts";
import { ownsDatalist } from "../datalists/datalists.ts";
import { compileDefinition, type FormField } from "../forms/form-definition.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import type { SubmittedField } from "../records/submission-record.ts";
import { compileRules, evaluate, type FormRules } from "../settings/form-rules.ts";

/**
 * Checks submitted values against the form (docs/design.md §5 and §11), in one evaluation of its
 * rules: every name is a field of the form and given once; calculated fields take the
 * server's result whatever was sent; fields hidden by a condition are dropped; required
 * fields (their own flag, or a `require` rule that holds) have a value unless `draft`; and
 * each value fits its field, with the options a cascading or dynamic list offers. A
 * datalist-backed field offers only entries of a datalist that the form's owner holds; each
 * datalist is looked up at most once per value within one call.
 * `held`, a form snapshot's, names datalists known to be the owner's, which are not read again.
 * @returns the values in the definition's order.
 * @throws {ValidationError} with one issue per field at fault, named by its system name.
 */
export async function checkSubmittedValues(
  ctx: Context,
  form: FormRecord,
  values: SubmittedField[],
  draft: boolean,
  held?: HeldDatalists,
): Promise<SubmittedField[]> {
  const { fields } = compileDefinition(form.form_definition);
  const given = new Map<string, string>();
  const issues: ValidationIssue[] = [];
  for (const { unique_system_name: name, submitted_value: value } of values) {
    if (!fields.has(name)) issues.push({ path: name, message: "is not a field of this form" });
    else if (given.has(name)) issues.push({ path: name, message: "is given more than once" });
    given.set(name, value);
  }
  const rules = compileRules(form);
  const evaluation = evaluate(rules, fields, given);
  // Built for the first choice field only: most posts have none (hot path).
  let options: OptionSource | undefined;
  const offered: OptionSource = (field, chosen) => {
    options ??= optionSource(ctx, rules, evaluation.values, form.owner_user_id, held);
    return options(field, chosen);
  };
  for (const [name, field] of fields) {
    if (evaluation.hidden.has(name) || evaluation.calculated.has(name)) continue;
    const value = evaluation.values.get(name) ?? "";
    const required = field.required || evaluation.required.has(name);
    let problem = fieldValueProblem(field, value, required && !draft);
    if (problem === undefined) problem = await choiceProblem(field, value, offered);
    if (problem) issues.push({ path: name, message: problem });
  }
  if (issues.length) throw new ValidationError("The submitted values are not valid", issues);
  const checked: SubmittedField[] = [];
  for (const name of fields.keys()) {
    const value = evaluation.values.get(name);
    if (value !== undefined) checked.push({ unique_system_name: name, submitted_value: value });
  }
  return checked;
}

/** The datalists a form's owner is known to hold, as a form snapshot has them. */
export interface HeldDatalists {
  ownedDatalists: readonly string[];
}

/** Whether a choice field offers every one of `chosen`. */
type OptionSource = (field: FormField, chosen: string[]) => Promise<boolean>;

/**
 * The options each choice field offers in this submission: a cascading rule's for the value
 * of the field it depends on (none when no value matches), else a dynamic field's datalist,
 * else the field's own options or datalist. Datalist look-ups are remembered for the call.
 */
function optionSource(
  ctx: Context,
  rules: FormRules,
  values: ReadonlyMap<string, string>,
  ownerId: string,
  held?: HeldDatalists,
): OptionSource {
  const owned = new Map<string, Promise<boolean>>();
  const found = new Map<string, Promise<boolean>>();
  // A datalist the form's snapshot knows its owner holds is not read again (form-snapshots.ts).
  const owns = (id: string) =>
    held?.ownedDatalists.includes(id)
      ? Promise.resolve(true)
      : remember(owned, id, () => ownsDatalist(ctx, ownerId, id));
  const inList = (id: string, value: string) =>
    remember(found, `${id}\u0000${value}`, async () => {
      // One indexed lookup per choice, rather than reading the whole list.
      const { items } = await ctx.store.query(collections.datalistEntries, id, {
        where: [{ field: "entry_value", op: "eq", value }],
        limit: 1,
      });
      return items.length > 0;
    });
  const fromList = async (id: string, chosen: string[]) => {
    if (!(await owns(id))) return false;
    for (const choice of chosen) if (!(await inList(id, choice))) return false;
    return true;
  };
  return async (field, chosen) => {
    const name = field.unique_system_name;
    const cascade = rules.cascades.get(name);
    if (cascade) {
      const branch = Object.hasOwn(cascade.optionsByValue, values.get(cascade.dependsOn) ?? "")
        ? cascade.optionsByValue[values.get(cascade.dependsOn) ?? ""]
        : undefined;
      if (!branch) return false;
      if (Array.isArray(branch)) return chosen.every((choice) => branch.includes(choice));
      return fromList(branch.datalist_id, chosen);
    }
    const dynamic = rules.dynamic.get(name);
    if (dynamic) return fromList(dynamic, chosen);
    const own = field as { options?: string[]; datalist_id?: string };
    if (own.options) return chosen.every((choice) => own.options?.includes(choice));
    return fromList(own.datalist_id ?? "", chosen);
  };
}

function remember<T>(held: Map<string, Promise<T>>, key: string, read: () => Promise<T>) {
  let value = held.get(key);
  if (!value) {
    value = read();
    held.set(key, value);
  }
  return value;
}

/** What is wrong with the value of a choice field: an option it does not offer. */
async function choiceProblem(
  field: FormField,
  value: string,
  offered: OptionSource,
): Promise<string | null> {
  if (field.type !== "checkbox") {
    return (await offered(field, [value])) ? null : problemText({ code: "not_an_option" });
  }
  const chosen = value.split("|");
  if (new Set(chosen).size !== chosen.length) return problemText({ code: "repeated_option" });
  return (await offered(field, chosen)) ? null : problemText({ code: "not_an_option" });
}
