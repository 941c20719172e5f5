/**
 * `paymentsettings` (docs/design.md §11, §26): what a respondent pays for a submission,
 * through the service's `Payments` port. The amount is fixed (`amount`, minor units) or read
 * from a number or calculated field (`amount_field`, major units) as the server computed it.
 */
import * as v from "valibot";
import { ValidationError } from "../../../kernel/errors.ts";
import type { FormRecord } from "../../forms/form-record.ts";
import { parseSection } from "../parsed-sections.ts";
import { templateProblem } from "./confirmation-email.ts";
import { definitionChecks } from "./definition-checks.ts";
import type { SettingsSection } from "./section.ts";

/** The currencies `Intl` knows, which are ISO 4217's active codes. */
const currencies = new Set(Intl.supportedValuesOf("currency"));

/** The most minor units one payment may be: Stripe's limit of eight digits. */
export const maxPaymentAmount = 99_999_999;

/** A checkout's window, in minutes: Stripe Checkout's, which other providers can fit. */
export const paymentWindowMinutes = { least: 30, most: 1440, default: 30 } as const;

const currency = v.pipe(
  v.string("must be a string"),
  v.toUpperCase(),
  v.check((code) => currencies.has(code), "must be an ISO 4217 currency code such as EUR"),
);

const amount = v.pipe(
  v.number("must be a number"),
  v.integer("must be a whole number of the currency's minor units (cents)"),
  v.minValue(1, "must be positive"),
  v.maxValue(maxPaymentAmount, `must be at most ${maxPaymentAmount}`),
);

const description = v.pipe(
  v.string("must be a string"),
  v.maxLength(500, "must be at most 500 characters"),
  v.check((text) => templateProblem(text) === null, "must be a valid Mustache template"),
);

const { least, most } = paymentWindowMinutes;
const minutes = v.pipe(
  v.number("must be a number"),
  v.integer("must be a whole number"),
  v.minValue(least, `must be at least ${least}`),
  v.maxValue(most, `must be at most ${most}`),
);

const schema = v.pipe(
  v.looseObject({
    enabled: v.optional(v.boolean("must be true or false"), false),
    currency: v.optional(currency),
    amount: v.optional(amount),
    amount_field: v.optional(v.pipe(v.string("must be a string"), v.minLength(1))),
    description: v.optional(description),
    expires_after_minutes: v.optional(minutes, paymentWindowMinutes.default),
  }),
  v.forward(
    v.check((s) => !s.enabled || Boolean(s.currency), "is required when enabled"),
    ["currency"],
  ),
  v.forward(
    v.check(
      (s) => !s.enabled || (s.amount === undefined) !== (s.amount_field === undefined),
      "give either amount or amount_field when enabled",
    ),
    ["amount"],
  ),
);

/** The section as F2 accepts it. */
export type PaymentSettings = v.InferOutput<typeof schema>;

/** The `paymentsettings` section. */
export const paymentSettings: SettingsSection<PaymentSettings> = {
  name: "paymentsettings",
  schema,
  // The checkout hands the provider the respondent's e-mail address (`payment-due.ts`).
  audited: "payment_settings_changed",
  issues(value, definition, configuration) {
    const check = definitionChecks(definition);
    const name = value.amount_field;
    if (name === undefined) return check.issues;
    const target = check.field(name, "amount_field");
    if (target && target.type !== "number" && !calculatedNames(configuration).has(name)) {
      const message = `${name} is neither a number field nor a calculated field`;
      check.issues.push({ path: "amount_field", message });
    }
    return check.issues;
  },
  async beforeSave(ctx, _formId, value) {
    if (value.enabled && !ctx.payments) {
      throw new ValidationError("This service takes no payments", [
        {
          path: "enabled",
          message: "cannot be true: the service has no payments provider configured",
        },
      ]);
    }
  },
};

/** The fields the form's `calculatedfieldsettings` computes, read leniently. */
function calculatedNames(configuration: Record<string, unknown> | undefined): Set<string> {
  const listed = (configuration?.calculatedfieldsettings as { fields?: unknown } | undefined)
    ?.fields;
  if (!Array.isArray(listed)) return new Set();
  return new Set(
    listed.flatMap((item: unknown) => {
      const name = (item as { unique_system_name?: unknown } | null)?.unique_system_name;
      return typeof name === "string" ? [name] : [];
    }),
  );
}

/** What S2 needs of an enabled section. */
export interface FormPayment {
  currency: string;
  /** The fixed amount in minor units, or the field whose value is the amount in major units. */
  amount: { minor: number } | { field: string };
  /** A Mustache template; the form's name when empty. */
  description: string;
  expiresAfterMinutes: number;
}

/**
 * The payment `form` takes, or `null` when it takes none: the section is missing, disabled,
 * or does not parse as F2 checks it now (a section stored before F2 checked it, of any
 * shape, takes nothing, as it did then). A frozen form's is parsed once (parsed-sections.ts).
 */
export function paymentOf(form: FormRecord): FormPayment | null {
  const parsed = parseSection(schema, form.form_configuration[paymentSettings.name]);
  if (!parsed.success || !parsed.output.enabled) return null;
  const settings = parsed.output;
  const { currency: code, amount: minor, amount_field: field } = settings;
  if (code === undefined) return null;
  return {
    currency: code,
    amount: minor !== undefined ? { minor } : { field: field ?? "" },
    description: settings.description ?? "",
    expiresAfterMinutes: settings.expires_after_minutes,
  };
}

/** How many decimals the currency's minor unit has: 2 for EUR, 0 for JPY, 3 for KWD. */
export function minorDigitsOf(code: string): number {
  const format = new Intl.NumberFormat("en", { style: "currency", currency: code });
  return format.resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * The amount in minor units that `value` (major units, as a number field or a calculation
 * stores it) is in `code`, rounded half away from zero to the minor unit; `null` for a
 * value that is not a finite number of 0 or more, or past {@link maxPaymentAmount}.
 */
export function minorAmountOf(value: string, code: string): number | null {
  const major = value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(major) || major < 0) return null;
  const scaled = major * 10 ** minorDigitsOf(code);
  // Floating point: 19.99 * 100 is 1998.9999999999998.
  const minor = Math.round(Number(scaled.toPrecision(12)));
  return minor <= maxPaymentAmount ? minor : null;
}
