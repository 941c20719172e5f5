/**
 * The layer table (test/architecture/layers.ts, shown in src/README.md) holds for every
 * import in src/ and adapters/; the domain's concept folders stand on floors, with no circle
 * among its files; the domain and the ports import nothing that reaches outside; each adapter
 * imports only the kit, Node's modules and the packages it declares; src/ only hard
 * dependencies. The checkers themselves are shown catching each rule broken in a made-up tree.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  checkFloors,
  fileCircles,
  offFloorFiles,
  twoWayPairs,
} from "./architecture/domain-floors.ts";
import {
  checkImports,
  layerOf,
  readImports,
  readSpecifiers,
  report,
  sourceFiles,
} from "./architecture/imports.ts";
import {
  adapterPackages,
  coreBans,
  domainFloors,
  kitEntries,
  type Layer,
  layers,
} from "./architecture/layers.ts";
import {
  checkAdapterPackages,
  checkBans,
  checkHardDependencies,
  type PackageJson,
  undeclaredInPackageJson,
} from "./architecture/packages.ts";
import { publicSurface } from "./architecture/public-api.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const checkedDirs = ["src", "adapters"];
const packageJson = JSON.parse(
  readFileSync(path.join(root, "package.json"), "utf8"),
) as PackageJson;

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

describe("the floors of the domain", () => {
  const files = sourceFiles(root, ["src/domain"]);
  const edges = readImports(root, files);

  it("holds the order src/README.md shows", (t) => {
    t.diagnostic(`domain floors, bottom → top: ${domainFloors.join(" → ")}`);
    const readme = readFileSync(path.join(root, "src/README.md"), "utf8");
    const shown = [...readme.matchAll(/^\d+\. `([a-z-]+)`/gm)].map((match) => match[1]);
    assert.deepEqual(shown, domainFloors);
  });

  it("places every concept folder on a floor", () => {
    assert.deepEqual(offFloorFiles(files, domainFloors), []);
  });

  it("imports no floor above", () => {
    const violations = checkFloors(edges, domainFloors);
    assert.equal(violations.length, 0, `imports up a floor:\n${report(violations)}`);
  });

  it("has no two folders that import each other", () => {
    const pairs = twoWayPairs(edges).map(([a, b]) => `${a} ⇄ ${b}`);
    assert.deepEqual(pairs, []);
  });

  it("has no circle among its files", () => {
    const circles = fileCircles(edges).map((circle) => circle.join(", "));
    assert.deepEqual(circles, []);
  });
});

describe("the packages each part imports", () => {
  const specifiers = readSpecifiers(root, sourceFiles(root, checkedDirs));

  it("keeps files, sockets, DNS, HTTP, the Azure SDKs and lowdb out of the domain and ports", () => {
    const violations = checkBans(specifiers, coreBans.dirs, coreBans.modules);
    assert.equal(violations.length, 0, report(violations));
  });

  it("lets each adapter import only the kit, node: modules and the packages it declares", () => {
    const adapters = sourceFiles(root, ["adapters"]).map((file) => file.split("/")[1]);
    assert.deepEqual(Object.keys(adapterPackages).sort(), [...new Set(adapters)].sort());
    const violations = checkAdapterPackages(
      specifiers,
      adapterPackages,
      kitEntries,
      packageJson.name,
    );
    assert.equal(violations.length, 0, report(violations));
  });

  it("finds every package an adapter declares in package.json", () => {
    assert.deepEqual(undeclaredInPackageJson(adapterPackages, packageJson), []);
  });

  it("makes each peer dependency optional, and one that an adapter declares", () => {
    const declared = new Set(Object.values(adapterPackages).flat());
    for (const peer of Object.keys(packageJson.peerDependencies ?? {})) {
      assert.ok(declared.has(peer), `${peer} is a peer dependency that no adapter declares`);
      const optional = packageJson.peerDependenciesMeta?.[peer]?.optional;
      assert.equal(optional, true, `${peer} is a peer dependency that is not optional`);
    }
  });

  it("builds src/ from hard dependencies only, so that `formwork` loads without its peers", () => {
    const violations = checkHardDependencies(specifiers, "src", packageJson);
    assert.equal(violations.length, 0, report(violations));
  });
});

const unquote = (cell = "") => cell.replace(/`/g, "");

/** What `read` finds in a made-up project: `files` maps paths to contents. */
function inTree<T>(files: Record<string, string>, read: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), "formwork-layers-"));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    return read(dir);
  } finally {
    rmSync(dir, { recursive: true });
  }
}
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
    const pkg = {
      name: "formwork",
      exports: { "./ports": { "formwork-source": "./src/ports/index.ts" } },
    };
    const edges = inTree({ ...files, "package.json": JSON.stringify(pkg) }, (dir) =>
      readImports(dir, sourceFiles(dir, ["src", "adapters"])),
    );
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

