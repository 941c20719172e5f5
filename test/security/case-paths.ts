import type { Fixture } from "./matrix-fixture.ts";
import type { MatrixAnswer } from "./matrix-requests.ts";

/** Paths and access rules the route cases share. */

/** The fixture form's restricted base path. */
export const form = (fx: Fixture) => `/api/restricted/form/${fx.ids.formId}`;
/** The fixture datalist's path. */
export const datalist = (fx: Fixture) => `/api/restricted/datalist/${fx.ids.datalistId}`;
/** The F2/F3 path of one settings section. */
export const settings = (fx: Fixture, section: string) =>
  `${form(fx)}/?updateSettingsOnly=1&settingsSection=${section}`;
/** The fixture webhook's path. */
export const webhook = (fx: Fixture) => `${form(fx)}/submissionwebhook/${fx.ids.webhookId}`;
/** Owner or `has_form_editor`. */
export const editor = { kind: "form", role: "has_form_editor" } as const;
/** Owner or `has_account_management`. */
export const manager = { kind: "form", role: "has_account_management" } as const;
/** Owner or `has_reporting_full`. */
export const reporter = { kind: "form", role: "has_reporting_full" } as const;
/** Any role at all on the form: who may see it. */
export const anyRole = { kind: "form", role: "has_form_submission" } as const;
/** The ids of a list answer's `results`. */
export const resultIds = (answer: MatrixAnswer): string[] =>
  (answer.body?.results ?? []).map((record: { id: string }) => record.id);
