/**
 * What one settings section is (docs/design.md §11): everything the service does with it,
 * declared in the section's own module and listed in registry.ts. F2, F5, the form engine,
 * the OpenAPI document and the hosted page read the sections from the registry, so that none
 * of them names a section.
 */
import type * as v from "valibot";
import type { ValidationIssue } from "../../../kernel/errors.ts";
import type { AuditAction } from "../../audit/index.ts";
import type { Context } from "../../context.ts";
import type { FormDefinition, FormField } from "../../forms/form-definition.ts";
import type { FormRecord } from "../../forms/form-record.ts";
import type { FormRules, RuleParts } from "../compiled-rules.ts";
import type { NamedDestination } from "../destination-check.ts";

/** What the hosted page applies live, each fed by the sections whose `live` names it. */
export type LiveFeature = "conditions" | "calculations" | "cascades" | "inventory";

/** What F5 has at hand when it renders a section. */
export interface RenderingView {
  /** The section as stored (`undefined` when the form has none). */
  stored: unknown;
  /** The form's compiled rules, every section's parts joined. */
  rules: FormRules;
  /** The counts of the form's counter record, as read. */
  counts: Readonly<Record<string, number>>;
  /** The values of a datalist the form's owner holds (none otherwise), read once a request. */
  datalistValues: (datalistId: string) => Promise<string[]>;
}

/** One settings section. `T` is what its schema accepts. */
export interface SettingsSection<T extends Record<string, unknown> = Record<string, unknown>> {
  /** Its name: F2's `settingsSection` and its key under `form_configuration`. */
  readonly name: string;
  /**
   * What F2 accepts, field by field (shown in the OpenAPI document). None: any JSON object,
   * kept as given.
   */
  readonly schema?: v.GenericSchema<unknown, T>;
  /**
   * What F2 refuses in a value its schema accepted, given the form's definition: the fields,
   * options and expressions it names that the form does not have, or what another of its
   * sections (`configuration`, as stored) must say of a field it names. One issue per fault.
   */
  issues?(
    value: T,
    definition: FormDefinition,
    configuration?: FormRecord["form_configuration"],
  ): ValidationIssue[];
  /**
   * The URLs in a value its schema accepted that the service will post to, each with its
   * field: F2 refuses one the service may not call as W2 refuses a webhook's
   * (destination-check.ts). None: the section names no destination.
   */
  destinations?(value: T): NamedDestination[];
  /**
   * What F2 writes before it stores an accepted value: records that must exist whenever the
   * form holds the value (the retention registry: form-retention.ts). None: nothing.
   */
  beforeSave?(ctx: Context, formId: string, value: T): Promise<void>;
  /**
   * The audit action F2 records when it changes the section, for a section that sends
   * submissions somewhere (docs/design.md §25). None: F2 of it is not audited.
   */
  readonly audited?: AuditAction;
  /**
   * How F2 stores an accepted value in the form's configuration.
   * @default the whole value under `form_configuration.<name>`
   */
  save?(configuration: FormRecord["form_configuration"], value: T): void;
  /**
   * What the section adds to the form engine's rules, from the section as stored with the
   * definition's `fields` by name. Read leniently: a section that no longer parses, or a rule
   * naming a field since removed, adds nothing, never an error. None: it drives no rule.
   */
  compile?(stored: unknown, fields: ReadonlyMap<string, FormField>): RuleParts;
  /** What F5 answers for the section. None: F5 leaves it out. */
  readonly rendered?: {
    /** Where F5 lists it among the rendered sections: ascending (the answer's key order). */
    readonly position: number;
    /** Its value in F5's `form_configuration` (or a promise of it); `undefined` leaves it out. */
    value(view: RenderingView): unknown;
  };
  /** What the hosted page does with F5's value of the section live. None: nothing. */
  readonly live?: {
    /** The page's feature it feeds. */
    readonly feeds: LiveFeature;
    /** The items it gives that feature, from F5's value (`undefined` when F5 left it out). */
    items(rendered: unknown): unknown[];
  };
}
