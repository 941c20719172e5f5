/**
 * Vendors the few schemas of Stripe's published OpenAPI description that the tests' local
 * Stripe server answers with (test/payments/stripe-server.ts), as plain JSON Schema for ajv,
 * into test/payments/stripe-schemas.json, recording where they came from.
 *
 *   node --import tsx scripts/extract-stripe-schemas.ts <git dir of stripe/openapi> [commit] [path]
 *
 * `commit` defaults to HEAD and `path` to openapi/spec3.json (`.yaml` is read as YAML). What
 * changes on the way: descriptions, titles, `x-…` extensions and `format`s go; OpenAPI's
 * `nullable` becomes a `null` type; an expandable field keeps only its id form (the server
 * never expands), and the few fields listed in `cut` are refused, so the schemas stay a few
 * dozen rather than the whole API.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { load } from "js-yaml";

/** The schemas the server answers with; what they refer to comes along. */
const roots = ["checkout.session", "error", "event", "payment_intent"];
/**
 * Fields the server never sends, each of which would bring a large part of the API along
 * (a session's line items only come expanded; an error's objects only with card errors; a
 * payment intent's details of methods and next steps only once a respondent is at it):
 * vendored as `false`, so that sending one fails validation.
 */
const cut: Record<string, string[]> = {
  "checkout.session": ["line_items"],
  api_errors: ["payment_intent", "payment_method", "setup_intent", "source"],
  payment_intent: ["amount_details", "next_action", "payment_method_options", "processing"],
};
const output = new URL("../test/payments/stripe-schemas.json", import.meta.url);

type Schema = Record<string, unknown>;
const prefix = "#/components/schemas/";

function main(): void {
  const [gitDir, commit = "HEAD", path = "openapi/spec3.json"] = process.argv.slice(2);
  if (!gitDir) throw new Error("usage: extract-stripe-schemas.ts <git dir> [commit] [path]");
  const git = (...args: string[]) =>
    execFileSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 1 << 30 }).toString();
  const sha = git("rev-parse", `${commit}^{commit}`).trim();
  const text = git("show", `${sha}:${path}`);
  const spec = (path.endsWith(".json") ? JSON.parse(text) : load(text)) as {
    info: { version: string };
    components: { schemas: Record<string, Schema> };
  };
  const all = spec.components.schemas;
  const definitions: Record<string, unknown> = {};
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in definitions) continue;
    const schema = all[name];
    if (!schema) throw new Error(`no schema ${name} in ${path}`);
    const properties = { ...(schema.properties as Schema) };
    for (const field of cut[name] ?? []) properties[field] = false;
    definitions[name] = plain({ ...schema, properties }, (ref) => pending.push(ref));
  }
  const source = {
    repository: "https://github.com/stripe/openapi",
    commit: sha,
    date: git("log", "-1", "--format=%cI", sha).trim(),
    path,
    apiVersion: spec.info.version,
  };
  const sorted = Object.fromEntries(
    Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  writeFileSync(output, `${JSON.stringify({ source, definitions: sorted }, null, 1)}\n`);
  execFileSync("npx", ["biome", "format", "--write", output.pathname], { stdio: "ignore" });
  console.log(
    `${Object.keys(sorted).length} schemas of API ${source.apiVersion} → ${output.pathname}`,
  );
}

/** `node` as plain JSON Schema; `found` hears each schema it refers to. */
function plain(node: unknown, found: (name: string) => void): unknown {
  if (Array.isArray(node)) return node.map((item) => plain(item, found));
  if (typeof node !== "object" || node === null) return node;
  const schema = node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (["description", "title", "format", "nullable"].includes(key) || key.startsWith("x-")) {
      continue;
    }
    if (key === "$ref" && typeof value === "string" && value.startsWith(prefix)) {
      found(value.slice(prefix.length));
      out.$ref = `#/definitions/${value.slice(prefix.length)}`;
    } else if (key === "anyOf" && "x-expansionResources" in schema) {
      out.anyOf = (value as Schema[])
        .filter((choice) => !("$ref" in choice))
        .map((c) => plain(c, found));
    } else if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, sub]) => [name, plain(sub, found)]),
      );
    } else {
      out[key] = plain(value, found);
    }
  }
  return schema.nullable === true ? nullable(out) : out;
}

/** `schema` that also admits `null`, as OpenAPI 3.0's `nullable: true` says. */
function nullable(schema: Schema): Schema {
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

main();
