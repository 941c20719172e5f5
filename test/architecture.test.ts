/**
 * The layer table (test/architecture/layers.ts, shown in src/README.md) holds for every
 * import in src/ and adapters/, and the checker itself catches an edge outside it.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { checkImports, layerOf, readImports, report, sourceFiles } from "./architecture/imports.ts";
import { type Layer, layers } from "./architecture/layers.ts";
import { publicSurface } from "./architecture/public-api.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const checkedDirs = ["src", "adapters"];

describe("the layer table", () => {
  it("allows every import in src/ and adapters/", () => {
    const edges = readImports(root, sourceFiles(root, checkedDirs));
    assert.ok(edges.length > 300, `only ${edges.length} imports read: is the reader broken?`);
    const violations = checkImports(edges, layers);
    assert.equal(violations.length, 0, `imports outside the table:\n${report(violations)}`);
  });

  it("places every source file in a layer", () => {
    const stray = sourceFiles(root, checkedDirs).filter((file) => !layerOf(file, layers));
    assert.deepEqual(stray, []);
  });

  it("is the table src/README.md shows", () => {
    const readme = readFileSync(path.join(root, "src/README.md"), "utf8");
    const rows = readme
      .split("\n")
      .filter((line) => /^\| `?[a-z]/.test(line))
      .map((line) =>
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim()),
      )
      .filter(([name]) => name !== "layer");
    const shown = rows.map(([name, files, mayImport]) => ({
      name: unquote(name),
      files: list(files),
      mayImport: mayImport === "—" ? [] : list(mayImport),
    }));
    assert.deepEqual(shown, layers);
  });
});

const unquote = (cell = "") => cell.replace(/`/g, "");
const list = (cell = "") => cell.split(",").map((item) => unquote(item).trim());

describe("the import checker", () => {
  const table: Layer[] = [
    { name: "kit", files: ["src/ports/index.ts"], mayImport: ["ports"] },
    { name: "ports", files: ["src/ports/*"], mayImport: [] },
    { name: "domain", files: ["src/domain/**"], mayImport: ["ports"] },
    { name: "routes", files: ["src/routes/*"], mayImport: ["domain"] },
    { name: "adapter", files: ["adapters/x/*"], mayImport: ["kit"] },
  ];

  /** A made-up project: `files` maps paths to contents. */
  function tree(files: Record<string, string>) {
    const dir = mkdtempSync(path.join(tmpdir(), "formwork-layers-"));
    const pkg = {
      name: "formwork",
      exports: { "./ports": { "formwork-source": "./src/ports/index.ts" } },
    };
    writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const edges = readImports(dir, sourceFiles(dir, ["src", "adapters"]));
    rmSync(dir, { recursive: true });
    return { edges, violations: checkImports(edges, table) };
  }

  const allowed = {
    "src/ports/store.ts": "export interface Store {}\n",
    "src/ports/index.ts": 'export type { Store } from "./store.ts";\n',
    "src/domain/forms/forms.ts": 'import type { Store } from "../../ports/store.ts";\n',
    "src/routes/forms.ts": 'import { x } from "../domain/forms/forms.ts";\n',
    "adapters/x/store.ts": 'import type { Store } from "formwork/ports";\n',
  };

  it("passes a tree whose every import is in the table", () => {
    const { edges, violations } = tree(allowed);
    assert.equal(edges.length, 4);
    assert.deepEqual(violations, []);
  });

  it("fails an edge added outside the table, naming the file, line and layers", () => {
    const { violations } = tree({
      ...allowed,
      "src/domain/forms/forms.ts":
        'import type { Store } from "../../ports/store.ts";\nimport { r } from "../../routes/forms.ts";\n',
    });
    assert.deepEqual(
      violations.map((v) => [v.edge.from, v.edge.line, v.edge.to, v.problem]),
      [["src/domain/forms/forms.ts", 2, "src/routes/forms.ts", "domain may not import routes"]],
    );
  });

  it("fails an adapter that reaches past the kit, by path or dynamic import", () => {
    const { violations } = tree({
      ...allowed,
      "adapters/x/store.ts":
        'import type { Store } from "../../src/ports/store.ts";\nconst m = () => import("../../src/domain/forms/forms.ts");\n',
    });
    assert.deepEqual(
      violations.map((v) => v.problem),
      ["adapter may not import ports", "adapter may not import domain"],
    );
  });

  it("fails an import of a file in no layer", () => {
    const { violations } = tree({ ...allowed, "src/routes/forms.ts": 'import "../stray/x.ts";\n' });
    assert.deepEqual(
      violations.map((v) => v.problem),
      ["src/stray/x.ts is in no layer of the table"],
    );
  });
});

