import type { Role } from "../../src/domain/forms/roles.ts";
import { type CallerKind, factsOf, type OwnerKind } from "./matrix-callers.ts";

/** A state of the form that changes who may use the public routes. */
export type FormState = "enabled" | "disabled" | "requiresLogin";

/**
 * Who may use a route, in the words of docs/design.md §2 and §3:
 * - `form`: the owner or a holder of `role` on the form; no role at all, 404; another role, 403;
 * - `public` (F5, S2, S3, the hosted page): anyone while the form is enabled and does not
 *   require login; otherwise the owner and the holders of a submission role;
 * - `own`: any signed-in caller, acting on their own account (create a form, F4, D1, D4);
 * - `datalist`: its creator only; anyone else sees no such datalist (404);
 * - `partner`: partner credentials; `own` routes act on the partner's own customers, while
 *   `customer` routes name partner P's customer, whom partner Q cannot find (404);
 * - `admin`: the `AdminSecret` header;
 * - `open`: anyone (the OpenAPI document);
 * - `foreign`: a record of the owner's named through the stranger's own form or datalist;
 *   it is not there, so every signed-in caller gets `status` (404, or 400 where the record
 *   is a value in a body), and so does anyone on a `public` route; with `ownerMay`, the
 *   owner itself names its own record, which is allowed.
 */
export type Access =
  | { kind: "form"; role: Role }
  | { kind: "public"; form: FormState }
  | { kind: "own" | "datalist" | "admin" | "open" }
  | { kind: "partner"; scope: "own" | "customer" }
  | { kind: "foreign"; status: 400 | 404; public?: boolean; ownerMay?: boolean };

const submissionRoles: readonly Role[] = ["has_form_submission", "has_offline_form_submission"];

/**
 * The status a caller gets from a route. Credentials that are wrong, expired, forged,
 * unsigned or for another partner are a 401 wherever they are sent (docs/design.md §2, §8). The
 * forms of a customer on a free trial are the owner's alone: 404 for everyone else (§3).
 */
export function expectedStatus(access: Access, caller: CallerKind, ownerKind: OwnerKind): number {
  const { identity, roles } = factsOf(caller);
  if (identity === "invalid") return 401;
  const hidden = ownerKind === "freeTrial" && roles !== "owner";
  switch (access.kind) {
    case "open":
      return 200;
    case "foreign":
      if (access.ownerMay && roles === "owner") return 200;
      return identity === "signedIn" || access.public ? access.status : 401;
    case "admin":
      return identity === "admin" ? 200 : 401;
    case "partner":
      if (identity === "partnerP") return 200;
      if (identity === "partnerQ") return access.scope === "own" ? 200 : 404;
      return 401;
    case "own":
      return identity === "signedIn" ? 200 : 401;
    case "datalist":
      if (identity !== "signedIn") return 401;
      return roles === "owner" ? 200 : 404;
    case "form":
      if (identity !== "signedIn") return 401;
      if (roles === "owner") return 200;
      if (hidden || roles.length === 0) return 404;
      return roles.includes(access.role) ? 200 : 403;
    case "public":
      if (roles === "owner") return 200;
      if (hidden) return 404;
      if (roles.some((role) => submissionRoles.includes(role))) return 200;
      if (access.form === "disabled") return 403;
      // A form that requires login is hidden from signed-in callers without a submission
      // role, collaborators with other roles included (test/form-reading.test.ts pins this).
      if (access.form === "requiresLogin") return identity === "signedIn" ? 404 : 401;
      return 200;
  }
}

/** Whether a caller may see the record `access` guards at all (200 or 403, not 401 or 404). */
export function maySee(access: Access, caller: CallerKind, ownerKind: OwnerKind): boolean {
  const status = expectedStatus(access, caller, ownerKind);
  return status === 200 || status === 403;
}
