/**
 * The checks sections make against the form's definition on F2 (docs/design.md §11): that
 * the fields they name exist, and what their JsonLogic expressions read.
 */
import type { ValidationIssue } from "../../../kernel/errors.ts";
import { expressionProblem } from "../../../rules/json-logic.ts";
import { type FormDefinition, type FormField, fieldsOf } from "../../forms/form-definition.ts";
import { readsOf } from "../expression-reads.ts";

/** Issues gathered against one form's definition. */
export interface DefinitionChecks {
  /** What was found wrong so far. */
  issues: ValidationIssue[];
  /** The field named `name`, or an issue at `path` saying there is none. */
  field(name: string, path: string): FormField | undefined;
  /**
   * An issue at `path` unless `expression` is JsonLogic that reads values only by names written
   * out (expression-reads.ts), each one `known` allows.
   */
  expression(expression: unknown, path: string, known: (name: string) => boolean): void;
  /** Whether the definition has a field named `name`. */
  has(name: string): boolean;
}

/** Checks against `definition`, gathering their issues. */
export function definitionChecks(definition: FormDefinition): DefinitionChecks {
  const fields = new Map(fieldsOf(definition).map((f) => [f.unique_system_name, f]));
  const issues: ValidationIssue[] = [];
  return {
    issues,
    has: (name) => fields.has(name),
    field(name, path) {
      const found = fields.get(name);
      if (!found) issues.push({ path, message: `${name} is not a field of this form` });
      return found;
    },
    expression(expression, path, known) {
      const problem = expressionProblem(expression);
      if (problem) issues.push({ path, message: problem });
      const reads = readsOf(expression);
      for (const read of reads.unnamed) {
        issues.push({
          path,
          message: `reads a value whose name it does not write out (${read}): name each field it reads as a string`,
        });
      }
      for (const name of reads.fields) {
        if (!known(name)) issues.push({ path, message: `reads ${name}, which it may not` });
      }
    },
  };
}

/** Whether a field offers options: a select, radio or checkbox field. */
export function isChoice(field: FormField): boolean {
  return field.type === "select" || field.type === "radio" || field.type === "checkbox";
}

/** The issue of a section naming a field that offers no options. */
export function notChoice(path: string): ValidationIssue {
  return { path, message: "must name a select, radio or checkbox field" };
}