describe("the public API, one entry per audience", () => {
  const entries = {
    /** Embedders: create and configure the service. */
    "src/index.ts": [
      "AccountSummary",
      "AdminApi",
      "ConflictError",
      "ConnectionInfo",
      "CustomerQuotas",
      "ErrorCode",
      "FormService",
      "FormServiceOptions",
      "HttpWebhookSenderOptions",
      "IssuedPartner",
      "IssuedToken",
      "Limits",
      "NotFoundError",
      "PartnerOptions",
      "QuotaName",
      "RateLimitOptions",
      "ServiceError",
      "SmtpMailerOptions",
      "TokenSummary",
      "ValidationError",
      "ValidationIssue",
      "createFormService",
      "createHttpWebhookSender",
      "createSmtpMailer",
      "defaultCustomerQuotas",
      "defaultLimits",
      "errorStatus",
      "nodemailerMessage",
      "quotaNames",
    ],
    /** Adapter authors: the ports and their errors. */
    "src/ports/index.ts": [
      "AttemptOutcome",
      "BatchOp",
      "BlobInfo",
      "BlobStore",
      "Condition",
      "DeliveryControl",
      "DeliveryResult",
      "Destinations",
      "DownloadRefusal",
      "DownloadRefusedError",
      "LogFields",
      "Logger",
      "MailMessage",
      "MailRejectedError",
      "Mailer",
      "Page",
      "PatchOp",
      "Query",
      "RetryPolicy",
      "Scalar",
      "Store",
      "StoreConflictError",
      "StoreContinuationError",
      "StoreRecord",
      "StoreUnavailableError",
      "Stored",
      "WebhookMessage",
      "WebhookSender",
      "WriteOptions",
    ],
    /** Adapter authors: the helpers adapters share. */
    "src/ports/kit.ts": [
      "ConditionOp",
      "ConflictRetryOptions",
      "QueryShape",
      "RecordChange",
      "UpdateRecordOptions",
      "batchOpId",
      "batchOpRecord",
      "checkBatch",
      "checkBatchOp",
      "compareValues",
      "conditionFieldsOf",
      "conflictRetryDefaults",
      "copyRecord",
      "decodeCursor",
      "downloadHeaders",
      "etagSource",
      "evaluateQuery",
      "httpStatusOf",
      "isNetworkFailure",
      "isNotFound",
      "isServiceQuery",
      "orderFieldsOf",
      "patchApplies",
      "queryAll",
      "retryOnConflict",
      "safeFilename",
      "serviceQueries",
      "updateRecord",
    ],
    /** Adapter authors' tests: the conformance suites. */
    "src/testing/index.ts": [
      "BlobStoreConformanceOptions",
      "ConformanceCase",
      "StoreConformanceOptions",
      "blobStoreConformanceCases",
      "storeConformanceCases",
    ],
    /** node:test users: the suites registered with node:test. */
    "src/testing/node-test.ts": [
      "runBlobStoreConformance",
      "runStoreConformance",
      "runWithNodeTest",
    ],
  };
  const surface = publicSurface(root, Object.keys(entries));

  it("exports exactly the listed names from each entry (a change here is an API change)", () => {
    assert.deepEqual(Object.fromEntries(surface.exported), entries);
  });

  it("exports every type and value that a public signature names", () => {
    const missing = surface.unexported.map((m) => `${m.name} (${m.file}), named by ${m.by}`);
    assert.deepEqual([...new Set(missing)], []);
  });
});
