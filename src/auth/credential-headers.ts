import { UnauthorizedError } from "../kernel/errors.ts";

/**
 * How every scheme reads its headers (docs/design.md §2): a credential header that is empty
 * or holds only spaces counts as absent, exactly as if it had not been sent, and so does
 * `Authorization: Bearer` with nothing after it. A header with a value is a credential the
 * request claims, which must then be valid.
 */

/** A credential header's value, trimmed; `undefined` when it is absent or empty. */
export function credentialHeader(headers: Headers, name: string): string | undefined {
  return headers.get(name)?.trim() || undefined;
}

/**
 * The customer login token of `Authorization: Bearer <token>`, or `undefined` when there is
 * none. Another scheme (`Basic …`, say a proxy's) is not this service's credential and is
 * left alone.
 * @throws {UnauthorizedError} for a bearer value that is not a single token.
 */
export function bearerToken(headers: Headers): string | undefined {
  const match = /^Bearer(?:\s+(.*))?$/is.exec(credentialHeader(headers, "authorization") ?? "");
  const token = match?.[1]?.trim();
  if (!token) return undefined;
  if (/\s/.test(token)) throw new UnauthorizedError("The login token is not valid");
  return token;
}

/**
 * Whether a request names an account token or a customer login token. One without is
 * anonymous, decided without a promise, so that an anonymous S2 (the hot path) pays for no
 * credential lookup at all. Partner and admin credentials are read by their own routes.
 */
export function carriesCredentials(headers: Headers): boolean {
  return (
    credentialHeader(headers, "authorization") !== undefined ||
    credentialHeader(headers, "TokenId") !== undefined ||
    credentialHeader(headers, "TokenSecret") !== undefined
  );
}
