import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService } from "../src/index.ts";
import {
  type LogFields,
  type Logger,
  type Store,
  StoreUnavailableError,
} from "../src/ports/index.ts";
import { conformingFetch, request, setup } from "./helpers.ts";
import { download, submit, upload, withFiles } from "./submissions/setup.ts";

/** One line a logger received. */
interface Line {
  level: "error" | "warn" | "info" | "debug";
  fields: LogFields;
  message: string | undefined;
}

/** A logger that keeps every line, as pino would write it. */
function capturingLogger() {
  const lines: Line[] = [];
  const at =
    (level: Line["level"]) =>
    (fields: LogFields, message?: string): void => {
      lines.push({ level, fields, message });
    };
  const logger: Logger = {
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
  };
  return { logger, lines, text: () => JSON.stringify(lines) };
}

/**
 * F4 (`GET /api/restricted/user/form`, request id `requestId`) on a service whose store throws
 * `error` from every query: the answer, the log lines and what reached `onError`.
 */
async function listFormsWhileQueriesThrow(error: Error, requestId: string) {
  const { logger, lines } = capturingLogger();
  const store = createMemoryStore();
  const failing: Store = {
    ...store,
    query: async () => {
      throw error;
    },
  };
  const reported: unknown[] = [];
  const service = createFormService({
    store: failing,
    webhookPollMs: 0,
    logger,
    onError: (unexpected) => reported.push(unexpected),
  });
  const alice = await service.admin.createAccount({ email: "alice@example.com" });
  const answer = await request(service, "GET", "/api/restricted/user/form", {
    as: alice,
    headers: { "X-Request-Id": requestId },
  });
  return { answer, lines, reported };
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request logs", () => {
  it("writes one line per request: method, route pattern, status, ms, request id; no secret", async () => {
    const { logger, lines, text } = capturingLogger();
    const env = await withFiles({ logger, adminSecret: "admin-secret-value" });
    lines.length = 0;
    const secretBody = "body-marker-that-must-not-be-logged";

    const posted = await submit(env, { name_1: "Ann", about_2: secretBody });
    assert.equal(posted.status, 200);
    const listed = await env.call("GET", "/api/restricted/user/form", { as: env.alice });
    assert.equal(listed.status, 200);
    const attachment = (await upload(env, { bytes: secretBody })).body.id as string;
    const link = await env.call(
      "GET",
      `/api/restricted/form/${env.formId}/submissionattachment/${attachment}`,
      { as: env.alice },
    );
    assert.match(link.body.id, /[?&]sig=/);
    assert.equal((await download(env, link.body.id)).status, 200);
    const missing = await env.call("GET", `/nothing/${env.formId}?sig=abc`);
    assert.equal(missing.status, 404);
    const admin = await env.call("POST", "/api/admin/accounts", {
      headers: { AdminSecret: "admin-secret-value" },
      body: { email: "bob@example.com" },
    });
    assert.equal(admin.status, 200);

    assert.deepEqual(
      lines.map(({ level, fields, message }) => [
        level,
        message,
        fields.method,
        fields.route,
        fields.status,
      ]),
      [
        ["info", "request", "POST", "/api/form/:formId/submission", 200],
        ["info", "request", "GET", "/api/restricted/user/form", 200],
        ["info", "request", "POST", "/api/form/:formId/submissionattachment", 200],
        [
          "info",
          "request",
          "GET",
          "/api/restricted/form/:formId/submissionattachment/:attachmentId",
          200,
        ],
        ["info", "request", "GET", "{storage_url}/:container/:name", 200],
        ["info", "request", "GET", "(unknown)", 404],
        ["info", "request", "POST", "/api/admin/accounts", 200],
      ],
    );
    for (const { fields } of lines) {
      assert.deepEqual(Object.keys(fields).sort(), [
        "method",
        "ms",
        "requestId",
        "route",
        "status",
      ]);
      assert.equal(typeof fields.ms, "number");
      assert.ok((fields.ms as number) >= 0);
      assert.match(String(fields.requestId), uuid);
    }
    const logged = text();
    for (const secret of [
      env.alice.token_secret,
      admin.body.token_secret,
      "admin-secret-value",
      secretBody,
      "sig=",
      env.formId,
      attachment,
    ]) {
      assert.ok(!logged.includes(secret), `the log holds ${secret}`);
    }
  });

  it("logs a credential failure and a 405 under their route pattern", async () => {
    const { logger, lines } = capturingLogger();
    const { call } = await setup({ logger });
    const wrong = { TokenId: "0190a8c4-1b2c-7d3e-8f40-123456789abc", TokenSecret: "wrong" };
    assert.equal((await call("GET", "/api/restricted/user/form", { headers: wrong })).status, 401);
    assert.equal((await call("GET", "/api/restricted/datalist")).status, 405);
    assert.deepEqual(
      lines.map(({ fields }) => [fields.route, fields.status]),
      [
        ["/api/restricted/user/form", 401],
        ["/api/restricted/datalist", 405],
      ],
    );
  });

  it("keeps a plain incoming X-Request-Id, replaces any other, and echoes it", async () => {
    const { logger, lines } = capturingLogger();
    const { service } = await setup({ logger });
    const cases: [given: string | undefined, kept: boolean][] = [
      ["abc-123_x.y:z", true],
      ["a".repeat(128), true],
      ["a".repeat(129), false],
      ["has space", false],
      ["a/b?sig=x", false],
      ["<script>", false],
      ["", false],
      [undefined, false],
    ];
    // A JSON answer built by the router (with its id from the start) and an error answer.
    for (const [path, status] of [
      ["/openapi.json", 200],
      ["/api/no-such-endpoint", 404],
    ] as const) {
      for (const [given, kept] of cases) {
        const headers: Record<string, string> =
          given === undefined ? {} : { "X-Request-Id": given };
        const answer = await request(service, "GET", path, { headers });
        assert.equal(answer.status, status);
        const id = answer.headers.get("x-request-id") ?? "";
        if (kept && given) assert.equal(id, given);
        else assert.match(id, uuid, String(given));
        assert.equal(lines.at(-1)?.fields.requestId, id);
      }
    }
  });

  it("sends unexpected errors to logger.error with the request id and to onError", async () => {
    const { answer, lines, reported } = await listFormsWhileQueriesThrow(
      new Error("disk on fire", { cause: Object.assign(new Error("EIO"), { code: "EIO" }) }),
      "req-1",
    );
    assert.equal(answer.status, 500);
    assert.equal(reported.length, 1);
    const [error, line] = lines;
    assert.equal(error?.level, "error");
    assert.equal(error?.fields.requestId, "req-1");
    const err = error?.fields.err as Record<string, unknown>;
    assert.equal(err.message, "disk on fire");
    assert.match(String(err.stack), /disk on fire\n\s+at /);
    assert.deepEqual(Object.keys(err.cause as object).sort(), ["code", "message", "stack", "type"]);
    assert.deepEqual([line?.level, line?.fields.status], ["info", 500]);
    assert.ok(!JSON.stringify(answer.body).includes("disk"));
  });

  it("says at warn why storage answered 503, naming what the store named, and not to onError", async () => {
    const { answer, lines, reported } = await listFormsWhileQueriesThrow(
      new StoreUnavailableError("lowdb store: /data/records/forms/x/0.json fails its checksum"),
      "req-2",
    );
    assert.equal(answer.status, 503);
    assert.equal(answer.body.error, "service_unavailable");
    assert.deepEqual(reported, []);
    const [warning] = lines;
    assert.equal(warning?.level, "warn");
    assert.equal(warning?.message, "storage unavailable");
    assert.equal(warning?.fields.requestId, "req-2");
    const err = warning?.fields.err as Record<string, unknown>;
    assert.match(String(err.message), /0\.json fails its checksum/);
    assert.equal(err.stack, undefined);
    // The client learns nothing of the file.
    assert.ok(!JSON.stringify(answer.body).includes("0.json"));
  });

  it("logs a request body cut short at debug, without a stack, and answers 400", async () => {
    const { logger, lines } = capturingLogger();
    const env = await withFiles({ logger });
    lines.length = 0;
    for (const [path, type] of [
      [`/api/form/${env.formId}/submission`, "application/json"],
      [`/api/form/${env.formId}/submissionattachment`, "multipart/form-data; boundary=b"],
    ] as const) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('--b\r\n{"form_fields": ['));
          setTimeout(() => controller.error(new Error("aborted")), 5);
        },
      });
      const response = await conformingFetch(env.service)(
        new Request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": type },
          body,
          duplex: "half",
        } as RequestInit),
      );
      assert.equal(response.status, 400);
      assert.equal((await response.json()).message, "The request body was cut short");
    }
    assert.deepEqual(
      lines.map(({ level, message, fields }) => [level, message, fields.route]),
      [
        ["debug", "request body cut short by the client", "/api/form/:formId/submission"],
        ["info", "request", "/api/form/:formId/submission"],
        ["debug", "request body cut short by the client", "/api/form/:formId/submissionattachment"],
        ["info", "request", "/api/form/:formId/submissionattachment"],
      ],
    );
    assert.ok(!JSON.stringify(lines).includes(" at "));
  });

  it("writes no request line without a logger, and keeps onError", async () => {
    const reported: unknown[] = [];
    const { call } = await setup({ onError: (error) => reported.push(error) });
    assert.equal((await call("GET", "/nothing")).status, 404);
    assert.deepEqual(reported, []);
  });
});
