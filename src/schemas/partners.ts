import * as v from "valibot";
import { type CustomerFields, customerStatuses } from "../domain/accounts/index.ts";
import { quotaBodyField, quotaField, quotaNames } from "../domain/quotas/index.ts";
import { ValidationError, type ValidationIssue } from "../kernel/errors.ts";
import { parseWith } from "../kernel/parse.ts";
import { neverModified } from "../kernel/timestamps.ts";
import { emailSchema } from "./common.ts";

const quotaMessage = "must be a whole number of 0 or more, as a number or a numeric string";

/** A quota: a whole number of 0 or more, or a string of digits; kept as a string. */
const quotaSchema = v.pipe(
  v.union(
    [
      v.pipe(v.number(), v.safeInteger(quotaMessage), v.minValue(0, quotaMessage)),
      v.pipe(v.string(), v.regex(/^\s*\d{1,15}\s*$/, quotaMessage)),
    ],
    quotaMessage,
  ),
  v.transform((value) => `${Number(value)}`),
);

const personName = v.pipe(v.string("must be a string"), v.trim(), v.maxLength(200));

const status = v.picklist(customerStatuses, `must be one of ${customerStatuses.join(", ")}`);

/** A billing date: an ISO 8601 timestamp, or the never-set value. */
const billingDate = v.union(
  [v.literal(neverModified), v.pipe(v.string(), v.isoTimestamp())],
  `must be an ISO 8601 timestamp or ${neverModified}`,
);

/**
 * Each customer field P4 and P5 set, with the body names that set it: the name of
 * docs/design.md §4 first, then the name the hosted service's records use, accepted as an alias
 * (docs/design.md §9). The billing dates are an **extension**.
 */
const settable: [keyof CustomerFields, string[], v.GenericSchema<unknown, string>][] = [
  ["first_name", ["first_name"], personName],
  ["last_name", ["last_name"], personName],
  ["partner_client_status", ["subscription_status", "partner_client_status"], status],
  [
    "billing_subscription_plan_original_start_date",
    [
      "billing_subscription_plan_original_start_date",
      "stripe_subscription_plan_original_start_date",
    ],
    billingDate,
  ],
  [
    "billing_subscription_plan_last_payment_date",
    ["billing_subscription_plan_last_payment_date", "stripe_subscription_plan_last_payment_date"],
    billingDate,
  ],
  ...quotaNames.map(
    (name) =>
      [quotaField(name), [quotaBodyField(name), quotaField(name)], quotaSchema] as [
        keyof CustomerFields,
        string[],
        v.GenericSchema<unknown, string>,
      ],
  ),
];

const fieldEntries = Object.fromEntries(
  settable.flatMap(([, names, schema]) => names.map((name) => [name, v.optional(schema)])),
);

/** Body of P4: a new customer. */
export const newCustomerBody = v.object({ email: emailSchema, ...fieldEntries });
/** Body of P5: the fields of a customer to change. */
export const customerChangesBody = v.object({ email: v.optional(emailSchema), ...fieldEntries });

/** What a P4 or P5 body says: the customer's e-mail (P4) and the fields to set. */
export interface CustomerInput {
  email: string | undefined;
  fields: Partial<CustomerFields>;
}

/**
 * Reads the body of P4 (`requireEmail`) or P5.
 * @throws {ValidationError} naming every field at fault: an e-mail missing from P4, a
 *   negative or non-numeric quota, an unknown `subscription_status`, a field given under
 *   two names with different values.
 */
export function parseCustomerBody(body: unknown, requireEmail: boolean): CustomerInput {
  const schema = requireEmail ? newCustomerBody : customerChangesBody;
  const parsed = parseWith(schema, body, "The customer is not valid") as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  for (const [field, names] of settable) {
    const given = names.filter((name) => parsed[name] !== undefined);
    const [first, ...others] = given;
    if (!first) continue;
    for (const other of others) {
      if (parsed[other] !== parsed[first]) {
        issues.push({ path: other, message: `differs from ${first}; give one of them` });
      }
    }
    fields[field] = parsed[first];
  }
  if (issues.length) throw new ValidationError("The customer is not valid", issues);
  return { email: parsed.email as string | undefined, fields: fields as Partial<CustomerFields> };
}
