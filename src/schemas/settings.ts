import * as v from "valibot";
import { sectionNamed, settingsSections } from "../domain/settings/index.ts";
import { ValidationError } from "../kernel/errors.ts";
import { boundIssues, jsonBounds } from "../kernel/json-bounds.ts";
import { parseWith } from "../kernel/parse.ts";

/**
 * F2's body for one settings section, checked against the section's schema (the domain's
 * rules for what each section holds, docs/design.md §11), within the JSON bounds of a section.
 * @throws {ValidationError} 400 for a body that is not a JSON object, too large or deep, not
 *   valid for the section, or an unknown section.
 */
export function parseSettingsSection(section: string, body: unknown): Record<string, unknown> {
  const isObject = typeof body === "object" && body !== null && !Array.isArray(body);
  const known = sectionNamed(section);
  if (!known) {
    throw new ValidationError(`Unknown settingsSection ${section}`, [
      {
        path: "settingsSection",
        message: `must be one of ${settingsSections.map((s) => s.name).join(", ")}, generalsettingsdelete`,
      },
    ]);
  }
  if (!isObject) {
    throw new ValidationError(`The ${section} body must be a JSON object`, [
      { path: "", message: "must be a JSON object" },
    ]);
  }
  const outOfBounds = boundIssues(body, jsonBounds.sectionBytes);
  if (outOfBounds.length) {
    throw new ValidationError(`The ${section} body is too large or too deep`, outOfBounds);
  }
  if (known.schema) return parseWith(known.schema, body, `The ${section} body is not valid`);
  return parseWith(
    v.record(v.string(), v.unknown()),
    body,
    `The ${section} body must be a JSON object`,
  );
}
