import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { AdminApi } from "../../src/admin.ts";
import { createRateLimits } from "../../src/http/rate-limits.ts";
import { routesOfPath } from "../../src/routes/route-table.ts";
import { createRouter } from "../../src/routes/router.ts";
import { type CallerKind, callerKinds, type OwnerKind, ownerKinds } from "./matrix-callers.ts";
import { buildFixture, type Fixture, setFormState } from "./matrix-fixture.ts";
import { type RouteCase, routeCases } from "./matrix-routes.ts";
import { expectedStatus, maySee } from "./matrix-rules.ts";

/**
 * The authorization matrix: every route of the router × every kind of caller, for a form
 * owned by a local account and one owned by a partner's customer. Each cell checks the
 * status that docs/design.md §3 gives and, for every refused call and every read, that the
 * store and the blob folder hold exactly what they held before.
 */

const router = createRouter({
  admin: {} as AdminApi,
  adminSecret: "secret",
  basePath: "",
  onError: () => {},
  rateLimits: createRateLimits(),
});
const routerKeys = router.routes
  .filter(([method]) => method !== "ALL")
  .map(([method, , , pattern]) => `${method} ${pattern}`);

const ownerNames: Record<OwnerKind, string> = {
  local: "a local account",
  customer: "a paying customer of partner P",
  freeTrial: "a free-trial customer of partner P",
};

/** One cell that did not answer as the rules say. */
interface Failure {
  route: string;
  caller: string;
  expected: string;
  got: string;
}

const totals = { cells: 0, fixtures: 0, resets: 0 };
after(() => {
  console.log(
    `authorization matrix: ${routerKeys.length} routes, ${routeCases.length} cases, ` +
      `${callerKinds.length} callers × ${ownerKinds.length} owners: ${totals.cells} cells on ${totals.fixtures} fixtures, ${totals.resets} resets`,
  );
});

describe("authorization matrix", () => {
  it("has an expectation for every route of the router, and none for a route it lacks", () => {
    const covered = new Set(routeCases.map((c) => c.route));
    const uncovered = routerKeys.filter((key) => !covered.has(key));
    assert.deepEqual(uncovered, [], `routes without an expectation: ${uncovered.join(", ")}`);
    const unknown = [...covered].filter((key) => !routerKeys.includes(key));
    assert.deepEqual(
      unknown,
      [],
      `expectations for routes the router lacks: ${unknown.join(", ")}`,
    );
  });

  for (const ownerKind of ownerKinds) {
    describe(`a form owned by ${ownerNames[ownerKind]}`, () => {
      for (const routeCase of routeCases) {
        it(`${routeCase.name}: ${routeCase.route}`, async () => {
          const failures = await runRoute(routeCase, ownerKind);
          assert.deepEqual(failures, [], `\n${table(failures, ownerKind)}`);
        });
      }
    });
  }
});

/**
 * Runs one case for every caller on one fixture: a cell that changed the store or failed is
 * followed by a reset to the state marked before the first cell, checked by its snapshot.
 */
async function runRoute(routeCase: RouteCase, ownerKind: OwnerKind): Promise<Failure[]> {
  const failures: Failure[] = [];
  const method = routeCase.route.split(" ")[0] ?? "";
  const fx = await buildFixture(ownerKind);
  totals.fixtures++;
  try {
    assertRoutedAs(routeCase, method, fx);
    if (routeCase.access.kind === "public") await setFormState(fx, routeCase.access.form);
    await fx.mark();
    const held = await fx.snapshot();
    for (const caller of callerKinds) {
      const cell = await runCell(fx, routeCase, ownerKind, caller, held);
      totals.cells++;
      failures.push(...cell.failures);
      if (cell.after !== held || cell.failures.length > 0) {
        await fx.reset();
        totals.resets++;
        assert.equal(await fx.snapshot(), held, "the reset did not restore the fixture");
      }
    }
  } finally {
    await fx.close();
  }
  return failures;
}

async function runCell(
  fx: Fixture,
  routeCase: RouteCase,
  ownerKind: OwnerKind,
  caller: CallerKind,
  before: string,
) {
  const method = routeCase.route.split(" ")[0] ?? "";
  const answer = await fx.send(caller, { method, ...routeCase.request(fx) });
  const after = await fx.snapshot();
  const changed = after !== before;
  const expected = expectedStatus(routeCase.access, caller, ownerKind);
  const fail = (expectedText: string, got: string) => ({
    route: `${routeCase.name} (${method} ${routeCase.request(fx).path})`,
    caller,
    expected: expectedText,
    got,
  });
  const failures: Failure[] = [];
  // A read that succeeded may have appended its audit entry, and nothing else.
  const auditedRead = () =>
    routeCase.audited === true &&
    answer.status === 200 &&
    withoutAuditTrail(after) === withoutAuditTrail(before);
  const body = JSON.stringify(answer.body ?? "").slice(0, 120);
  if (answer.status !== expected) failures.push(fail(String(expected), `${answer.status} ${body}`));
  else if (changed && (expected !== 200 || method === "GET") && !auditedRead()) {
    failures.push(fail(`${expected}, nothing changed`, `${answer.status}, the store changed`));
  } else if (routeCase.reveals && answer.status === 200) {
    const shown = routeCase.reveals.found(answer, fx);
    const { target, exact } = routeCase.reveals;
    const allowed = exact
      ? expectedStatus(target, caller, ownerKind) === 200
      : maySee(target, caller, ownerKind);
    if (shown !== allowed) {
      failures.push(fail(`200 ${allowed ? "listing" : "not listing"} the record`, `200 ${body}`));
    }
  }
  return { failures, after };
}

/**
 * A fixture snapshot (the store's JSON, a line break, the files) without the partitions of the
 * audit trail's collections, nor the markers of forms whose respondent index a first export
 * made sure of (respondent-backfill.ts).
 */
function withoutAuditTrail(snapshot: string): string {
  const cut = snapshot.indexOf("\n");
  const records = JSON.parse(cut < 0 ? snapshot : snapshot.slice(0, cut)) as Record<
    string,
    unknown
  >;
  for (const key of Object.keys(records)) {
    if (key.startsWith("audit_entries/") || key.startsWith("audit_months/")) delete records[key];
    if (key === "service_state/respondents-indexed") delete records[key];
  }
  return JSON.stringify(records) + (cut < 0 ? "" : snapshot.slice(cut));
}

/** The case's request must reach the route it claims to cover. */
function assertRoutedAs(routeCase: RouteCase, method: string, fx: Fixture) {
  const path = routeCase.request(fx).path;
  const routed = routesOfPath(router.routes, method, new URL(path, "http://localhost").pathname);
  assert.equal(`${method} ${routed?.pattern}`, routeCase.route, `${routeCase.name} sends ${path}`);
}

function table(failures: Failure[], ownerKind: OwnerKind): string {
  const rows = failures.map(
    (f) => `${f.route} | ${f.caller} | expected ${f.expected} | got ${f.got}`,
  );
  return [`owner: ${ownerKind}; route | caller | expected | got`, ...rows].join("\n");
}
