/**
 * Every route whose body is a JSON object refuses a body that is not one (docs/design.md §4):
 * an array (valibot's object schema lets arrays through, JSON Schema's `object` does not),
 * `null`, a string or a number. Each is a 400 with the envelope, and nothing is written.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { request } from "../helpers.ts";
import { adminSecret, buildWorld, type Operation, type World } from "./fuzz-world.ts";
import { snapshotStore } from "./store-snapshot.ts";

/** Bodies that are JSON but not a JSON object. */
const notObjects = [[], [null, null], null, "x", 1];

/** The credentials that let the owner, the partner or the admin call `path`. */
function credentialsFor(world: World, path: string): Record<string, string> {
  if (path.startsWith("/api/admin")) return { AdminSecret: adminSecret };
  if (path.startsWith("/api/restricted/partner")) {
    return {
      PartnerId: world.partner.partner_id,
      PartnerSecret: world.partner.partner_secret,
    };
  }
  return { TokenId: world.owner.token_id, TokenSecret: world.owner.token_secret };
}

/** The request paths of `operation` (the form update twice: whole form and F2). */
function pathsOf(operation: Operation, world: World): string[] {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = world.ids[name];
    assert.ok(id, `no id for ${name}`);
    return encodeURIComponent(id);
  });
  if (!operation.query.includes("settingsSection")) return [path];
  return [
    path,
    `${path}?updateSettingsOnly=1&settingsSection=conditionallogicsettings`,
    `${path}?updateSettingsOnly=1&settingsSection=paymentsettings`,
  ];
}

describe("routes that take a JSON object refuse any other JSON body", () => {
  it("answers 400 with the envelope for [], [null,null], null, a string and a number, and writes nothing", async () => {
    const store = snapshotStore(createMemoryStore());
    const directory = await mkdtemp(join(tmpdir(), "formwork-object-bodies-"));
    const world = await buildWorld(store, directory);
    try {
      const before = await store.snapshot();
      const objectRoutes = world.operations.filter(
        (operation) =>
          operation.body === "application/json" &&
          // D5 takes an array of entries as well as one entry (docs/design.md §4).
          !operation.path.endsWith("/entry") &&
          // A payment provider's event is its bytes, which only its port reads (§26).
          !operation.path.startsWith("/api/payments/"),
      );
      assert.ok(objectRoutes.length >= 9, `only ${objectRoutes.length} routes`);
      const failures: string[] = [];
      for (const operation of objectRoutes) {
        for (const path of pathsOf(operation, world)) {
          for (const body of notObjects) {
            const answer = await request(world.service, operation.method, path, {
              headers: { ...credentialsFor(world, path), "content-type": "application/json" },
              body: JSON.stringify(body),
            });
            const seen = `${operation.method} ${path} ${JSON.stringify(body)}`;
            if (answer.status !== 400 || answer.body?.error !== "validation_failed") {
              failures.push(`${seen}: ${answer.status} ${JSON.stringify(answer.body)}`);
            } else assert.equal(typeof answer.body.message, "string", seen);
          }
        }
      }
      assert.deepEqual(failures, []);
      assert.equal(await store.snapshot(), before);
    } finally {
      await world.service.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("refuses an array where a body nests an object whose every key is optional, or a map", async () => {
    const store = snapshotStore(createMemoryStore());
    const directory = await mkdtemp(join(tmpdir(), "formwork-object-bodies-"));
    const world = await buildWorld(store, directory);
    try {
      const before = await store.snapshot();
      const cascade = "?updateSettingsOnly=1&settingsSection=privatedatalistlogicsettings";
      const cases: [string, unknown, { path: string; message: string }[]][] = [
        [
          `/api/restricted/datalist/${world.ids.datalistId}`,
          { settings: [] },
          [{ path: "settings", message: "must be a JSON object" }],
        ],
        [
          `/api/restricted/form/${world.ids.formId}/${cascade}`,
          { rules: [{ unique_system_name: "size_3", depends_on: "name_1", options_by_value: [] }] },
          [{ path: "rules.0.options_by_value", message: "must be a JSON object" }],
        ],
      ];
      for (const [path, body, issues] of cases) {
        const answer = await request(world.service, "POST", path, {
          headers: credentialsFor(world, path),
          body,
        });
        assert.equal(answer.status, 400, JSON.stringify(answer.body));
        assert.equal(answer.body.error, "validation_failed");
        assert.deepEqual(answer.body.issues, issues);
      }
      assert.equal(await store.snapshot(), before);
    } finally {
      await world.service.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
