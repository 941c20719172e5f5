/**
 * One rules engine (docs/design.md §21): a table of forms and values goes through the server
 * and through the hosted page in Chromium, and the two must agree case by case. The server's
 * verdict: S2 (a draft, so that nothing required stops it) stores the calculated values and
 * drops the hidden fields, a non-draft S2 names the required fields left empty, and the
 * form's rules as S2 compiles them (`compileRules`, `evaluate`) say which fields are hidden
 * and required. The page's: the same values filled in, then which fields the DOM shows, which
 * it marks required (`data-required`) and what the calculated fields hold.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { compileDefinition } from "../../src/domain/forms/form-definition.ts";
import type { FormRecord } from "../../src/domain/forms/form-record.ts";
import { compileRules, evaluate } from "../../src/domain/settings/form-rules.ts";
import { clientScript } from "../../src/hosted-page/client-bundle.ts";
import { settingsPath } from "./fixture.ts";
import { browserSession } from "./session.ts";

type Field = {
  unique_system_name: string;
  type: string;
  label?: string;
  required?: boolean;
  options?: string[];
};
type Rule = { fields: string[]; action: "show" | "require"; when: unknown };
type Calc = { unique_system_name: string; expression: unknown };

/** One row of the table: a form, its rules, a respondent's values by field name. */
interface Case {
  name: string;
  fields: Field[];
  conditions?: Rule[];
  calculations?: Calc[];
  values: Record<string, string>;
}

const text = (name: string, required = false): Field => ({
  unique_system_name: name,
  type: "text",
  required,
});
const number = (name: string): Field => ({ unique_system_name: name, type: "number" });
const show = (fields: string[], when: unknown): Rule => ({ fields, action: "show", when });
const require = (fields: string[], when: unknown): Rule => ({ fields, action: "require", when });
const calc = (name: string, expression: unknown): Calc => ({
  unique_system_name: name,
  expression,
});
const v = (name: string) => ({ var: name });

