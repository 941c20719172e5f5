import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readConfig } from "../../examples/standalone/config.ts";
import { limitHeapGrowth } from "../../examples/standalone/heap-growth.ts";
import { optionsFrom } from "../../examples/standalone/serve.ts";

describe("standalone server configuration", () => {
  it("has the defaults of the design", () => {
    const config = readConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.publicUrl, "http://localhost:3000");
    assert.match(config.dataDir, /data$/);
    assert.equal(config.adminSecret, undefined);
    assert.equal(config.maxUploadBytes, 25 * 1024 * 1024);
    assert.equal(config.allowPrivateWebhooks, false);
    assert.equal(config.webhookRetryBaseMs, 1000);
    assert.equal(config.webhookMaxAttempts, 8);
    assert.equal(config.webhookLeaseMs, 30_000);
    assert.equal(config.rateLimitPublicPerMinute, 300);
    assert.equal(config.rateLimitCredentialPerMinute, 3000);
    assert.equal(config.headersTimeoutMs, 20_000);
    assert.equal(config.requestTimeoutMs, 120_000);
    assert.equal(config.maxUnclaimedUploadBytes, 100 * 1024 * 1024);
    assert.equal(config.sweepIntervalMs, 600_000);
    assert.equal(config.auditRetentionDays, 400);
    assert.equal(config.heapGrowingPercent, 50);
  });

  it("sets V8's heap growth from HEAP_GROWING_PERCENT, and nothing for 0", () => {
    const set: string[] = [];
    limitHeapGrowth(readConfig({}).heapGrowingPercent, (flags) => set.push(flags));
    limitHeapGrowth(readConfig({ HEAP_GROWING_PERCENT: "120" }).heapGrowingPercent, (flags) =>
      set.push(flags),
    );
    limitHeapGrowth(readConfig({ HEAP_GROWING_PERCENT: "0" }).heapGrowingPercent, (flags) =>
      set.push(flags),
    );
    assert.deepEqual(set, ["--heap-growing-percent=50", "--heap-growing-percent=120"]);
    assert.throws(() => readConfig({ HEAP_GROWING_PERCENT: "301" }), /HEAP_GROWING_PERCENT/);
  });

  it("reads the sweep's interval, 0 turning it off", () => {
    assert.equal(readConfig({ SWEEP_INTERVAL_MS: "0" }).sweepIntervalMs, 0);
    assert.equal(optionsFrom(readConfig({ SWEEP_INTERVAL_MS: "60000" })).sweepIntervalMs, 60_000);
    assert.throws(() => readConfig({ SWEEP_INTERVAL_MS: "-1" }), /SWEEP_INTERVAL_MS/);
  });

  it("reads how long audit entries are kept, refusing nonsense", () => {
    const config = readConfig({ AUDIT_RETENTION_DAYS: "30" });
    assert.equal(config.auditRetentionDays, 30);
    assert.equal(optionsFrom(config).limits.auditRetentionDays, 30);
    assert.throws(() => readConfig({ AUDIT_RETENTION_DAYS: "0" }), /AUDIT_RETENTION_DAYS/);
    assert.throws(() => readConfig({ AUDIT_RETENTION_DAYS: "1.5" }), /AUDIT_RETENTION_DAYS/);
  });

  it("reads the client timeouts and the unclaimed-upload cap, refusing nonsense", () => {
    const config = readConfig({
      HEADERS_TIMEOUT_MS: "1000",
      REQUEST_TIMEOUT_MS: "5000",
      MAX_UNCLAIMED_UPLOAD_BYTES: "2048",
      MAX_UPLOAD_BYTES: "1024",
    });
    assert.equal(config.headersTimeoutMs, 1000);
    assert.equal(config.requestTimeoutMs, 5000);
    assert.equal(config.maxUnclaimedUploadBytes, 2048);
    assert.throws(() => readConfig({ REQUEST_TIMEOUT_MS: "0" }), /REQUEST_TIMEOUT_MS/);
    assert.throws(() => readConfig({ HEADERS_TIMEOUT_MS: "200000" }), /must not exceed/);
    assert.throws(() => readConfig({ MAX_UNCLAIMED_UPLOAD_BYTES: "-1" }), /MAX_UNCLAIMED/);
  });

  it("keeps the unclaimed-upload cap at least the largest upload", () => {
    assert.equal(readConfig({}).maxUnclaimedUploadBytes, 100 * 1024 * 1024);
    const big = readConfig({ MAX_UPLOAD_BYTES: String(200 * 1024 * 1024) });
    assert.equal(big.maxUnclaimedUploadBytes, 200 * 1024 * 1024);
    assert.throws(
      () => readConfig({ MAX_UPLOAD_BYTES: "2000", MAX_UNCLAIMED_UPLOAD_BYTES: "1000" }),
      /MAX_UPLOAD_BYTES \(2000\) must not exceed MAX_UNCLAIMED_UPLOAD_BYTES \(1000\)/,
    );
  });

  it("reads the rate limits, 0 turning one off", () => {
    const config = readConfig({
      RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
      RATE_LIMIT_CREDENTIAL_PER_MINUTE: "60",
    });
    assert.equal(config.rateLimitPublicPerMinute, 0);
    assert.equal(config.rateLimitCredentialPerMinute, 60);
    assert.throws(() => readConfig({ RATE_LIMIT_PUBLIC_PER_MINUTE: "-5" }), /RATE_LIMIT_PUBLIC/);
    assert.throws(() => readConfig({ RATE_LIMIT_CREDENTIAL_PER_MINUTE: "x" }), /RATE_LIMIT_CRED/);
  });

  it("reads the environment and refuses nonsense with the variable's name", () => {
    const config = readConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      PUBLIC_URL: "https://forms.example.com/",
      ADMIN_SECRET: "s",
    });
    assert.equal(config.publicUrl, "https://forms.example.com");
    assert.equal(config.adminSecret, "s");
    assert.throws(() => readConfig({ PORT: "eighty" }), /PORT/);
    assert.throws(() => readConfig({ PORT: "70000" }), /PORT/);
    assert.throws(() => readConfig({ PUBLIC_URL: "not a url" }), /PUBLIC_URL/);
    const hooks = readConfig({
      ALLOW_PRIVATE_WEBHOOKS: "1",
      WEBHOOK_RETRY_BASE_MS: "250",
      WEBHOOK_MAX_ATTEMPTS: "3",
      WEBHOOK_LEASE_MS: "5000",
      MAX_UPLOAD_BYTES: "1000",
    });
    assert.equal(hooks.allowPrivateWebhooks, true);
    assert.equal(hooks.webhookRetryBaseMs, 250);
    assert.equal(hooks.webhookMaxAttempts, 3);
    assert.equal(hooks.webhookLeaseMs, 5000);
    assert.equal(hooks.maxUploadBytes, 1000);
    assert.throws(() => readConfig({ WEBHOOK_MAX_ATTEMPTS: "0" }), /WEBHOOK_MAX_ATTEMPTS/);
    assert.throws(() => readConfig({ WEBHOOK_RETRY_BASE_MS: "soon" }), /WEBHOOK_RETRY_BASE_MS/);
    for (const lease of ["999", "0", "-30000", "2.5e3.1", "1500.5", "30s"]) {
      assert.throws(() => readConfig({ WEBHOOK_LEASE_MS: lease }), {
        message: `WEBHOOK_LEASE_MS must be a whole number of at least 1000, not "${lease}"`,
      });
    }
    assert.throws(() => readConfig({ MAX_UPLOAD_BYTES: "-1" }), /MAX_UPLOAD_BYTES/);
  });

  it("hands WEBHOOK_LEASE_MS to the service, the standalone and the Azure server alike", () => {
    const options = optionsFrom(readConfig({ WEBHOOK_LEASE_MS: "5000", LOG_LEVEL: "silent" }));
    assert.equal(options.webhookLeaseMs, 5000);
  });

  it("reads LOG_LEVEL, info by default, and lists the levels it allows otherwise", () => {
    assert.equal(readConfig({}).logLevel, "info");
    assert.equal(readConfig({ LOG_LEVEL: "debug" }).logLevel, "debug");
    assert.equal(readConfig({ LOG_LEVEL: " WARN " }).logLevel, "warn");
    assert.throws(() => readConfig({ LOG_LEVEL: "verbose" }), {
      message:
        'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "verbose"',
    });
  });
});