describe("the domain checker", () => {
  const floors = ["records", "forms", "submissions"];
  /** The domain files of a made-up project, and their imports. */
  const domainTree = (files: Record<string, string>) =>
    inTree(files, (dir) => {
      const sources = sourceFiles(dir, ["src/domain"]);
      return { files: sources, edges: readImports(dir, sources) };
    });
  const upright = {
    "src/domain/context.ts": "export interface Context {}\n",
    "src/domain/records/names.ts": 'import type { Context } from "../context.ts";\n',
    "src/domain/forms/forms.ts": 'import { names } from "../records/names.ts";\n',
    "src/domain/submissions/post.ts":
      'import { forms } from "../forms/forms.ts";\nimport type { Context } from "../context.ts";\n',
  };

  it("passes a domain whose every import goes down or stays on its floor", () => {
    const { files, edges } = domainTree(upright);
    assert.equal(edges.length, 4);
    assert.deepEqual(offFloorFiles(files, floors), []);
    assert.deepEqual(checkFloors(edges, floors), []);
    assert.deepEqual(twoWayPairs(edges), []);
    assert.deepEqual(fileCircles(edges), []);
  });

  it("fails an import of a floor above, naming the file, line and folders", () => {
    const { edges } = domainTree({
      ...upright,
      "src/domain/forms/forms.ts":
        'import { names } from "../records/names.ts";\nimport type { Post } from "../submissions/post.ts";\n',
    });
    assert.deepEqual(
      checkFloors(edges, floors).map((v) => [v.edge.from, v.edge.line, v.edge.to, v.problem]),
      [
        [
          "src/domain/forms/forms.ts",
          2,
          "src/domain/submissions/post.ts",
          "src/domain/forms may not import src/domain/submissions, a floor above it",
        ],
      ],
    );
  });

  it("fails a folder on no floor", () => {
    const { files, edges } = domainTree({
      ...upright,
      "src/domain/actions/send.ts": 'import { forms } from "../forms/forms.ts";\n',
    });
    assert.deepEqual(offFloorFiles(files, floors), ["src/domain/actions/send.ts"]);
    assert.deepEqual(
      checkFloors(edges, floors).map((v) => v.problem),
      ["src/domain/actions is on no floor of domainFloors"],
    );
  });

  it("names two folders that import each other", () => {
    const { edges } = domainTree({
      ...upright,
      "src/domain/forms/forms.ts": 'import { names } from "../records/names.ts";\n',
      "src/domain/forms/rendering.ts": 'import { post } from "../submissions/post.ts";\n',
    });
    assert.deepEqual(twoWayPairs(edges), [["src/domain/forms", "src/domain/submissions"]]);
  });

  it("names the files of each circle, type-only imports included", () => {
    const { edges } = domainTree({
      ...upright,
      "src/domain/forms/a.ts": 'import type { B } from "./b.ts";\n',
      "src/domain/forms/b.ts": 'export { c } from "./c.ts";\n',
      "src/domain/forms/c.ts":
        'import { a } from "./a.ts";\nimport { names } from "../records/names.ts";\n',
      "src/domain/forms/d.ts": 'import "./d.ts";\n',
    });
    assert.deepEqual(fileCircles(edges), [
      ["src/domain/forms/a.ts", "src/domain/forms/b.ts", "src/domain/forms/c.ts"],
      ["src/domain/forms/d.ts"],
    ]);
    assert.deepEqual(checkFloors(edges, floors), []);
  });
});

