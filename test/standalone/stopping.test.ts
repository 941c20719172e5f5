import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import {
  childrenOf,
  commandLine,
  compiledServer,
  freePort,
  listeningOn,
  root,
  runToExit,
  start,
  stop,
} from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

const adminSecret = "test-admin-secret";
/** S2s kept in flight at once while the server is stopped. */
const concurrency = 60;

/** An account and a form with one text field on the server at `base`. */
async function formOn(base: string) {
  const account = await (
    await fetch(`${base}/api/admin/accounts`, {
      method: "POST",
      headers: { AdminSecret: adminSecret, "content-type": "application/json" },
      body: JSON.stringify({ email: "alice@example.com" }),
    })
  ).json();
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const field = { unique_system_name: "name_1", type: "text", label: "Name" };
  const form = await (
    await fetch(`${base}/api/restricted/form`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        form_configuration: { settings: { form_name: "Busy", form_type: "classicsingle" } },
        form_definition: { pages: [{ title: "Page 1", fields: [field] }] },
      }),
    })
  ).json();
  return { auth, formId: form.id as string };
}

type Outcome = { kind: "ok"; id: string } | { kind: "refused"; how: string } | { kind: "other" };

/** Posts one S2 and sorts its outcome: acknowledged, refused, or anything else. */
async function submit(base: string, formId: string, n: number): Promise<Outcome> {
  try {
    const response = await fetch(`${base}/api/form/${formId}/submission`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        form_fields: [{ unique_system_name: "name_1", submitted_value: `S2 ${n}` }],
      }),
    });
    const body = await response.json();
    if (response.status === 200 && body.actionSuccessful === true)
      return { kind: "ok", id: body.id };
    if (response.status === 503 && body.error === "service_unavailable")
      return { kind: "refused", how: "503" };
    return { kind: "other" };
  } catch (error) {
    // The connection was refused, or closed before an answer (the process had exited):
    // whether anything was stored is what the test checks afterwards.
    const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
    return { kind: "refused", how: code };
  }
}

/** Every submission id S5 lists for the form, page by page. */
async function storedIds(base: string, formId: string, auth: Record<string, string>) {
  const ids: string[] = [];
  let token: string | null = null;
  do {
    const query: string = `?batchSize=1000${token ? `&continuationToken=${encodeURIComponent(token)}` : ""}`;
    const response: Response = await fetch(
      `${base}/api/restricted/form/${formId}/submissions${query}`,
      {
        headers: auth,
      },
    );
    assert.equal(response.status, 200);
    const page: { results: { id: string }[]; continuation_token: string | null } =
      await response.json();
    ids.push(...page.results.map((s) => s.id));
    token = page.continuation_token;
  } while (token);
  return ids;
}

function exitOf(child: ChildProcess) {
  return new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
}

/** Whether `port` on 127.0.0.1 can be listened on again. */
async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

describe("stopping the standalone server", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("SIGTERM to npm start finishes the S2s in flight, stores no refused one, and leaves no process", async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-stop-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: adminSecret };
    const npm = spawn("npm", ["start"], {
      cwd: root,
      env: { ...process.env, ...env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const npmExit = exitOf(npm);
    const base = await listeningOn(npm);
    const port = Number(new URL(base).port);
    assert.ok(npm.pid);
    // `exec` in the start script: npm's child is the server itself, not a shell around it.
    const [serverPid, ...others] = await childrenOf(npm.pid);
    assert.deepEqual(others, []);
    assert.ok(serverPid);
    assert.ok((await commandLine(serverPid)).includes(compiledServer));

    const { auth, formId } = await formOn(base);
    const outcomes: Outcome[] = [];
    let started = 0;
    let inFlightAtSignal = 0;
    let signalled = false;
    const client = async () => {
      // Each client posts until the server turns it away.
      for (;;) {
        started += 1;
        const outcome = await submit(base, formId, started);
        outcomes.push(outcome);
        if (!signalled && outcomes.length >= concurrency) {
          signalled = true;
          inFlightAtSignal = started - outcomes.length;
          npm.kill("SIGTERM");
        }
        if (outcome.kind !== "ok") return;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, client));
    const exited = await npmExit;

    assert.deepEqual(exited, { code: 0, signal: null });
    assert.ok(inFlightAtSignal > 0, "S2s were in flight when SIGTERM came");
    assert.deepEqual(
      outcomes.filter((o) => o.kind === "other"),
      [],
      "every S2 was answered 2xx or refused",
    );
    assert.throws(() => process.kill(serverPid, 0), { code: "ESRCH" });
    assert.equal(await portIsFree(port), true);

    const tally: Record<string, number> = {};
    for (const o of outcomes) {
      const key = o.kind === "refused" ? `refused ${o.how}` : o.kind;
      tally[key] = (tally[key] ?? 0) + 1;
    }
    t.diagnostic(`in flight at SIGTERM: ${inFlightAtSignal}; outcomes: ${JSON.stringify(tally)}`);
    const acknowledged = outcomes.flatMap((o) => (o.kind === "ok" ? [o.id] : []));
    const restarted = await start(env);
    try {
      const stored = await storedIds(restarted.base, formId, auth);
      assert.deepEqual(stored.sort(), acknowledged.sort());
    } finally {
      await stop(restarted.child);
    }
  });

  it("reports a port in use in one line and exits non-zero", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-stop-"));
    dirs.push(dataDir);
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
    try {
      const { code, stderr } = await runToExit({
        DATA_DIR: dataDir,
        ADMIN_SECRET: adminSecret,
        PORT: String(port),
      });
      assert.equal(stderr, `PORT ${port} is in use\n`);
      assert.equal(code, 1);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
