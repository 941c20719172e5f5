/**
 * What each hot endpoint costs in Cosmos DB requests, measured on the emulator: the table in
 * `adapters/cosmos/README.md` is this test's output. A change in these numbers is a change
 * in what the service costs to run: update the README's table with the printed one.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { countKinds, type RequestKind } from "../emulators/cosmos.ts";
import { formInput, type TestUser } from "../helpers.ts";
import { adminSecret, startAzureService, submission, uploadFile } from "./azure-service.ts";

/** Cosmos DB requests per endpoint, as measured; keep in step with the README's table. */
const expected: Record<string, number> = {
  "F5 render a form (anonymous)": 2,
  "F4 list my forms": 5,
  "F2 update a settings section": 6,
  "U2 add a collaborator, the form's first audit entry this month": 7,
  "U1 list form users": 4,
  "D5 add one datalist entry": 5,
  "D7 list datalist entries": 4,
  "D6 delete a datalist entry": 4,
  "S2 post a text-only submission, first after a form change": 5,
  "S3 upload an attachment (anonymous)": 8,
  "S2 post a submission with a file and a datalist value": 4,
  "S2 post a submission with a file uploaded through another instance": 4,
  "S2 post a text-only submission": 2,
  "S2 post a text-only submission to a form with a webhook": 5,
  "S2 post a submission with an e-mail field (its respondent index record)": 2,
  "S2 post a text-only submission with an Idempotency-Key, the form's first this hour": 4,
  "S2 post a text-only submission with an Idempotency-Key": 2,
  "S2 post the same again (a retry: its first answer replayed)": 3,
  "S1 read a submission with one attachment": 5,
  "S4 link to an attachment": 5,
  "S5 list submissions, first page of 3": 5,
  "S5 list submissions, next page (2 with files)": 5,
  "S6 update a submission": 9,
  "S7 delete a submission with its file": 9,
  "F3 delete a form with 5 submissions and 1 file": 28,
};

/**
 * The requests before the request budgets were met, shown beside today's in the table. The
 * budgets themselves are asserted by {@link budgets}.
 */
const before: Record<string, number> = {
  "F5 render a form (anonymous)": 4,
  "F4 list my forms": 7,
  "F2 update a settings section": 6,
  "U2 add a collaborator, the form's first audit entry this month": 5,
  "U1 list form users": 5,
  "D5 add one datalist entry": 6,
  "D7 list datalist entries": 5,
  "D6 delete a datalist entry": 4,
  "S2 post a text-only submission, first after a form change": 6,
  "S3 upload an attachment (anonymous)": 7,
  "S2 post a submission with a file and a datalist value": 10,
  "S2 post a text-only submission": 3,
  "S1 read a submission with one attachment": 5,
  "S4 link to an attachment": 4,
  "S5 list submissions, first page of 3": 5,
  "S5 list submissions, next page (2 with files)": 7,
  "S6 update a submission": 9,
  "S7 delete a submission with its file": 8,
  "F3 delete a form with 5 submissions and 1 file": 26,
};

/** Sign-in: the token's and the account's point reads, not cached (a revocation is seen at once). */
const signIn = 2;

/**
 * An S5 page: one query, at most one point read beyond sign-in, and its audit entry, one
 * create (docs/design.md §25).
 */
const s5PageBudget = "1 query + <= 1 point read beyond sign-in, + 1 create";
const withinS5PageBudget = (r: RequestKind[]) =>
  count(r, "query") === 1 &&
  count(r, "read") <= signIn + 1 &&
  count(r, "create") <= 1 &&
  r.length <= signIn + 3;

