/**
 * A form's rules as the engine holds them once compiled (docs/design.md §11): what each
 * engine section compiles to (sections/) and what form-rules.ts applies to a submission.
 */
import type { Calculation, Condition } from "../../rules/evaluation.ts";

export type { Calculation, Condition };

/** One limited option: how many submissions may choose it. */
export interface InventoryItem {
  unique_system_name: string;
  option: string;
  quantity: number;
}

/** Where a cascading field's options come from, by the value of the field it depends on. */
export interface Cascade {
  dependsOn: string;
  optionsByValue: Readonly<Record<string, string[] | { datalist_id: string }>>;
}

/** A form's rules, compiled. */
export interface FormRules {
  conditions: Condition[];
  /** In the order they run: each reads the plain fields and those computed before it. */
  calculations: Calculation[];
  /** Limited options of fields that exist. */
  inventory: InventoryItem[];
  /** Cascading fields by name. */
  cascades: ReadonlyMap<string, Cascade>;
  /** Fields whose options come from a datalist, by name: the datalist id. */
  dynamic: ReadonlyMap<string, string>;
}

/**
 * What one section adds to a form's rules; the engine joins every section's parts, in the
 * registry's order.
 */
export interface RuleParts {
  conditions?: Condition[];
  calculations?: Calculation[];
  inventory?: InventoryItem[];
  cascades?: [name: string, cascade: Cascade][];
  dynamic?: [name: string, datalistId: string][];
}
