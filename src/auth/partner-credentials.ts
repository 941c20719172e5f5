import type { PartnerRecord } from "../domain/accounts/index.ts";
import { findPartner, hashSecret, secretMatches } from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import { UnauthorizedError } from "../kernel/errors.ts";
import { credentialHeader } from "./credential-headers.ts";
import type { FailureGuard } from "./failure-guard.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Compared against when the partner is unknown, so that both failures take as long. */
const noPartnerHash = hashSecret("no such partner");

/**
 * Finds the partner calling P1, P3, P4 or P5 from its `PartnerId` and `PartnerSecret`
 * headers; empty headers count as absent (docs/design.md §2). The secret is checked against
 * the stored hash in constant time, and a wrong pair counts as a failure of the client's
 * address and of the `PartnerId` (docs/design.md §17).
 * @throws {UnauthorizedError} when a header is missing, or the pair is unknown or wrong.
 * @throws the 429 of `guard` when the client failed too often, before any lookup.
 */
export async function authenticatePartner(
  ctx: Context,
  headers: Headers,
  guard: FailureGuard,
): Promise<PartnerRecord> {
  const partnerId = credentialHeader(headers, "PartnerId")?.toLowerCase();
  const secret = credentialHeader(headers, "PartnerSecret");
  if (!partnerId || !secret) {
    throw new UnauthorizedError("Both PartnerId and PartnerSecret are required");
  }
  const id = partnerId.replace(/^\{(.*)\}$/, "$1");
  const claim = guidPattern.test(id) ? `partner:${id}` : undefined;
  guard.check(claim);
  const stored = claim ? await findPartner(ctx, id) : null;
  const matches = guard.attempt(
    claim,
    () => secretMatches(secret, stored?.secret_hash ?? noPartnerHash) && stored !== null,
  );
  if (!stored || !matches) throw new UnauthorizedError("Unknown PartnerId or wrong PartnerSecret");
  return stored;
}
