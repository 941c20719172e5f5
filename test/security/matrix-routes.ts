import { foreignCases } from "./cases-foreign.ts";
import { formCases } from "./cases-forms.ts";
import { recordCases } from "./cases-records.ts";
import { serviceCases } from "./cases-service.ts";
import type { Fixture } from "./matrix-fixture.ts";
import type { MatrixAnswer, MatrixRequest } from "./matrix-requests.ts";
import type { Access, FormState } from "./matrix-rules.ts";

const formStates: FormState[] = ["enabled", "disabled", "requiresLogin"];

/** One use of a route: what to send, and who may. A route may have several (F2, F3). */
export interface RouteCase {
  /** The router's own key: method and pattern, as in `router.routes`. */
  route: string;
  /** The interface's name for it. */
  name: string;
  access: Access;
  /** The path (with query), body and headers; the method is the route's. */
  request(fx: Fixture): Omit<MatrixRequest, "method">;
  /**
   * For lists: whether the answer shows the fixture's record, which must be exactly when
   * the caller may see it under `target`.
   */
  reveals?: {
    target: Access;
    /**
     * Shown exactly when `target` would answer the caller 200 (a holder of another role on
     * the form sees nothing), rather than whenever the caller may see the record at all.
     */
    exact?: true;
    found(answer: MatrixAnswer, fx: Fixture): boolean;
  };
  /**
   * A read recorded in the audit trail (docs/design.md §25): when it succeeds it appends an
   * audit entry, and changes nothing else.
   */
  audited?: true;
}

/** Every route of the service, with who may use it; the public ones also on a form in each state. */
export const routeCases: RouteCase[] = [
  ...formCases,
  ...recordCases,
  ...serviceCases,
  ...foreignCases,
].flatMap((routeCase) => {
  const access = routeCase.access;
  if (access.kind !== "public") return [routeCase];
  return formStates.map((form) => ({
    ...routeCase,
    name: form === "enabled" ? routeCase.name : `${routeCase.name}, form ${form}`,
    access: { ...access, form },
  }));
});
