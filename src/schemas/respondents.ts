/**
 * Erasure and access by respondent (docs/design.md §6): what the two routes take and the
 * erasure's answer.
 */
import * as v from "valibot";
import { emailSchema } from "./common.ts";

/** The erasure's body: the respondent's address. */
export const respondentBody = v.strictObject({ email: emailSchema });

/** The access export's query: the respondent's address. */
export const respondentQuery = v.object({ email: emailSchema });

/** What an erasure deleted, in all and per form (forms with none left out). */
export const erasureAnswer = v.strictObject({
  message: v.string(),
  action_successful: v.literal(true),
  deleted: v.number(),
  forms: v.array(v.strictObject({ form_id: v.string(), deleted: v.number() })),
});
