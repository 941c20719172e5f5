/**
 * A store that cannot be reached answers 503 `service_unavailable` through the service
 * (the adapter throws `StoreUnavailableError`, the service builds the envelope), never a
 * 500, and the request it refused leaves nothing behind.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type CosmosStoreOptions, createCosmosStore } from "../../adapters/cosmos/index.ts";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { type CosmosEmulator, startCosmosEmulator } from "../emulators/cosmos.ts";
import { formInput, setup, type TestUser } from "../helpers.ts";

const unavailable = {
  id: "",
  message: "Storage is unavailable at the moment; please try again shortly",
  action_successful: false,
  error: "service_unavailable",
};

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A service over `store`, with alice (made unless given), and ways to list and make forms. */
async function withAlice(store: Store, known?: TestUser) {
  const env = await setup({ store, sweepIntervalMs: 0 });
  after(() => env.service.close());
  const alice = known ?? (await env.user("alice@example.com"));
  const formNames = async () => {
    const listed = await env.call("GET", "/api/restricted/user/form", { as: alice });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const results = listed.body.results as {
      form_configuration: { settings: { form_name: string } };
    }[];
    return results.map((form) => form.form_configuration.settings.form_name);
  };
  const createForm = (name: string) =>
    env.call("POST", "/api/restricted/form", { as: alice, body: formInput(name) });
  return { ...env, alice, formNames, createForm };
}

/** A Cosmos DB store over the stand-in, making its own client as production does. */
function cosmosStore(emulator: CosmosEmulator, options: Partial<CosmosStoreOptions> = {}) {
  return createCosmosStore({
    endpoint: emulator.endpoint,
    key: emulator.key,
    agent: emulator.agent,
    endpointDiscovery: false,
    databaseId: "unavailable",
    createIfMissing: true,
    ...options,
  });
}

describe("a store that cannot be reached, through the service", () => {
  it("lowdb whose disk refuses writes: 503, and the refused form is nowhere", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-unavailable-"));
    temporary.push(directory);
    const store = createLowdbStore({ directory, journalBytes: 20_000 });
    const { alice, createForm, formNames, service } = await withAlice(store);
    // The journal's next file is the full device: every write after the rotation fails.
    await symlink("/dev/full", join(directory, "journal-000000000002.log"));
    assert.equal((await createForm("Kept")).status, 200);
    await store.create("padding", "p", { id: "big", text: "x".repeat(20_000) });
    while ((await readdir(directory)).includes("journal-000000000001.log")) await sleep(5);

    const refused = await createForm("Refused");
    assert.equal(refused.status, 503);
    assert.deepEqual(refused.body, unavailable);
    assert.deepEqual(await formNames(), ["Kept"]);

    // What is on disk agrees: the kept form, and nothing of the refused one.
    await service.close();
    await rm(join(directory, "journal-000000000002.log"), { force: true });
    const reopened = await withAlice(createLowdbStore({ directory }), alice);
    assert.deepEqual(await reopened.formNames(), ["Kept"]);
    assert.equal((await reopened.createForm("After")).status, 200);
  });
});

describe("the Cosmos DB stand-in, through the service", () => {
  it("answers 503 with Retry-After when throttling outlasts the SDK's retries", async () => {
    const emulator = await startCosmosEmulator();
    const { call, alice } = await withAlice(cosmosStore(emulator, { maxThrottleRetries: 0 }));
    // More throttling than one request can meet: every call fails until it is used up.
    emulator.failNext(10, 429);
    const throttled = await call("GET", "/api/restricted/user/form", { as: alice });
    assert.equal(throttled.status, 503);
    assert.deepEqual(throttled.body, unavailable);
    assert.equal(throttled.headers.get("retry-after"), "1");
    let status = 503;
    for (let tries = 0; status === 503 && tries < 10; tries++) {
      status = (await call("GET", "/api/restricted/user/form", { as: alice })).status;
    }
    assert.equal(status, 200);
  });

  it("answers 503, not 500, once the stand-in is stopped", async () => {
    const emulator = await startCosmosEmulator();
    const env = await withAlice(cosmosStore(emulator, { requestTimeoutMs: 2000 }));
    assert.equal((await env.createForm("Kept")).status, 200);
    await emulator.stop();
    const refused = await env.createForm("Refused");
    assert.equal(refused.status, 503);
    assert.deepEqual(refused.body, unavailable);
    const listed = await env.call("GET", "/api/restricted/user/form", { as: env.alice });
    assert.equal(listed.status, 503);
  });
});