const cases: Case[] = [
  {
    name: "a number field compared with text and with numeric strings",
    fields: [number("n_1"), text("t_2"), text("a_3"), text("b_4"), text("c_5"), text("d_6")],
    conditions: [
      show(["a_3"], { ">": [v("n_1"), v("t_2")] }),
      show(["b_4"], { "==": [v("n_1"), "10"] }),
      show(["c_5"], { "===": [v("n_1"), "10"] }),
      show(["d_6"], { "<": [v("t_2"), 100] }),
    ],
    values: { n_1: "10", t_2: "9" },
  },
  {
    name: "!= between a number and text that is no number (fails, so false, on both sides)",
    fields: [number("n_1"), text("a_2"), text("b_3")],
    conditions: [
      show(["a_2"], { "!=": [v("n_1"), "abc"] }),
      show(["b_3"], { "!=": [v("n_1"), 4] }),
    ],
    values: { n_1: "3" },
  },
  {
    name: "empty values: an empty number reads as text, an empty text is falsy",
    fields: [number("n_1"), text("t_2"), text("a_3"), text("b_4"), text("c_5")],
    conditions: [show(["a_3"], { "==": [v("n_1"), ""] }), require(["b_4"], { "!": v("t_2") })],
    calculations: [calc("c_5", { "+": [v("n_1"), 1] })],
    values: {},
  },
  {
    name: "a condition hides a required field",
    fields: [
      { unique_system_name: "s_1", type: "select", options: ["yes", "no"] },
      text("guest_2", true),
    ],
    conditions: [show(["guest_2"], { "==": [v("s_1"), "yes"] })],
    values: { s_1: "no" },
  },
  {
    name: "a condition shows a required field that is left empty",
    fields: [
      { unique_system_name: "s_1", type: "select", options: ["yes", "no"] },
      text("guest_2", true),
    ],
    conditions: [show(["guest_2"], { "==": [v("s_1"), "yes"] })],
    values: { s_1: "yes" },
  },
  {
    name: "a require rule that holds, over a number",
    fields: [number("n_1"), text("why_2"), text("other_3")],
    conditions: [
      require(["why_2"], { ">": [v("n_1"), 2] }),
      require(["other_3"], { "<": [v("n_1"), 2] }),
    ],
    values: { n_1: "5" },
  },
  {
    name: "chained calculations, ending in cat",
    fields: [number("q_1"), number("p_2"), text("sub_3"), text("tot_4"), text("say_5")],
    calculations: [
      calc("sub_3", { "*": [v("q_1"), v("p_2")] }),
      calc("tot_4", { "+": [v("sub_3"), 10] }),
      calc("say_5", { cat: ["Total: ", v("tot_4"), " NZD"] }),
    ],
    values: { q_1: "3", p_2: "12.5" },
  },
  {
    name: "cat over text, numbers and an empty field",
    fields: [text("t_1"), number("n_2"), text("e_3"), text("out_4")],
    calculations: [calc("out_4", { cat: [v("t_1"), "-", v("n_2"), "-", v("e_3"), "."] })],
    values: { t_1: "Ada", n_2: "0.5" },
  },
  {
    name: "division by zero, by a field and by a constant",
    fields: [number("n_1"), number("z_2"), text("a_3"), text("b_4"), text("c_5")],
    calculations: [
      calc("a_3", { "/": [v("n_1"), v("z_2")] }),
      calc("b_4", { "/": [v("n_1"), 0] }),
      calc("c_5", { "/": [v("n_1"), 4] }),
    ],
    values: { n_1: "10", z_2: "0" },
  },
  {
    name: "a calculation reads a field a condition hides",
    fields: [
      { unique_system_name: "s_1", type: "select", options: ["show", "hide"] },
      text("secret_2"),
      text("echo_3"),
    ],
    conditions: [show(["secret_2"], { "==": [v("s_1"), "show"] })],
    calculations: [calc("echo_3", { cat: ["[", v("secret_2"), "]"] })],
    values: { s_1: "hide", secret_2: "kept out" },
  },
  {
    name: "a condition over a calculated field",
    fields: [number("q_1"), number("p_2"), text("tot_3"), text("ok_4"), text("big_5")],
    conditions: [
      show(["big_5"], { ">": [v("tot_3"), 100] }),
      require(["ok_4"], { ">": [v("tot_3"), 100] }),
    ],
    calculations: [calc("tot_3", { "*": [v("q_1"), v("p_2")] })],
    values: { q_1: "30", p_2: "4" },
  },
  {
    name: "in over a checkbox's joined choices",
    fields: [
      { unique_system_name: "cb_1", type: "checkbox", options: ["tea", "coffee", "cocoa"] },
      text("milk_2"),
      text("sugar_3"),
    ],
    conditions: [
      show(["milk_2"], { in: ["tea", v("cb_1")] }),
      show(["sugar_3"], { in: ["cocoa", v("cb_1")] }),
    ],
    values: { cb_1: "tea|coffee" },
  },
  {
    name: "a field shown only while every show rule naming it holds",
    fields: [number("n_1"), { unique_system_name: "r_2", type: "radio", options: ["a", "b"] }],
    conditions: [
      show(["n_1"], { "==": [v("r_2"), "a"] }),
      show(["n_1"], { "==": [v("r_2"), "b"] }),
    ],
    values: { r_2: "a", n_1: "4" },
  },
  {
    name: "text that looks like numbers: + adds, cat joins",
    fields: [text("t_1"), text("t_2"), text("sum_3"), text("joined_4"), text("bad_5")],
    calculations: [
      calc("sum_3", { "+": [v("t_1"), v("t_2")] }),
      calc("joined_4", { cat: [v("t_1"), v("t_2")] }),
      calc("bad_5", { "*": [v("t_1"), "x"] }),
    ],
    values: { t_1: "1.5", t_2: "2" },
  },
  {
    name: "if over an empty field, and a value sent for a calculated field",
    fields: [text("who_1"), text("hello_2")],
    calculations: [calc("hello_2", { if: [v("who_1"), { cat: ["Hi ", v("who_1")] }, "Anon"] })],
    values: { hello_2: "forged" },
  },
  {
    name: "a hidden calculated field and a required field shown by a number",
    fields: [number("age_1"), text("tot_2"), text("guardian_3", true)],
    conditions: [
      show(["tot_2"], { ">=": [v("age_1"), 18] }),
      show(["guardian_3"], { "<": [v("age_1"), 18] }),
    ],
    calculations: [calc("tot_2", { "*": [v("age_1"), 2] })],
    values: { age_1: "12" },
  },
];

/** What one side decided. */
interface Verdict {
  hidden: string[];
  required: string[];
  calculated: Record<string, string>;
}