describe("the package checker", () => {
  /** The imports, as written, of a made-up project. */
  const read = (files: Record<string, string>) =>
    inTree(files, (dir) => readSpecifiers(dir, sourceFiles(dir, ["src", "adapters"])));
  const bans = (text: string, file = "src/domain/forms/forms.ts") =>
    checkBans(read({ [file]: text }), coreBans.dirs, coreBans.modules).map((v) => v.problem);
  const banned = (module: string) =>
    `src/domain may not import ${module}: what reaches outside comes through a port`;

  it("passes the domain's use of crypto, buffer and its own packages", () => {
    assert.deepEqual(
      bans('import { randomBytes } from "node:crypto";\nimport * as v from "valibot";\n'),
      [],
    );
  });

  it("fails node:fs in the domain, prefixed or not, promises or not", () => {
    const text =
      'import { readFile } from "node:fs/promises";\nimport fs from "fs";\nimport("fs/promises");\n';
    assert.deepEqual(bans(text), [banned("node:fs"), banned("node:fs"), banned("node:fs")]);
  });

  it("fails node:net and node:dns in the domain", () => {
    const text = 'import { isIP } from "node:net";\nimport { lookup } from "dns/promises";\n';
    assert.deepEqual(bans(text), [banned("node:net"), banned("node:dns")]);
  });

  it("fails node:http and its kin in the domain", () => {
    const text = 'import http from "node:http";\nimport { request } from "https";\n';
    assert.deepEqual(bans(text), [banned("node:http"), banned("node:https")]);
  });

  it("fails the Azure SDKs in the ports", () => {
    assert.deepEqual(
      bans('import { CosmosClient } from "@azure/cosmos";\n', "src/ports/store.ts"),
      ["src/ports may not import @azure/*: what reaches outside comes through a port"],
    );
  });

  it("fails lowdb in the domain, its subpaths too", () => {
    assert.deepEqual(bans('import { JSONFile } from "lowdb/node";\n'), [banned("lowdb")]);
  });

  it("fails an adapter's undeclared package, and passes the kit, node: and what it declares", () => {
    const specifiers = read({
      "adapters/x/store.ts": [
        'import type { Store } from "formwork/ports";',
        'import { copyRecord } from "formwork/ports/kit";',
        'import { readFile } from "node:fs/promises";',
        'import { Low } from "lowdb";',
        'import { JSONFile } from "lowdb/node";',
        'import pRetry from "p-retry";',
        "",
      ].join("\n"),
      "adapters/y/store.ts": 'import { lock } from "proper-lockfile";\n',
    });
    const violations = checkAdapterPackages(specifiers, { x: ["lowdb"] }, kitEntries, "formwork");
    assert.deepEqual(
      violations.map((v) => [v.edge.from, v.edge.line, v.problem]),
      [
        ["adapters/x/store.ts", 6, "adapter x imports p-retry, which it does not declare"],
        ["adapters/y/store.ts", 1, "adapter y declares no packages in adapterPackages"],
      ],
    );
  });

  it("fails a declared package that package.json does not list", () => {
    const pkg = { name: "formwork", peerDependencies: { lowdb: "^7" } };
    assert.deepEqual(undeclaredInPackageJson({ x: ["lowdb", "left-pad"] }, pkg), [
      "adapter x declares left-pad, which package.json does not list",
    ]);
  });

  it("fails a package outside the hard dependencies in src/", () => {
    const specifiers = read({
      "src/mail/smtp.ts": 'import nodemailer from "nodemailer";\nimport * as v from "valibot";\n',
      "adapters/smtp/smtp.ts": 'import nodemailer from "nodemailer";\n',
    });
    const pkg = {
      name: "formwork",
      dependencies: { valibot: "^1" },
      peerDependencies: { nodemailer: "^8" },
    };
    assert.deepEqual(
      checkHardDependencies(specifiers, "src", pkg).map((v) => v.problem),
      ["src may import only dependencies, and nodemailer is not one"],
    );
  });
});

describe("the public API, one entry per audience", () => {
  const entries = {
    /** Embedders: create and configure the service. */
    "src/index.ts": [
      "AccountSummary",
      "AdminApi",
      "CloseOptions",
      "CloseReport",
      "CollectionCount",
      "ConflictError",
      "ConnectionInfo",
      "CopyProgress",
      "CopyReport",
      "CopyStoreOptions",
      "CustomerQuotas",
      "ErrorCode",
      "FileCounts",
      "FormService",
      "FormServiceOptions",
      "HttpWebhookSenderOptions",
      "IssuedPartner",
      "IssuedToken",
      "Limits",
      "MetricsText",
      "NotFoundError",
      "PartnerOptions",
      "QuotaName",
      "RateLimitOptions",
      "Readiness",
      "ServiceError",
      "TokenSummary",
      "ValidationError",
      "ValidationIssue",
      "copyStore",
      "createFormService",
      "createHttpWebhookSender",
      "defaultCustomerQuotas",
      "defaultLimits",
      "errorStatus",
      "quotaNames",
    ],
    /** Adapter authors: the ports and their errors. */
    "src/ports/index.ts": [
      "AttemptOutcome",
      "BatchOp",
      "BlobInfo",
      "BlobStore",
      "Checkout",
      "CheckoutRequest",
      "CheckoutState",
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
      "PaymentEvent",
      "PaymentEventRejectedError",
      "PaymentRefusedError",
      "PaymentStatus",
      "Payments",
      "Query",
      "RetryPolicy",
      "Scalar",
      "ScanOptions",
      "ScanPage",
      "ScannedRecord",
      "Store",
      "StoreConflictError",
      "StoreContinuationError",
      "StoreRecord",
      "StoreStats",
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
      "PartitionPlace",
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
      "defaultScanLimit",
      "downloadHeaders",
      "etagSource",
      "evaluateQuery",
      "httpStatusOf",
      "isNetworkFailure",
      "isNotFound",
      "isServiceQuery",
      "leadingId",
      "orderFieldsOf",
      "patchApplies",
      "queryAll",
      "retryOnConflict",
      "safeFilename",
      "scanAll",
      "scanPartitions",
      "serviceQueries",
      "updateRecord",
    ],
    /** Adapter authors' tests: the conformance suites. */
    "src/testing/index.ts": [
      "BlobStoreConformanceOptions",
      "ConformanceCase",
      "PaymentEventKind",
      "PaymentsConformanceOptions",
      "Signing",
      "StoreConformanceOptions",
      "blobStoreConformanceCases",
      "paymentsConformanceCases",
      "storeConformanceCases",
    ],
    /** node:test users: the suites registered with node:test. */
    "src/testing/node-test.ts": [
      "runBlobStoreConformance",
      "runPaymentsConformance",
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
