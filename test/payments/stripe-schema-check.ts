/**
 * Stripe's published schemas (stripe-schemas.json, vendored by
 * scripts/extract-stripe-schemas.ts) as ajv validators, compiled once per test process.
 */
import { Ajv, type ValidateFunction } from "ajv";
import schemas from "./stripe-schemas.json" with { type: "json" };

// Compiled once for every server of a test process: compiling takes about a second.
const ajv = new Ajv({ allErrors: true });
ajv.addSchema({ $id: "stripe", definitions: schemas.definitions });
const validators = new Map<string, ValidateFunction>();

/** The validator of one vendored schema of Stripe's. */
function validatorOf(schema: string): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.getSchema(`stripe#/definitions/${schema}`) as ValidateFunction;
    validators.set(schema, validate);
  }
  return validate;
}

/** What is wrong with `value` as Stripe's `schema`, or `null` when it is one. */
export function schemaProblem(schema: string, value: unknown): string | null {
  const validate = validatorOf(schema);
  return validate(value) ? null : `${schema}: ${ajv.errorsText(validate.errors)}`;
}
