import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conformingFetch, formInput, type TestUser } from "../helpers.ts";
import { allFields, download, type FilesEnv, submit, upload, withFiles } from "./setup.ts";

/** GETs the export and reads the answer as text. */
async function exportOf(env: FilesEnv, query = "", as: TestUser | null = env.alice) {
  const headers = new Headers();
  if (as) {
    headers.set("TokenId", as.token_id);
    headers.set("TokenSecret", as.token_secret);
  }
  const response = await conformingFetch(env.service)(
    new Request(`http://localhost/api/restricted/form/${env.formId}/submissions/export${query}`, {
      headers,
    }),
  );
  // Response.text() would drop the byte order mark that the CSV begins with.
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text };
}

const header = [
  "id",
  "created_date_utc",
  "is_draft_submission",
  "Name",
  "About",
  "E-mail",
  "Age",
  "Born",
  "Size",
  "Tone",
  "Likes",
  "CV",
].join(",");

/** The CSV's records, without the byte order mark, split on the CRLF that ends each. */
function csvLines(text: string): string[] {
  assert.ok(text.startsWith("\ufeff"), "a byte order mark comes first");
  assert.ok(text.endsWith("\r\n"));
  return text.slice(1, -2).split("\r\n");
}

describe("submission export (extension)", () => {
  it("exports CSV: a header of labels, one column per field in order, signed file links", async () => {
    const env = await withFiles();
    const file = (await upload(env, { bytes: "resume bytes" })).body.id as string;
    const first = await submit(env, {
      name_1: "Ada",
      email_3: "ada@example.com",
      likes_8: "a|c",
      cv_9: file,
    });
    env.tick(60_000);
    const second = await submit(
      env,
      { name_1: 'Bob "B", jr', about_2: "two\nlines" },
      {
        draft: true,
      },
    );
    const { status, headers, text } = await exportOf(env);
    assert.equal(status, 200);
    assert.equal(headers.get("content-type"), "text/csv; charset=utf-8");
    assert.match(
      headers.get("content-disposition") ?? "",
      /^attachment; filename="Job application.csv"$/,
    );
    assert.equal(headers.get("cache-control"), "no-store");
    const [head, ...rest] = text.slice(1).split("\r\n");
    assert.equal(head, header);
    const row1 = rest[0]?.split(",") ?? [];
    assert.deepEqual(row1.slice(0, 3), [first.body.id, "2026-11-01T10:00:00.000Z", "false"]);
    assert.deepEqual(row1.slice(3, 11), ["Ada", "", "ada@example.com", "", "", "", "", "a|c"]);
    const link = row1[11] ?? "";
    assert.match(link, /^http:\/\/localhost\/storage\/.+\?.*sig=/);
    const fetched = await download(env, link);
    assert.equal(fetched.status, 200);
    assert.equal(new TextDecoder().decode(fetched.bytes), "resume bytes");
    // Quotes, commas and line breaks are quoted as RFC 4180 says; the draft flag is true.
    assert.equal(
      text.slice(1).split("\r\n").slice(2).join("\r\n"),
      `${second.body.id},2026-11-01T10:01:00.000Z,true,"Bob ""B"", jr","two\nlines",,,,,,,\r\n`,
    );
  });

  it("neutralises cells a spreadsheet would run as formulas", async () => {
    const env = await withFiles();
    for (const [name_1, about_2] of <[string, string][]>[
      ["=1+2", "+SUM(A1)"],
      ["@cmd", "-2"],
      ["\tTab", "safe = text"],
    ]) {
      await submit(env, { name_1, about_2 });
      env.tick(1000);
    }
    const lines = csvLines((await exportOf(env)).text);
    const cells = lines.slice(1).map((line) => line.split(",").slice(3, 5));
    assert.deepEqual(cells, [
      ["'=1+2", "'+SUM(A1)"],
      ["'@cmd", "'-2"],
      ["'\tTab", "safe = text"],
    ]);
  });

  it("exports NDJSON with a key per field, and streams past one page", async () => {
    const env = await withFiles();
    const ids: string[] = [];
    for (let n = 0; n < 450; n++) {
      ids.push((await submit(env, { name_1: `person ${n}` })).body.id);
      env.tick(1000);
    }
    const { status, headers, text } = await exportOf(env, "?format=ndjson");
    assert.equal(status, 200);
    assert.equal(headers.get("content-type"), "application/x-ndjson; charset=utf-8");
    assert.match(headers.get("content-disposition") ?? "", /Job application\.ndjson/);
    const lines = text.split("\n");
    assert.equal(lines.pop(), "");
    const records = lines.map((line) => JSON.parse(line));
    assert.deepEqual(
      records.map((r) => r.id),
      ids,
    );
    assert.deepEqual(records[7], {
      id: ids[7],
      created_date_utc: "2026-11-01T10:00:07.000Z",
      is_draft_submission: false,
      name_1: "person 7",
      about_2: "",
      email_3: "",
      age_4: "",
      born_5: "",
      size_6: "",
      tone_7: "",
      likes_8: "",
      cv_9: "",
    });
  });

  it("keeps S5's filters: date window, its aliases, and search words", async () => {
    const env = await withFiles();
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) {
      ids.push((await submit(env, { name_1: n % 2 ? "odd one" : "even one" })).body.id);
      env.tick(60_000);
    }
    const start = Date.parse("2026-11-01T10:00:00.000Z");
    const idsIn = (text: string) =>
      csvLines(text)
        .slice(1)
        .map((line) => line.split(",")[0]);
    const window = `?dateFrom=${start + 60_000}&dateTo=${start + 3 * 60_000}`;
    assert.deepEqual(idsIn((await exportOf(env, window)).text), ids.slice(1, 4));
    const aliased = `?date_from=${start + 60_000}&date_to=${start + 3 * 60_000}&format=csv`;
    assert.deepEqual(idsIn((await exportOf(env, aliased)).text), ids.slice(1, 4));
    assert.deepEqual(idsIn((await exportOf(env, "?search=odd")).text), [ids[1], ids[3], ids[5]]);
    const none = await exportOf(env, "?search=nobody");
    assert.deepEqual(csvLines(none.text), [header]);
  });

  it("names the download after the form, without path separators", async () => {
    const env = await withFiles();
    const created = await env.call("POST", "/api/restricted/form", {
      as: env.alice,
      body: formInput("Q3/Q4 report", allFields),
    });
    assert.equal(created.status, 200);
    const { headers } = await exportOf({ ...env, formId: created.body.id });
    assert.equal(headers.get("content-disposition"), 'attachment; filename="Q3_Q4 report.csv"');
  });

  it("refuses bad queries with 400 and the envelope, before reading anything", async () => {
    const env = await withFiles();
    for (const query of ["?format=xml", "?dateFrom=10&dateTo=5", "?dateFrom=yesterday"]) {
      const { status, headers, text } = await exportOf(env, query);
      assert.equal(status, 400, query);
      assert.match(headers.get("content-type") ?? "", /application\/json/);
      const body = JSON.parse(text);
      assert.equal(body.error, "validation_failed");
    }
  });

  it("asks for credentials and the reporting role, and hides other forms", async () => {
    const env = await withFiles();
    assert.equal((await exportOf(env, "", null)).status, 401);
    const grant = (email: string, flag: string) =>
      env.call(
        "POST",
        `/api/restricted/form/${env.formId}/usersecurity?collaborator_email=${email}&${flag}=1`,
        { as: env.alice },
      );
    await grant("rep@example.com", "has_reporting_full");
    await grant("ed@example.com", "has_form_editor");
    const reporter = await env.user("rep@example.com");
    const editor = await env.user("ed@example.com");
    const stranger = await env.user("eve@example.com");
    assert.equal((await exportOf(env, "", reporter)).status, 200);
    assert.equal((await exportOf(env, "", editor)).status, 403);
    assert.equal((await exportOf(env, "", stranger)).status, 404);
  });
});