/** The request budgets (docs/design.md §13), each checked on the requests as measured. */
const budgets: [string, string, (requests: RequestKind[]) => boolean][] = [
  ["F5 render a form (anonymous)", "<= 2 requests", (r) => r.length <= 2],
  ["S2 post a text-only submission", "<= 3 requests", (r) => r.length <= 3],
  // The key's record goes in the post's own transactional batch (idempotency-keys.ts).
  ["S2 post a text-only submission with an Idempotency-Key", "<= 3 requests", (r) => r.length <= 3],
  // The file uploaded through this same instance (settled-uploads.ts), and through another
  // one (waiting-uploads.ts).
  ["S2 post a submission with a file and a datalist value", "<= 5 requests", (r) => r.length <= 5],
  [
    "S2 post a submission with a file uploaded through another instance",
    "<= 5 requests",
    (r) => r.length <= 5,
  ],
  ["S5 list submissions, first page of 3", s5PageBudget, withinS5PageBudget],
  ["S5 list submissions, next page (2 with files)", s5PageBudget, withinS5PageBudget],
];

/**
 * Waits until the stand-in has had no request for 30 ms: the removal of a finished intent
 * (adapters/cosmos/batch.ts) goes out after the batch answers, and counts with its endpoint.
 */
async function quiet() {
  let seen = -1;
  while (seen !== cosmos.requests.length) {
    seen = cosmos.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

const count = (requests: RequestKind[], kind: RequestKind) =>
  requests.filter((request) => request === kind).length;

const storeCalls: string[] = [];
// A loopback webhook for Carol's form (below); the worker is off, so nothing is sent.
const env = await startAzureService({ allowPrivateWebhookDestinations: true }, (store) =>
  counting(store, storeCalls),
);
const { call, cosmos } = env;
/** A second instance on the same store: the files it takes are not held by the first. */
const other = createFormService({
  store: env.store,
  blobs: env.blobs,
  adminSecret,
  sweepIntervalMs: 0,
  webhookPollMs: 0,
});
after(() => other.close());

/** Counts every call of the store's methods into `calls`. */
function counting(store: Store, calls: string[]): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return value.apply(target, args);
      };
    },
  });
}

/** A datalist of colours owned by `owner`, and a form of `owner`'s using it; their ids. */
async function costsForm(owner: TestUser, name: string) {
  const list = await call("POST", "/api/restricted/datalist", {
    as: owner,
    body: { settings: { list_name: "Colours" } },
  });
  const colours = [{ entry_value: "red" }, { entry_value: "green" }];
  const datalistId: string = list.body.id;
  await call("POST", `/api/restricted/datalist/${datalistId}/entry`, { as: owner, body: colours });
  const fields = [
    { unique_system_name: "name_1", type: "text", label: "Name", required: true },
    { unique_system_name: "colour_2", type: "select", label: "Colour", datalist_id: datalistId },
    { unique_system_name: "cv_3", type: "file", label: "CV", max_files: 1 },
  ];
  const created = await call("POST", "/api/restricted/form", {
    as: owner,
    body: formInput(name, fields),
  });
  const formId: string = created.body.id;
  const post = (values: Record<string, string>, key?: string) =>
    call("POST", `/api/form/${formId}/submission`, {
      body: submission(values),
      ...(key ? { headers: { "Idempotency-Key": key } } : {}),
    });
  return { datalistId, formId, post };
}

/**
 * An account, a datalist, and a form using it with 4 submissions, one holding a file; and
 * Bob's such form, posted to once, with a file uploaded through the {@link other} instance.
 */
