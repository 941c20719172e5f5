/**
 * The layer table: which part of the source may import which. `src/README.md` shows the same
 * table (architecture.test.ts checks that they agree), and every import in src/ and adapters/
 * must be an edge it allows. A file belongs to the first layer whose pattern matches its path
 * from the project root; a layer may always import itself.
 */
export interface Layer {
  name: string;
  /** Path patterns of the layer's files, as shown in the README. */
  files: string[];
  /** The other layers it may import. */
  mayImport: string[];
}

export const layers: Layer[] = [
  { name: "kernel", files: ["src/kernel/*"], mayImport: [] },
  { name: "rules", files: ["src/rules/*"], mayImport: [] },
  { name: "contracts", files: ["src/ports/index.ts"], mayImport: ["ports"] },
  { name: "kit", files: ["src/ports/kit.ts"], mayImport: ["ports"] },
  { name: "ports", files: ["src/ports/*"], mayImport: [] },
  {
    name: "domain-api",
    files: ["src/domain/*/index.ts", "src/domain/context.ts", "src/domain/device.ts"],
    mayImport: ["domain", "kernel", "ports"],
  },
  {
    name: "domain",
    files: ["src/domain/**"],
    mayImport: ["domain-api", "rules", "kernel", "ports"],
  },
  { name: "auth", files: ["src/auth/*"], mayImport: ["domain-api", "kernel", "ports"] },
  { name: "schemas", files: ["src/schemas/*"], mayImport: ["domain-api", "kernel"] },
  { name: "http", files: ["src/http/*"], mayImport: ["kernel", "ports"] },
  { name: "webhooks", files: ["src/webhooks/*"], mayImport: ["kernel", "ports"] },
  { name: "traces", files: ["src/traces/*"], mayImport: ["kernel", "ports"] },
  { name: "metrics", files: ["src/metrics/*"], mayImport: ["kernel", "ports"] },
  {
    name: "hosted-page",
    files: ["src/hosted-page/**"],
    mayImport: ["domain-api", "rules", "kernel"],
  },
  { name: "openapi", files: ["src/openapi/*"], mayImport: ["schemas", "domain-api", "kernel"] },
  {
    name: "admin",
    files: ["src/admin.ts"],
    mayImport: ["domain-api", "schemas", "kernel", "ports"],
  },
  { name: "copy", files: ["src/copy/*"], mayImport: ["domain-api", "ports"] },
  {
    name: "routes",
    files: ["src/routes/*"],
    mayImport: [
      "admin",
      "auth",
      "http",
      "schemas",
      "openapi",
      "hosted-page",
      "domain-api",
      "kernel",
      "ports",
    ],
  },
  {
    name: "service",
    files: [
      "src/service.ts",
      "src/service-options.ts",
      "src/request-server.ts",
      "src/probes.ts",
      "src/instrumented-ports.ts",
      "src/index.ts",
    ],
    mayImport: [
      "routes",
      "admin",
      "copy",
      "auth",
      "http",
      "webhooks",
      "traces",
      "metrics",
      "domain-api",
      "kernel",
      "contracts",
      "kit",
      "ports",
    ],
  },
  { name: "testing", files: ["src/testing/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter memory", files: ["adapters/memory/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter lowdb", files: ["adapters/lowdb/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter fs", files: ["adapters/fs/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter cosmos", files: ["adapters/cosmos/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter azure-blob", files: ["adapters/azure-blob/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter smtp", files: ["adapters/smtp/*"], mayImport: ["contracts", "kit"] },
  { name: "adapter stripe", files: ["adapters/stripe/*"], mayImport: ["contracts", "kit"] },
];

/**
 * The concept folders of `src/domain`, bottom → top. A domain file imports files of its own
 * folder and of the floors below it, never above; files directly in `src/domain`
 * (`context.ts`, `device.ts`) stand on the bottom floor with `records`. `src/README.md` shows
 * the same list.
 */
export const domainFloors = [
  "records",
  "audit",
  "accounts",
  "quotas",
  "datalists",
  "forms",
  "settings",
  "attachments",
  "submissions",
  "webhooks",
  "flows",
];

/**
 * What the domain, the ports and the rules never import: files, sockets, DNS, HTTP, the Azure SDKs and
 * lowdb all come in through a port on the context. `node:fs` bans `fs` and `fs/promises` too;
 * `@azure/*` bans the scope.
 */
export const coreBans = {
  dirs: ["src/domain", "src/ports", "src/rules"],
  modules: [
    "node:fs",
    "node:net",
    "node:dns",
    "node:http",
    "node:https",
    "node:http2",
    "@azure/*",
    "lowdb",
  ],
};

/** What every adapter may import besides Node's modules and the packages it declares. */
export const kitEntries = ["formwork/ports", "formwork/ports/kit"];

/**
 * The packages each adapter (`adapters/<name>/`) declares: besides them it imports only the
 * kit and `node:` modules. Each is a dependency or a peer dependency in package.json (an
 * optional peer when only that adapter needs it).
 */
export const adapterPackages: Record<string, string[]> = {
  memory: [],
  lowdb: ["lowdb", "proper-lockfile", "steno"],
  fs: [],
  cosmos: ["@azure/cosmos"],
  "azure-blob": ["@azure/storage-blob"],
  smtp: ["nodemailer"],
  stripe: ["stripe"],
};
