/**
 * Adding a settings section touches its module and the registry, nothing else: no source
 * file outside src/domain/settings/sections/ names a section, and a copy of the project
 * given only a made-up section's module and its registry line serves that section through
 * the OpenAPI document, F2, F5, the engine and the hosted page (made-up-section.ts).
 */
import assert from "node:assert/strict";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { settingsSections } from "../../src/domain/settings/index.ts";
import { runCommand } from "../run-command.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const sectionsDir = "src/domain/settings/sections/";

/** `text` without its comments: a comment may name a section, code may not. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
}

describe("settings sections", () => {
  it("are named only in their modules under src/domain/settings/sections/", () => {
    const names = settingsSections.map((section) => section.name);
    const named = new RegExp(`\\b(${names.join("|")})\\b`, "g");
    const found: Record<string, string[]> = {};
    const files = readdirSync(path.join(root, "src"), { recursive: true, encoding: "utf8" });
    for (const file of files.map((name) => `src/${name}`).filter((f) => f.endsWith(".ts"))) {
      if (file.startsWith(sectionsDir)) continue;
      const hits = new Set(code(readFileSync(path.join(root, file), "utf8")).match(named));
      if (hits.size) found[file] = [...hits].sort();
    }
    assert.deepEqual(found, {});
  });

  it("take a new one from its module and one registry line", { timeout: 120_000 }, async () => {
    const copy = mkdtempSync(path.join(tmpdir(), "formwork-section-"));
    try {
      for (const part of ["src", "adapters", "test", "package.json", "tsconfig.json"]) {
        cpSync(path.join(root, part), path.join(copy, part), { recursive: true });
      }
      symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"), "dir");
      const sections = path.join(copy, sectionsDir);
      writeFileSync(path.join(sections, "hidden-fields.ts"), madeUpModule);
      const registry = path.join(sections, "registry.ts");
      const before = readFileSync(registry, "utf8");
      const after = before
        .replace(
          /^import type \{ SettingsSection \}/m,
          'import { hiddenFieldSettings } from "./hidden-fields.ts";\n$&',
        )
        .replace(/\n\];/, "\n  hiddenFieldSettings,\n];");
      assert.equal(after.split("\n").length, before.split("\n").length + 2);
      writeFileSync(registry, after);
      const run = await runCommand(
        process.execPath,
        ["--conditions=formwork-source", "--import", "tsx", "test/engine/made-up-section.ts"],
        { cwd: copy, env: process.env },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /all take it/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

/** A made-up engine section: the fields it names are always hidden, so never stored. */
const madeUpModule = `import * as v from "valibot";
import { compileExpression } from "../../../rules/json-logic.ts";
import { definitionChecks } from "./definition-checks.ts";
import { fieldName, lenient } from "./schema-parts.ts";
import type { SettingsSection } from "./section.ts";

const schema = v.looseObject({ fields: v.optional(v.array(fieldName), []) });

export const hiddenFieldSettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "hiddenfieldsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    for (const [f, name] of value.fields.entries()) check.field(name, \`fields.\${f}\`);
    return check.issues;
  },
  compile(stored, fields) {
    const names = (lenient(schema, stored)?.fields ?? []).filter((name) => fields.has(name));
    const never = compileExpression(false);
    return names.length ? { conditions: [{ fields: names, action: "show", when: never }] } : {};
  },
  rendered: { position: 7, value: ({ stored }) => stored },
  live: {
    feeds: "conditions",
    items: (rendered) => {
      const names = (rendered as { fields?: string[] } | undefined)?.fields ?? [];
      return names.length ? [{ fields: names, action: "show", when: false }] : [];
    },
  },
};
`;