describe("one rules engine: the server and the page agree on a table of forms", {
  timeout: 300_000,
}, () => {
  const store = createMemoryStore();
  const s = browserSession({ store });

  /** Creates the case's form; returns its id. */
  async function createForm(row: Case): Promise<string> {
    const fields = row.fields.map((field) => ({ label: field.unique_system_name, ...field }));
    const created = await s.env.call("POST", "/api/restricted/form", {
      as: s.alice,
      body: {
        form_configuration: { settings: { form_name: row.name, form_type: "classicsingle" } },
        form_definition: { pages: [{ fields }] },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const formId: string = created.body.id;
    const sections = {
      conditionallogicsettings: { rules: row.conditions ?? [] },
      calculatedfieldsettings: { fields: row.calculations ?? [] },
    };
    for (const [section, body] of Object.entries(sections)) {
      const saved = await s.env.call("POST", settingsPath(formId, section), { as: s.alice, body });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    }
    return formId;
  }

  /** The server's verdict, and the names S2 said were required but empty. */
  async function serverVerdict(row: Case, formId: string) {
    const form_fields = Object.entries(row.values).map(([name, value]) => ({
      unique_system_name: name,
      submitted_value: value,
    }));
    const path = `/api/form/${formId}/submission`;
    const draft = await s.env.call("POST", path, {
      body: { form_fields, is_draft_submission: true },
    });
    assert.equal(draft.status, 200, JSON.stringify(draft.body));
    const listed = await s.submissions(formId);
    const stored = listed.results.find((item: { id: string }) => item.id === draft.body.id);
    assert.ok(stored, JSON.stringify(listed.results));
    const kept = new Map<string, string>(
      stored.form_fields.map((f: { unique_system_name: string; submitted_value: string }) => [
        f.unique_system_name,
        f.submitted_value,
      ]),
    );
    const posted = await s.env.call("POST", path, { body: { form_fields } });
    const missing =
      posted.status === 200
        ? []
        : posted.body.issues.map((issue: { path: string; message: string }) => {
            assert.equal(issue.message, "is required");
            return issue.path;
          });
    assert.ok(posted.status === 200 || posted.status === 400, JSON.stringify(posted.body));

    const entry = await store.get<FormRecord>("forms", formId, formId);
    assert.ok(entry);
    const { fields } = compileDefinition(entry.record.form_definition);
    const evaluation = evaluate(
      compileRules(entry.record),
      fields,
      new Map(Object.entries(row.values)),
    );
    const hidden = [...evaluation.hidden].filter((name) => fields.has(name)).sort();
    // S2 drops exactly the fields the rules hide.
    for (const name of Object.keys(row.values)) {
      assert.equal(kept.has(name), !hidden.includes(name), `${name} kept by S2`);
    }
    const required = row.fields
      .map((field) => field.unique_system_name)
      .filter((name) => !hidden.includes(name))
      .filter(
        (name) =>
          row.fields.find((f) => f.unique_system_name === name)?.required ||
          evaluation.required.has(name),
      )
      .sort();
    const calculated: Record<string, string> = {};
    for (const { unique_system_name: name } of row.calculations ?? []) {
      if (!hidden.includes(name)) calculated[name] = kept.get(name) ?? "";
    }
    return { verdict: { hidden, required, calculated } satisfies Verdict, missing };
  }

  /** Fills the case's values into the page, in the definition's order. */
  async function fill(page: Page, row: Case): Promise<void> {
    await page.evaluate((values: Record<string, string>) => {
      const form = document.getElementById("formwork-form") as HTMLFormElement;
      for (const field of form.querySelectorAll<HTMLElement>(".field")) {
        const value = values[field.dataset.name ?? ""];
        if (value === undefined) continue;
        const choices = field.querySelectorAll<HTMLInputElement>(
          "input[type=radio], input[type=checkbox]",
        );
        if (choices.length > 0) {
          const chosen = value.split("|");
          for (const input of choices) input.checked = chosen.includes(input.value);
        } else {
          const control = field.querySelector<HTMLInputElement>("input, select, textarea");
          if (control) control.value = value;
        }
        // As a person's typing does: the page evaluates on each input.
        field
          .querySelector("input, select, textarea")
          ?.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }, row.values);
  }

  /** The page's verdict, read from the DOM. */
  async function pageVerdict(page: Page, row: Case): Promise<Verdict> {
    const calculatedNames = (row.calculations ?? []).map((c) => c.unique_system_name);
    // No named function inside: tsx would wrap it in a helper the page does not have.
    return page.evaluate((names: string[]) => {
      const fields = [...document.querySelectorAll<HTMLElement>("#formwork-form .field")];
      const calculated: Record<string, string> = {};
      for (const field of fields) {
        if (!names.includes(field.dataset.name ?? "") || field.hidden) continue;
        calculated[field.dataset.name ?? ""] =
          field.querySelector<HTMLInputElement | HTMLOutputElement>("output, input")?.value ?? "";
      }
      return {
        hidden: fields.flatMap((f) => (f.hidden ? [f.dataset.name ?? ""] : [])).sort(),
        required: fields
          .flatMap((f) => (f.dataset.required === "true" ? [f.dataset.name ?? ""] : []))
          .sort(),
        calculated,
      };
    }, calculatedNames);
  }

  it("agrees on every row: hidden, required and calculated fields", async (t) => {
    // The page carries the shared engine: its weight, for docs/design.md §21's budget.
    t.diagnostic(
      `page script with the rules engine: ${gzipSync(clientScript).length} bytes gzipped`,
    );
    const page = await s.openPage();
    for (const row of cases) {
      const formId = await createForm(row);
      const { verdict: server, missing } = await serverVerdict(row, formId);
      await page.goto(`${s.env.base}/f/${formId}`);
      await fill(page, row);
      const shown = await pageVerdict(page, row);
      assert.deepEqual(shown, server, `${row.name}: the page and the server disagree`);
      const empty = shown.required.filter((name) => !row.values[name]);
      assert.deepEqual([...missing].sort(), empty, `${row.name}: S2's required issues`);
    }
    assert.deepEqual(s.strays, []);
  });
});
