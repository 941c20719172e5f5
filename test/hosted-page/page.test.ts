import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conformingFetch, formInput, setup } from "../helpers.ts";
import { createHostedForm, settingsPath } from "./fixture.ts";

/** GETs a hosted page through `service.fetch` and reads it as text. */
async function page(service: Awaited<ReturnType<typeof setup>>["service"], path: string) {
  const response = await conformingFetch(service)(new Request(`http://localhost${path}`));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("hosted form page (extension): the HTML", () => {
  it("renders every field type with its label, required marks and limits", async () => {
    const { service, call, user } = await setup();
    const alice = await user("alice@example.com");
    const { formId } = await createHostedForm(call, alice);
    const { status, headers, text } = await page(service, `/f/${formId}`);
    assert.equal(status, 200);
    assert.equal(headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(text, /^<!doctype html>\n<html lang="en">/);
    assert.match(text, /<title>Job application<\/title>/);
    assert.match(text, /<p class="description">Tell us about yourself\.<\/p>/);
    // Two pages of a `classicmulti` form: steps, the first shown, Back, Next and Submit.
    assert.match(
      text,
      /<section class="step" data-step="1" aria-labelledby="p-0">\n<h2 id="p-0" tabindex="-1">About you<\/h2>/,
    );
    assert.match(
      text,
      /<section class="step" data-step="2" hidden aria-labelledby="p-1">\n<h2 id="p-1" tabindex="-1">Preferences and files<\/h2>/,
    );
    assert.match(
      text,
      /<nav class="steps" aria-label="Steps">\n<ol>\n<li data-step="1" aria-current="step">About you<\/li>\n<li data-step="2">Preferences and files<\/li>/,
    );
    assert.match(
      text,
      /<button type="button" class="secondary" id="step-back" hidden>Back<\/button>\n<button type="button" id="step-next">Next<\/button>\n<button type="submit" hidden>Submit<\/button>/,
    );
    for (const id of ["name_1", "about_2", "email_3", "age_4", "born_5", "size_6", "city_7"]) {
      assert.match(text, new RegExp(`<label for="f-${id}">`), id);
      assert.match(text, new RegExp(`id="f-${id}" name="${id}"`), id);
    }
    assert.match(
      text,
      /<input type="text" id="f-name_1" name="name_1" [^>]* required aria-required="true" maxlength="40">/,
    );
    assert.match(text, /<textarea rows="4" id="f-about_2"/);
    assert.match(text, /<input type="email" autocomplete="email" id="f-email_3"[^>]* required/);
    assert.match(text, /<input type="number" step="any" id="f-age_4"[^>]* min="0" max="130">/);
    assert.match(text, /<input type="date" id="f-born_5"/);
    assert.match(text, /<option value="M">M<\/option>/);
    // The datalist-backed select holds the datalist's entries, as F5 fills them in.
    assert.match(
      text,
      /<option value="Auckland">Auckland<\/option>\n<option value="Wellington">Wellington</,
    );
    assert.match(text, /<fieldset class="choices" role="radiogroup">\n<legend>Tone<\/legend>/);
    assert.match(text, /<input type="radio" id="f-tone_8-1" name="tone_8" value="cold"/);
    assert.match(text, /<label for="f-tone_8-1">cold<\/label>/);
    assert.match(
      text,
      /<legend>Likes<span class="mark" aria-hidden="true">\*<\/span><span class="sr-only"> \(required\)<\/span><\/legend>/,
    );
    assert.match(text, /<input type="checkbox" id="f-likes_9-2" name="likes_9" value="cocoa"/);
    assert.match(text, /<label for="f-cv_10">CV<\/label>/);
    assert.match(
      text,
      /<input type="file" id="f-cv_10" name="cv_10" aria-describedby="h-cv_10 e-cv_10" multiple accept=".txt,image\/png" data-max-files="2" data-max-file-size="100000">/,
    );
    assert.match(text, /Up to 2 files, 100 kB each at most \(\.txt, image\/png\)\./);
    assert.match(text, new RegExp(`<form id="formwork-form" data-form-id="${formId}"`));
  });

  it("serves a strict CSP whose nonce is the one on the inline script and style", async () => {
    const { service, call, user } = await setup();
    const { formId } = await createHostedForm(call, await user("alice@example.com"));
    const first = await page(service, `/f/${formId}`);
    const csp = first.headers.get("content-security-policy") ?? "";
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1] ?? "";
    assert.equal(nonce.length, 24);
    assert.equal(
      csp,
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
        "connect-src 'self'; form-action 'self'; img-src 'self' data:; base-uri 'none'",
    );
    assert.equal(first.headers.get("x-content-type-options"), "nosniff");
    assert.equal(first.headers.get("cache-control"), "no-store");
    assert.equal(first.text.match(/<script nonce="/g)?.length, 1);
    assert.ok(first.text.includes(`<script nonce="${nonce}">`));
    assert.ok(first.text.includes(`<style nonce="${nonce}">`));
    assert.ok(!/ style="|<script src|<link /.test(first.text));
    const second = await page(service, `/f/${formId}`);
    assert.notEqual(second.headers.get("content-security-policy"), csp);
  });

  it("escapes every value of the definition", async () => {
    const { service, call, user } = await setup();
    const alice = await user("alice@example.com");
    const attack = "<img src=x onerror=alert(1)>";
    const quote = `"><script>alert(2)</script>`;
    const field = (n: number, type: string, extra = {}) => ({
      unique_system_name: `x_${n}`,
      type,
      label: attack,
      ...extra,
    });
    const input = formInput(`${attack}</title>`, [
      field(1, "text"),
      field(2, "select", { options: [quote, "'single'"] }),
      field(3, "radio", { options: [quote] }),
      field(4, "checkbox", { options: [`${attack}&amp;`] }),
      field(5, "file", { accept: [`${quote}`] }),
    ]);
    input.form_configuration.settings = {
      ...input.form_configuration.settings,
      form_description: attack,
    } as typeof input.form_configuration.settings;
    input.form_definition.pages[0] = { ...input.form_definition.pages[0], title: quote } as never;
    const created = await call("POST", "/api/restricted/form", { as: alice, body: input });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { status, text } = await page(service, `/f/${created.body.id}`);
    assert.equal(status, 200);
    assert.ok(!text.includes("<img"));
    assert.ok(!text.includes("alert(2)</script>"));
    assert.ok(!text.includes(`"><script`));
    // The page script, and the rules and the page's words as JSON data blocks (never run).
    assert.equal(text.match(/<script/g)?.length, 3);
    assert.equal(text.match(/<script type="application\/json" id="formwork-rules">/g)?.length, 1);
    assert.equal(text.match(/<script type="application\/json" id="formwork-words">/g)?.length, 1);
    assert.ok(text.includes("&lt;img src=x onerror=alert(1)&gt;&lt;/title&gt;</title>"));
    assert.ok(text.includes('<option value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;">'));
    assert.ok(text.includes('<option value="&#39;single&#39;">&#39;single&#39;</option>'));
    assert.ok(text.includes("&lt;img src=x onerror=alert(1)&gt;&amp;amp;"));
    assert.ok(text.includes('data-label="&lt;img src=x onerror=alert(1)&gt;"'));
    assert.ok(text.includes('accept="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"'));
  });

  it("accepts the form id in braces and upper case, as the other routes do", async () => {
    const { service, call, user } = await setup();
    const { formId } = await createHostedForm(call, await user("alice@example.com"));
    const { status, text } = await page(service, `/f/%7B${formId.toUpperCase()}%7D`);
    assert.equal(status, 200);
    assert.ok(text.includes(`data-form-id="${formId}"`));
  });

  it("answers an HTML page with F5's status when the form cannot be shown", async () => {
    const { service, call, user } = await setup();
    const alice = await user("alice@example.com");
    const { formId } = await createHostedForm(call, alice);
    const expect = async (path: string, status: number, title: string, message: string) => {
      const answer = await page(service, path);
      assert.equal(answer.status, status, path);
      assert.equal(answer.headers.get("content-type"), "text/html; charset=utf-8");
      assert.ok(answer.headers.get("content-security-policy")?.startsWith("default-src 'none'"));
      assert.ok(answer.text.includes(`<h1>${title}</h1>\n<p>${message}</p>`), answer.text);
      assert.ok(!answer.text.includes("<script"));
    };
    const missing = "There is no form at this address, or it is not open to you.";
    await expect("/f/0190f4a6-0000-7000-8000-000000000000", 404, "Form not found", missing);
    await expect("/f/not-a-guid", 400, "Form not found", "This address does not name a form.");
    const set = (section: string, body: unknown) =>
      call("POST", settingsPath(formId, section), { as: alice, body });
    await set("generalsettings", { is_disabled: true });
    const closed = "This form is disabled and takes no submissions.";
    await expect(`/f/${formId}`, 403, "This form is closed", closed);
    await set("generalsettings", { is_disabled: false });
    await set("securitysettings", { requires_login: true });
    const login = "This form is open only to people who are signed in.";
    await expect(`/f/${formId}`, 401, "Sign-in required", login);
  });
});