async function fixture() {
  const alice = await env.account("alice@example.com");
  const bob = await env.account("bob@example.com");
  const { datalistId, formId, post } = await costsForm(alice, "Costs");
  const upload = () =>
    uploadFile(env.service, formId, { field: "cv_3", bytes: "cv", filename: "cv.txt" });
  for (const name of ["a", "b", "c"]) await post({ name_1: name });
  await post({ name_1: "warm", colour_2: "red", cv_3: (await upload()).body.id });
  const bobs = await costsForm(bob, "Costs elsewhere");
  await bobs.post({ name_1: "warm" });
  const file = { field: "cv_3", bytes: "cv", filename: "cv.txt" };
  const elsewhere = await uploadFile(other, bobs.formId, file);
  // Carol's form has a webhook: each post also writes its delivery and outbox entry.
  const carol = await env.account("carol@example.com");
  const carols = await costsForm(carol, "Costs with a hook");
  const hooks = `/api/restricted/form/${carols.formId}/submissionwebhook`;
  const hook = await call("POST", hooks, {
    as: carol,
    body: { webhook_name: "r", webhook_url: "http://127.0.0.1:9/hook" },
  });
  assert.equal(hook.status, 200, JSON.stringify(hook.body));
  await carols.post({ name_1: "warm" });
  // Dan's form has an e-mail field: each post also writes a respondent index record.
  const dan = await env.account("dan@example.com");
  const fields = [
    { unique_system_name: "name_1", type: "text", label: "Name", required: true },
    { unique_system_name: "email_2", type: "email", label: "E-mail" },
  ];
  const dans = await call("POST", "/api/restricted/form", {
    as: dan,
    body: formInput("Costs with an e-mail", fields),
  });
  const postWithEmail = (values: Record<string, string>) =>
    call("POST", `/api/form/${dans.body.id}/submission`, { body: submission(values) });
  await postWithEmail({ name_1: "warm", email_2: "warm@example.com" });
  return {
    alice,
    datalist: `/api/restricted/datalist/${datalistId}`,
    formId,
    form: `/api/restricted/form/${formId}`,
    post,
    upload,
    postElsewhere: bobs.post,
    postHooked: carols.post,
    postWithEmail,
    fileElsewhere: elsewhere.body.id as string,
  };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Answer = { status: number; body: any };

/** The measured requests in order; `state` carries ids from one to the next. */
function steps(f: Fixture, state: Record<string, string>): [string, () => Promise<Answer>][] {
  const as: { as: TestUser } = { as: f.alice };
  const keep = (key: string, pick: (a: Answer) => string) => async (answer: Answer) => {
    state[key] = pick(answer);
    return answer;
  };
  const thanks = { thanks_behaviour: "inline_message", thanks_behaviour_message: "Thanks" };
  const grant = "usersecurity?collaborator_email=bob@example.com&has_reporting_full=1";
  const page = () => `${f.form}/submissions?batchSize=3`;
  return [
    ["F5 render a form (anonymous)", () => call("GET", `/api/form/${f.formId}`)],
    ["F4 list my forms", () => call("GET", "/api/restricted/user/form", as)],
    [
      "F2 update a settings section",
      () =>
        call("POST", `${f.form}/?updateSettingsOnly=1&settingsSection=thankspagesettings`, {
          ...as,
          body: thanks,
        }),
    ],
    [
      "U2 add a collaborator, the form's first audit entry this month",
      () => call("POST", `${f.form}/${grant}`, as),
    ],
    ["U1 list form users", () => call("GET", `${f.form}/usersecurity`, as)],
    [
      "D5 add one datalist entry",
      () =>
        call("POST", `${f.datalist}/entry`, { ...as, body: { entry_value: "blue" } }).then(
          keep("entry", (a) => a.body[0]),
        ),
    ],
    ["D7 list datalist entries", () => call("GET", `${f.datalist}/entries`, as)],
    ["D6 delete a datalist entry", () => call("DELETE", `${f.datalist}/entry/${state.entry}`, as)],
    // F2 above changed the form: this instance's snapshot of it is stale (form-snapshots.ts).
    ["S2 post a text-only submission, first after a form change", () => f.post({ name_1: "Cy" })],
    ["S3 upload an attachment (anonymous)", () => f.upload().then(keep("file", (a) => a.body.id))],
    [
      "S2 post a submission with a file and a datalist value",
      () =>
        f
          .post({ name_1: "Ada", colour_2: "green", cv_3: state.file ?? "" })
          .then(keep("submission", (a) => a.body.id)),
    ],
    [
      "S2 post a submission with a file uploaded through another instance",
      () => f.postElsewhere({ name_1: "Ann", colour_2: "green", cv_3: f.fileElsewhere }),
    ],
    ["S2 post a text-only submission", () => f.post({ name_1: "Bo" })],
    [
      "S2 post a text-only submission to a form with a webhook",
      () => f.postHooked({ name_1: "Di" }),
    ],
    [
      "S2 post a submission with an e-mail field (its respondent index record)",
      () => f.postWithEmail({ name_1: "Eve", email_2: "Eve@example.com" }),
    ],
    [
      "S2 post a text-only submission with an Idempotency-Key, the form's first this hour",
      () => f.post({ name_1: "Ed" }, "first-key"),
    ],
    [
      "S2 post a text-only submission with an Idempotency-Key",
      () => f.post({ name_1: "Flo" }, "key"),
    ],
    [
      "S2 post the same again (a retry: its first answer replayed)",
      () => f.post({ name_1: "Flo" }, "key"),
    ],
    [
      "S1 read a submission with one attachment",
      () => call("GET", `${f.form}/submission/${state.submission}`, as),
    ],
    [
      "S4 link to an attachment",
      () => call("GET", `${f.form}/submissionattachment/${state.file}`, as),
    ],
    [
      "S5 list submissions, first page of 3",
      () => call("GET", page(), as).then(keep("token", (a) => a.body.continuation_token)),
    ],
    [
      "S5 list submissions, next page (2 with files)",
      () => call("GET", `${page()}&continuationToken=${encodeURIComponent(state.token ?? "")}`, as),
    ],
    [
      "S6 update a submission",
      () =>
        call("POST", `${f.form}/submission/${state.submission}`, {
          ...as,
          body: submission({ name_1: "Ada L." }),
        }),
    ],
    [
      "S7 delete a submission with its file",
      () => call("DELETE", `${f.form}/submission/${state.submission}`, as),
    ],
    [
      "F3 delete a form with 5 submissions and 1 file",
      () =>
        call("POST", `${f.form}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`, as),
    ],
  ];
}

interface Cost {
  endpoint: string;
  requests: RequestKind[];
  calls: string[];
}

/** A markdown table of the costs, as the README shows it. */
function table(costs: Cost[]): string {
  const tally = (names: string[]) =>
    Object.entries(countKinds(names))
      .map(([name, n]) => `${n} ${name}`)
      .join(", ");
  const rows = costs.map(
    (c) =>
      `| ${c.endpoint} | ${before[c.endpoint] ?? "—"} | ${c.requests.length} | ${tally(c.requests)} | ${tally(c.calls)} |`,
  );
  const head = "| endpoint | before | requests | of which | Store calls |";
  return [head, "|---|---|---|---|---|", ...rows].join("\n");
}

describe("Cosmos DB requests per endpoint", () => {
  it("costs what adapters/cosmos/README.md says", async () => {
    const state: Record<string, string> = {};
    const costs: Cost[] = [];
    for (const [endpoint, run] of steps(await fixture(), state)) {
      await quiet();
      cosmos.requests.length = 0;
      storeCalls.length = 0;
      const answer = await run();
      assert.equal(answer.status, 200, `${endpoint}: ${JSON.stringify(answer.body)}`);
      await quiet();
      costs.push({ endpoint, requests: [...cosmos.requests], calls: [...storeCalls] });
    }
    console.log(`\n${table(costs)}\n`);
    assert.deepEqual(
      Object.fromEntries(costs.map((c) => [c.endpoint, c.requests.length])),
      expected,
      "the requests per endpoint changed: update adapters/cosmos/README.md with the table above",
    );
    for (const [endpoint, budget, holds] of budgets) {
      const cost = costs.find((c) => c.endpoint === endpoint);
      assert.ok(cost && holds(cost.requests), `${endpoint}: ${budget}, got ${cost?.requests}`);
    }
  });
});
