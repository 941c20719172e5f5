import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parseExposition } from "../observability/exposition.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { freePort, root, start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

/**
 * Scrapes `METRICS_PORT` over HTTP after a restart, a form list and a 404: the requests by
 * route pattern, the lowdb journal's families; the public port has no `/metrics`.
 */
async function scrapeMetrics(base: string, port: number, formId: string) {
  const scrape = await globalThis.fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(scrape.status, 200);
  assert.equal(scrape.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const text = await scrape.text();
  const { samples } = parseExposition(text);
  const count = (route: string, status: string) =>
    samples.find(
      (s) =>
        s.name === "formwork_http_request_duration_seconds_count" &&
        s.labels.route === route &&
        s.labels.status === status,
    )?.value;
  assert.equal(count("/api/restricted/user/form", "200"), 1);
  assert.equal(count("(unknown)", "404"), 1);
  const journal = samples.find((s) => s.name === "formwork_store_journal_bytes");
  assert.ok(journal, "the lowdb journal's size");
  assert.ok(samples.some((s) => s.name === "formwork_store_compactions_total"));
  assert.ok(samples.some((s) => s.name === "formwork_outbox_entries"));
  assert.ok(!text.includes(formId), "the scrape names no form");
  assert.equal((await globalThis.fetch(`${base}/metrics`)).status, 404);
  const other = await globalThis.fetch(`http://127.0.0.1:${port}/other`);
  assert.equal(other.status, 404);
}

describe("standalone server", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("serves the interface and keeps its data across a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-server-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: "test-admin-secret" };
    const first = await start(env);
    const account = await (
      await fetch(`${first.base}/api/admin/accounts`, {
        method: "POST",
        headers: { AdminSecret: env.ADMIN_SECRET, "content-type": "application/json" },
        body: JSON.stringify({ email: "alice@example.com" }),
      })
    ).json();
    const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
    const created = await (
      await fetch(`${first.base}/api/restricted/form`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          form_configuration: { settings: { form_name: "Kept", form_type: "classicsingle" } },
          form_definition: { pages: [] },
        }),
      })
    ).json();
    assert.equal(created.message, "Form created successfully");
    assert.equal(await stop(first.child), 0);

    // The second run keeps metrics, on a port of their own (docs/design.md §10).
    const metricsPort = await freePort();
    const second = await start({ ...env, METRICS_PORT: String(metricsPort) });
    try {
      const listed = await (
        await fetch(`${second.base}/api/restricted/user/form`, { headers: auth })
      ).json();
      assert.deepEqual(
        listed.results.map((f: { id: string }) => f.id),
        [created.id],
      );
      const missing = await fetch(`${second.base}/nothing`);
      assert.equal(missing.status, 404);
      await scrapeMetrics(second.base, metricsPort, created.id);
    } finally {
      await stop(second.child);
    }
  });

  it("makes an admin secret of its own for the admin CLI when none is set", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-server-"));
    dirs.push(dataDir);
    await chmod(dataDir, 0o755); // as an older version, or a hand-made folder, left it
    const server = await start({ DATA_DIR: dataDir, ADMIN_SECRET: "" });
    try {
      const cli = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "examples/standalone/admin-cli.ts",
          "create-account",
          "--email",
          "cli@example.com",
          "--url",
          server.base,
        ],
        {
          cwd: root,
          env: { ...process.env, DATA_DIR: dataDir, ADMIN_SECRET: "" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      cli.stdout.on("data", (chunk) => {
        out += chunk;
      });
      cli.stderr.on("data", (chunk) => {
        out += chunk;
      });
      const code = await new Promise((resolve) => cli.on("exit", resolve));
      assert.equal(code, 0, out);
      assert.equal(JSON.parse(out).email, "cli@example.com");
      // Secrets and personal data are the owner's alone.
      const mode = async (path: string) => (await stat(path)).mode & 0o777;
      assert.equal(await mode(dataDir), 0o700);
      assert.equal(await mode(join(dataDir, "admin-secret")), 0o600);
    } finally {
      await stop(server.child);
    }
  });
});
