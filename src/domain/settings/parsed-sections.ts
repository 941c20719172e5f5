/**
 * A form's settings sections as S2 reads them, parsed once per section rather than on
 * every post (hot path). The forms S2 uses are frozen snapshots (form-snapshots.ts), held
 * for a form version, so a frozen section parses to the same result every time; a section
 * that is not frozen (a form read for one request) is parsed each time, as before.
 */
import * as v from "valibot";

type Parsed<S extends v.GenericSchema> = v.SafeParseResult<S>;

/** Results by schema, then by frozen section. */
const results = new WeakMap<v.GenericSchema, WeakMap<object, unknown>>();
/** Results of a missing section (`undefined`), by schema: most forms have no actions. */
const missing = new WeakMap<v.GenericSchema, unknown>();

/** `v.safeParse(schema, section)`, remembered for a frozen section and for a missing one. */
export function parseSection<S extends v.GenericSchema>(schema: S, section: unknown): Parsed<S> {
  if (section === undefined) {
    let result = missing.get(schema) as Parsed<S> | undefined;
    if (!result) {
      result = v.safeParse(schema, section);
      missing.set(schema, result);
    }
    return result;
  }
  if (typeof section !== "object" || section === null || !Object.isFrozen(section)) {
    return v.safeParse(schema, section);
  }
  let bySection = results.get(schema);
  if (!bySection) {
    bySection = new WeakMap();
    results.set(schema, bySection);
  }
  let result = bySection.get(section) as Parsed<S> | undefined;
  if (!result) {
    result = v.safeParse(schema, section);
    bySection.set(section, result);
  }
  return result;
}
