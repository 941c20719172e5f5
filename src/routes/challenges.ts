import * as v from "valibot";
import { accessFormToSubmit, challengeSeconds, newChallenge } from "../domain/settings/index.ts";
import type { RouteOperation } from "./operation.ts";
import { guidParam } from "./route-request.ts";

/** An ALTCHA challenge (protocol v2), as `GET …/challenge` answers it. */
const challengeAnswer = v.strictObject({
  parameters: v.looseObject({
    algorithm: v.string(),
    nonce: v.string(),
    salt: v.string(),
    cost: v.number(),
    keyLength: v.number(),
    keyPrefix: v.string(),
    keySignature: v.optional(v.string()),
    expiresAt: v.number(),
    data: v.strictObject({ form: v.string() }),
  }),
  signature: v.string(),
});

/**
 * The bot-protection challenge of a form (extension, docs/design.md §6): a signed
 * proof-of-work challenge on the ALTCHA protocol, whose solution S2 and S3 take in their
 * `Altcha` header when the form's security settings turn `bot_protection.challenge` on.
 */
export const challengeOperation: RouteOperation = {
  method: "get",
  path: "/api/form/:formId/challenge",
  operationId: "getChallenge",
  ref: "extension",
  summary: "A proof-of-work challenge for S2 and S3 (ALTCHA)",
  description: `Solve it (altcha-lib's \`solveChallenge\`, or the \`altcha\` widget) and send \`base64(JSON({challenge, solution}))\` in the \`Altcha\` header of one S2 or S3 to a form whose security settings turn \`bot_protection.challenge\` on. A solution is good for one request, for ${challengeSeconds / 60} minutes, on this form only.`,
  tag: "Submissions",
  auth: "public",
  response: {
    description: "The challenge, signed by the service.",
    schema: { name: "Challenge", schema: challengeAnswer },
  },
  handler: async (request, ctx) => {
    const { form } = await accessFormToSubmit(ctx, request.caller, guidParam(request, "formId"));
    return newChallenge(ctx, form.id);
  },
};
