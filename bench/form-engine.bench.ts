/**
 * The form engine's cost (docs/design.md §22): S2 on a form with 20 conditional rules and 5
 * calculations beside S2 on the same form without them, in this process over the memory
 * store, in the same run. Each round posts {@link POSTS} submissions to each form (the order
 * alternating between rounds), {@link CONCURRENCY} at a time, through `service.fetch`; the
 * table shows each round's time per post, the ratio to the plain form, and the median ratio
 * beside the goal (≤ 1.3×). Run: `node --conditions=formwork-source --import tsx
 * bench/form-engine.bench.ts`.
 */
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService } from "../src/index.ts";
import { postJson } from "./seeded-form.ts";

const ROUNDS = 3;
const POSTS = 3000;
const CONCURRENCY = 10;
const GOAL = 1.3;

const fields = [
  ...Array.from({ length: 20 }, (_, n) => ({
    unique_system_name: `field_${n + 1}`,
    type: "number",
    label: `Field ${n + 1}`,
  })),
  ...Array.from({ length: 5 }, (_, n) => ({
    unique_system_name: `total_${n + 21}`,
    type: "number",
    label: `Total ${n + 1}`,
  })),
];
const rules = Array.from({ length: 20 }, (_, n) => ({
  fields: [`field_${((n + 1) % 20) + 1}`],
  action: n % 2 ? "require" : "show",
  when: { or: [{ ">": [{ var: `field_${n + 1}` }, -1] }, { "==": [{ var: "field_1" }, ""] }] },
}));
const calculations = Array.from({ length: 5 }, (_, n) => ({
  unique_system_name: `total_${n + 21}`,
  expression: {
    "+": [{ "*": [{ var: `field_${n + 1}` }, 2] }, { var: `field_${n + 2}` }, n],
  },
}));
const values = {
  form_fields: fields
    .slice(0, 20)
    .map((f, n) => ({ unique_system_name: f.unique_system_name, submitted_value: String(n) })),
};

const adminSecret = "bench-admin-secret";
const service = createFormService({
  store: createMemoryStore(),
  adminSecret,
  sweepIntervalMs: 0,
  webhookPollMs: 0,
});

const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(service, path, body, headers);

const account = await call(
  "/api/admin/accounts",
  { email: "bench@example.com" },
  { AdminSecret: adminSecret },
);
const tokens = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
async function createForm(withRules: boolean) {
  const form = await call(
    "/api/restricted/form",
    {
      form_configuration: { settings: { form_name: "Bench", form_type: "classicsingle" } },
      form_definition: { pages: [{ fields }] },
    },
    tokens,
  );
  const id = String(form.id);
  if (withRules) {
    const section = (name: string) =>
      `/api/restricted/form/${id}/?updateSettingsOnly=1&settingsSection=${name}`;
    await call(section("conditionallogicsettings"), { rules }, tokens);
    await call(section("calculatedfieldsettings"), { fields: calculations }, tokens);
  }
  return id;
}

/** Milliseconds per post of {@link POSTS} posts to `formId`. */
async function measure(formId: string) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < POSTS) await call(`/api/form/${formId}/submission`, values);
    }),
  );
  return (performance.now() - started) / POSTS;
}

const plain = await createForm(false);
const engine = await createForm(true);
await measure(plain);
await measure(engine);
const ratios: number[] = [];
const rows = [];
for (let round = 1; round <= ROUNDS; round++) {
  const order = round % 2 ? [plain, engine] : [engine, plain];
  const times = new Map<string, number>();
  for (const id of order) times.set(id, await measure(id));
  const ratio = (times.get(engine) ?? 0) / (times.get(plain) ?? 1);
  ratios.push(ratio);
  rows.push({
    round,
    "plain ms/post": (times.get(plain) ?? 0).toFixed(3),
    "20 rules + 5 calculations ms/post": (times.get(engine) ?? 0).toFixed(3),
    "× plain": ratio.toFixed(3),
  });
}
const median = [...ratios].sort((a, b) => a - b)[ratios.length >> 1] ?? 0;
console.log("S2 with the form engine's rules beside the plain form (memory store, in process)");
console.table(rows);
console.log(
  `median × plain: ${median.toFixed(3)} (goal ≤ ${GOAL}: ${median <= GOAL ? "met" : "NOT met"})`,
);
await service.close();
