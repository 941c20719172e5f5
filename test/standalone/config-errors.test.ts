import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { azureVariables } from "../../examples/azure/config.ts";
import { variables } from "../../examples/standalone/config.ts";
import { root, runToExit } from "./server-process.ts";

/** Each bad value with the one line the server answers it with. */
const bad: [string, string, string][] = [
  ["PORT", "abc", 'PORT must be a whole number from 0 to 65535, not "abc"'],
  [
    "LOG_LEVEL",
    "loud",
    'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"',
  ],
  ["SMTP_URL", "notaurl", 'SMTP_URL must be an SMTP URL (smtp://… or smtps://…), not "notaurl"'],
  [
    "SMTP_URL",
    "https://mail.example.com",
    'SMTP_URL must be an SMTP URL (smtp://… or smtps://…), not "https://mail.example.com"',
  ],
  ["STOP_TIMEOUT_MS", "30s", 'STOP_TIMEOUT_MS must be a whole number of at least 0, not "30s"'],
  ["ALLOW_PRIVATE_WEBHOOKS", "yes", 'ALLOW_PRIVATE_WEBHOOKS must be 0 or 1, not "yes"'],
  ["PUBLIC_URL", "not a url", 'PUBLIC_URL must be a URL, not "not a url"'],
  [
    "STRIPE_SECRET_KEY",
    "sk_test_x",
    "STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together, not STRIPE_SECRET_KEY alone",
  ],
  [
    "STRIPE_WEBHOOK_SECRET",
    "whsec_x",
    "STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together, not STRIPE_WEBHOOK_SECRET alone",
  ],
  [
    "STRIPE_API_URL",
    "api.stripe.com",
    'STRIPE_API_URL must be a URL (https://… or http://…), not "api.stripe.com"',
  ],
];

/** The variable names in the first column of the table under `heading` in `markdown`. */
function tableNames(markdown: string, heading: string): string[] {
  const section = markdown.slice(markdown.indexOf(`\n${heading}\n`) + 1);
  const table = section.slice(section.indexOf("\n|"));
  const rows = table
    .slice(0, table.search(/\n\n|\n[^|]/))
    .split("\n")
    .slice(3);
  return rows.flatMap((row) =>
    [...(row.split("|")[1] ?? "").matchAll(/`([A-Z_]+)`/g)].map((m) => m[1] ?? ""),
  );
}

const standaloneNames = Object.keys(variables).sort();
const azureNames = Object.keys(azureVariables)
  .filter((name) => !(name in variables))
  .sort();

describe("the servers' settings at start", () => {
  it("refuses each bad value in one line, with exit code 2 and no stack", async () => {
    const runs = await Promise.all(
      bad.map(([name, value]) => runToExit({ PORT: "0", DATA_DIR: "/nonexistent", [name]: value })),
    );
    for (const [index, run] of runs.entries()) {
      const [name, , line] = bad[index] ?? [];
      assert.equal(run.code, 2, name);
      assert.equal(run.stderr, `${line}\n`, name);
      assert.equal(run.stdout, "", name);
    }
  });

  it("reports every bad value at once", async () => {
    const run = await runToExit({ PORT: "abc", LOG_LEVEL: "loud", SMTP_URL: "notaurl" });
    assert.equal(run.code, 2);
    assert.deepEqual(run.stderr.trim().split("\n"), [bad[0]?.[2], bad[2]?.[2], bad[1]?.[2]]);
  });

  it("lists in the README every variable the schema reads, and no other", async () => {
    const readme = await readFile(`${root}README.md`, "utf8");
    assert.deepEqual(
      tableNames(readme, "## Configuration of the standalone server").sort(),
      standaloneNames,
    );
    assert.deepEqual(tableNames(readme, "## Deploying on Azure").sort(), azureNames);
  });

  it("lists in docs/design.md §10 every variable the schema reads, and no other", async () => {
    const design = await readFile(`${root}docs/design.md`, "utf8");
    const section = design.slice(design.indexOf("## 10. "), design.indexOf("## 11. "));
    assert.deepEqual(
      tableNames(section, "## 10. The standalone server and its environment").sort(),
      standaloneNames,
    );
    assert.deepEqual(
      tableNames(section, "The Azure server reads these as well, and:").sort(),
      azureNames,
    );
  });
});
