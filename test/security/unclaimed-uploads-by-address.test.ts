/**
 * The abuse case of five anonymous uploads that shut a form's uploads for a day: one client
 * address may hold only its share of the form's unclaimed uploads, and an upload no
 * submission claims within the hour's grace is released by the next sweep. Over the memory
 * store and lowdb on a temporary folder.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { addressCounter, addressKeyOf } from "../../src/domain/attachments/address-uploads.ts";
import type { FormServiceOptions } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import { storeKinds } from "../store-kinds.ts";
import { type FilesEnv, submit, upload, withFiles } from "../submissions/setup.ts";

const minute = 60 * 1000;
const first = "203.0.113.5";
const second = "198.51.100.7";

type Counter = { id: string; counts: Record<string, number> };

/** A form taking files over `store`, whose cap on unclaimed uploads is 1000 bytes. */
async function withCap(store: Store, options: Partial<FormServiceOptions> = {}) {
  // The share of one address is not given: a quarter of the cap, 250 bytes.
  const limits = { unclaimedUploadBytes: 1000, uploadBytes: 250 };
  const env = await withFiles({ store, limits, trustProxy: true, ...options });
  const from = (address: string, bytes: number) =>
    upload(env, { bytes: "x".repeat(bytes) }, { headers: { "x-forwarded-for": address } });
  return { ...env, store, from };
}

/** The form's unclaimed bytes and each address's, as the counters in the store say. */
async function counts(store: Store, formId: string) {
  const counters = await queryAll<Counter>(store, "form_counters", formId);
  const held = (address: string) => {
    const { id } = addressCounter(formId, address);
    return counters.find((counter) => counter.id === id)?.counts.unclaimed_bytes ?? 0;
  };
  const form = counters.find((counter) => counter.id === formId);
  return {
    form: form?.counts.unclaimed_bytes ?? 0,
    held,
    /** How many address counters the form keeps. */
    addresses: counters.filter((counter) => counter.id.startsWith("address-")).length,
  };
}

async function filesOf(env: FilesEnv): Promise<string[]> {
  const names = await readdir(join(env.directory, env.formId)).catch(() => []);
  return names.filter((name) => !name.endsWith(".json"));
}

describe("the bound on unclaimed uploads per client address", () => {
  for (const [name, open] of storeKinds("memory", "lowdb")) {
    it(`keeps an address that filled its share from blocking another's upload (${name})`, async () => {
      const env = await withCap(await open());
      // The attack, at a thousandth of the scale: four files as large as uploads may be.
      const attack = [];
      for (let i = 0; i < 4; i++) attack.push(await env.from(first, 250));
      assert.deepEqual(
        attack.map((answer) => answer.status),
        [200, 413, 413, 413],
      );
      assert.equal(attack[1]?.body.error, "payload_too_large");
      assert.match(attack[1]?.body.message, /as much as one address may \(250 bytes\)/);
      const real = await env.from(second, 100);
      assert.equal(real.status, 200, JSON.stringify(real.body));
      let now = await counts(env.store, env.formId);
      assert.deepEqual([now.form, now.held(first), now.held(second)], [350, 250, 100]);
      assert.equal((await filesOf(env)).length, 2, "nothing refused was stored");

      const posted = await submit(env, { name_1: "Ada", cv_9: real.body.id });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      now = await counts(env.store, env.formId);
      assert.deepEqual([now.form, now.held(first), now.held(second)], [250, 250, 0]);
      assert.equal(now.addresses, 1, "the claim deleted the counter it emptied");
    });

    it(`releases an upload not claimed within the hour (${name})`, async () => {
      const env = await withCap(await open());
      const kept = await env.from(first, 250);
      assert.equal(kept.status, 200);
      env.tick(59 * minute);
      assert.equal(await env.service.sweepAttachments(), 0, "within the grace period");
      assert.equal((await env.from(first, 10)).status, 413);
      env.tick(2 * minute);
      assert.equal(await env.service.sweepAttachments(), 1, "released past the hour");
      const now = await counts(env.store, env.formId);
      assert.deepEqual([now.form, now.held(first), now.addresses], [0, 0, 0]);
      assert.deepEqual(await filesOf(env), [], "the sweep removed the file");
      const late = await submit(env, { name_1: "Ada", cv_9: kept.body.id });
      assert.equal(late.status, 400, "a released file can no longer be submitted");
      assert.equal((await env.from(first, 250)).status, 200, "the address may upload again");
    });

    it(`gives an address's bytes back when its upload fails or is claimed (${name})`, async () => {
      const env = await withCap(await open());
      assert.equal((await env.from(first, 300)).status, 413, "larger than uploads may be");
      let now = await counts(env.store, env.formId);
      assert.deepEqual([now.form, now.addresses], [0, 0], "the failed upload gave its hold back");
      // Concurrent uploads of one address never hold more than its share together.
      const answers = await Promise.all(Array.from({ length: 6 }, () => env.from(first, 100)));
      const stored = answers.filter((answer) => answer.status === 200);
      assert.ok(stored.length >= 1 && stored.length <= 2, `${stored.length} stored`);
      now = await counts(env.store, env.formId);
      assert.equal(now.held(first), 100 * stored.length);
      assert.equal(now.form, 100 * stored.length);
      const ids = stored.map((answer) => answer.body.id).join("|");
      const posted = await submit(env, { name_1: "Ada", cv_9: ids });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      now = await counts(env.store, env.formId);
      assert.deepEqual([now.form, now.held(first), now.addresses], [0, 0, 0]);
    });
  }

  it("counts an IPv6 client by its /64", async () => {
    const env = await withCap((await storeKinds("memory")[0]?.[1]()) as Store);
    assert.equal((await env.from("2001:db8:1:2::1", 250)).status, 200);
    assert.equal((await env.from("2001:0db8:1:2:ffff::9", 10)).status, 413, "the same /64");
    assert.equal((await env.from("2001:db8:1:3::1", 10)).status, 200, "another /64");
    assert.equal(addressKeyOf("2001:DB8:0:0:1::1%eth0"), "2001:db8:0:0::/64");
    assert.equal(addressKeyOf("::ffff:1.2.3.4"), "0:0:0:0::/64");
    assert.equal(addressKeyOf("fe80::1"), "fe80:0:0:0::/64");
    assert.equal(addressKeyOf("203.0.113.5"), "203.0.113.5");
  });

  it("refuses options where the largest upload is more than one address may hold", async () => {
    await assert.rejects(
      withFiles({ limits: { uploadBytes: 500, unclaimedUploadBytesPerAddress: 400 } }),
      /limits.uploadBytes \(500\) exceeds limits.unclaimedUploadBytesPerAddress \(400\)/,
    );
  });
});
