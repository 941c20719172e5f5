/**
 * The request headers of the bot protections (docs/design.md §6): the `Altcha` solution S2
 * and S3 spend on a protected form, and the hosted page's marks S2 reads.
 */
import * as v from "valibot";
import { credentialHeader } from "../auth/credential-headers.ts";
import type { BotMarks } from "../domain/settings/index.ts";

/** The `Altcha` header: one solved challenge. */
export const altchaHeader = v.optional(
  v.pipe(
    v.string(),
    v.description(
      "A solved challenge of `GET /api/form/{formId}/challenge`: `base64(JSON({challenge, solution}))`. Needed, once per request, when the form's security settings turn `bot_protection.challenge` on; without a valid, unexpired, unused one the answer is 400 `challenge_required`.",
    ),
  ),
);

/** S2's headers for the bot protections (docs/design.md §6). */
export const botHeaders = v.object({
  Altcha: altchaHeader,
  "Formwork-Page": v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Set by the hosted page: its signed mark of when it was served, for `min_fill_seconds`. Other clients leave it out.",
      ),
    ),
  ),
  "Formwork-Honeypot": v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Set by the hosted page: the value of its hidden honeypot field, when filled. Other clients leave it out.",
      ),
    ),
  ),
});

/** What S2 and S3 read of these headers; an empty one counts as absent (docs/design.md §2). */
export function botMarksOf(headers: Headers): BotMarks {
  return {
    solution: credentialHeader(headers, "Altcha"),
    page: credentialHeader(headers, "Formwork-Page"),
    honeypot: credentialHeader(headers, "Formwork-Honeypot"),
  };
}
