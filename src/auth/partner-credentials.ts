import type { PartnerRecord } from "../domain/accounts/index.ts";
import { findPartner, hashSecret, secretMatches } from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import { UnauthorizedError } from "../kernel/errors.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Compared against when the partner is unknown, so that both failures take as long. */
const noPartnerHash = hashSecret("no such partner");

/**
 * Finds the partner calling P1, P3, P4 or P5 from its `PartnerId` and `PartnerSecret`
 * headers. The secret is checked against the stored hash in constant time.
 * @throws {UnauthorizedError} when a header is missing, or the pair is unknown or wrong.
 */
export async function authenticatePartner(ctx: Context, headers: Headers): Promise<PartnerRecord> {
  const partnerId = headers.get("PartnerId")?.trim().toLowerCase();
  const secret = headers.get("PartnerSecret")?.trim();
  if (!partnerId || !secret) {
    throw new UnauthorizedError("Both PartnerId and PartnerSecret are required");
  }
  const id = partnerId.replace(/^\{(.*)\}$/, "$1");
  const stored = guidPattern.test(id) ? await findPartner(ctx, id) : null;
  const matches = secretMatches(secret, stored?.secret_hash ?? noPartnerHash);
  if (!stored || !matches) throw new UnauthorizedError("Unknown PartnerId or wrong PartnerSecret");
  return stored;
}
