import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch, formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { settingsPath } from "./fixture.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true },
  { unique_system_name: "size_2", type: "select", label: "Size", options: ["S", "M"] },
  { unique_system_name: "cv_3", type: "file", label: "CV", max_files: 2, max_file_size: 1_500_000 },
];

async function world(store: Store) {
  const clock = { now: new Date("2026-11-01T10:00:00.000Z") };
  const service = createFormService({
    store: serviceQueriesOnly(store),
    now: () => clock.now,
    sweepIntervalMs: 0,
  });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const created = await request(service, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Anmeldung", fields),
  });
  const formId: string = created.body.id;
  const settings = (section: string, body: unknown) =>
    request(service, "POST", settingsPath(formId, section), { as: alice, body });
  const page = async (acceptLanguage?: string, id = formId) => {
    const headers = new Headers();
    if (acceptLanguage !== undefined) headers.set("accept-language", acceptLanguage);
    const answer = await conformingFetch(service)(
      new Request(`http://localhost/f/${id}`, { headers }),
    );
    return { status: answer.status, headers: answer.headers, text: await answer.text() };
  };
  return { service, alice, formId, clock, settings, page };
}

/** The words the page sends its script (`#formwork-words`). */
function sentWords(text: string) {
  const json = /<script type="application\/json" id="formwork-words">(.*?)<\/script>/.exec(text);
  assert.ok(json, "no #formwork-words");
  return JSON.parse(json[1] ?? "");
}

describe("hosted form page (extension): in the respondent's language", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`speaks generalsettings.language, else Accept-Language, else English (${name})`, async () => {
      const env = await world(await open());

      // No setting: the request's Accept-Language chooses, and the answer varies with it.
      const french = await env.page("fr-CA, de;q=0.5");
      assert.equal(french.status, 200);
      assert.match(french.text, /^<!doctype html>\n<html lang="fr">/);
      assert.match(french.text, /<button type="submit">Envoyer<\/button>/);
      assert.equal(french.headers.get("content-language"), "fr");
      assert.equal(french.headers.get("vary"), "Accept-Language");
      const english = await env.page("pt-BR");
      assert.match(english.text, /<html lang="en">/);
      assert.match(english.text, /<button type="submit">Submit<\/button>/);
      assert.match(english.text, /<option value="">Choose…<\/option>/);
      assert.match(english.text, /Up to 2 files, 1\.5 MB each at most\./);
      assert.equal(english.headers.get("content-language"), "en");
      assert.equal((await env.page()).headers.get("content-language"), "en");

      // The setting, in any case and with a region, wins over the header.
      const set = await env.settings("generalsettings", { language: "DE-ch" });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const german = await env.page("fr, en;q=0.9");
      assert.match(german.text, /^<!doctype html>\n<html lang="de">/);
      assert.match(german.text, /<title>Anmeldung<\/title>/);
      assert.match(german.text, /<button type="submit">Absenden<\/button>/);
      assert.match(german.text, /<option value="">Bitte wählen…<\/option>/);
      assert.match(german.text, /Bis zu 2 Dateien, je höchstens 1,5 MB\./);
      assert.match(german.text, /aria-label="Zu korrigierende Felder"/);
      assert.equal(german.headers.get("content-language"), "de");
      assert.equal(german.headers.get("vary"), null);
      const words = sentWords(german.text);
      assert.equal(words.problems.required, "{label}: Bitte füllen Sie dieses Feld aus.");
      assert.equal(words.fixFields, "Bitte korrigieren Sie die unten markierten Felder.");
      assert.equal(
        words.answers["This form is closed to new submissions"],
        "Dieses Formular nimmt keine neuen Einsendungen mehr an.",
      );
      assert.ok(!german.text.includes("Envoyer") && !german.text.includes("Submit"));
      // S2's default thanks is said in German; an owner's own message never is.
      assert.equal(
        words.answers["Thank you for your submission"],
        "Vielen Dank für Ihre Einsendung.",
      );
      const thanks = { thanks_behaviour_message: "Thank you for your submission" };
      assert.equal((await env.settings("thankspagesettings", thanks)).status, 200);
      const own = sentWords((await env.page()).text);
      assert.equal(own.answers["Thank you for your submission"], undefined);

      // S2 and F5 answer exactly as before: in English, without the setting.
      const refused = await request(env.service, "POST", `/api/form/${env.formId}/submission`, {
        body: { form_fields: [] },
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.message, "The submitted values are not valid");
      assert.deepEqual(refused.body.issues, [{ path: "name_1", message: "is required" }]);
      const rendered = await request(env.service, "GET", `/api/form/${env.formId}`);
      assert.equal(rendered.status, 200);
      assert.equal(rendered.body.form_configuration.settings.language, undefined);

      // Closed: the notice in the page's language, S2's sentence still English.
      const limited = await env.settings("quantitylimitsettings", {
        closes_at_utc: "2026-11-02T00:00:00.000Z",
      });
      assert.equal(limited.status, 200);
      env.clock.now = new Date("2026-11-03T00:00:00.000Z");
      const closed = await env.page("en");
      assert.equal(closed.status, 200);
      assert.match(closed.text, /<html lang="de">/);
      assert.ok(
        closed.text.includes(
          '<p class="notice" id="closed-notice">Dieses Formular nimmt keine neuen Einsendungen mehr an.</p>',
        ),
        closed.text,
      );
      assert.equal(closed.headers.get("content-language"), "de");
      const late = await request(env.service, "POST", `/api/form/${env.formId}/submission`, {
        body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] },
      });
      assert.equal(late.body.message, "This form is closed to new submissions");

      // null clears the setting: the header chooses again.
      assert.equal((await env.settings("generalsettings", { language: null })).status, 200);
      const spanish = await env.page("es-MX");
      assert.match(spanish.text, /<html lang="es">/);
      assert.ok(
        spanish.text.includes("Este formulario ya no acepta nuevas respuestas."),
        spanish.text,
      );
      assert.equal(spanish.headers.get("vary"), "Accept-Language");
    });
  }

  it("refuses a language the page does not speak with a 400 naming the field", async () => {
    const env = await world(createMemoryStore());
    for (const language of ["pt", "german", "de_CH", "", 7, ["de"]]) {
      const refused = await env.settings("generalsettings", { language });
      assert.equal(refused.status, 400, JSON.stringify(language));
      assert.equal(refused.body.error, "validation_failed");
      assert.equal(refused.body.issues.length, 1, JSON.stringify(refused.body));
      assert.equal(refused.body.issues[0].path, "language");
      if (typeof language === "string") {
        assert.equal(
          refused.body.issues[0].message,
          "must be one of en, de, fr, es, or one of them with a region such as de-CH",
        );
      }
    }
    // Nothing was stored: the page still follows the header.
    assert.match((await env.page("es")).text, /<html lang="es">/);
  });

  it("says why a form cannot be shown in the request's language", async () => {
    const env = await world(createMemoryStore());
    const missing = await env.page("es", "00000000-0000-4000-8000-000000000000");
    assert.equal(missing.status, 404);
    assert.match(missing.text, /<html lang="es">/);
    assert.match(missing.text, /<h1>Formulario no encontrado<\/h1>/);
    assert.equal(missing.headers.get("content-language"), "es");
    assert.equal(missing.headers.get("vary"), "Accept-Language");
    const badAddress = await env.page("fr", "not-a-form");
    assert.equal(badAddress.status, 400);
    assert.match(badAddress.text, /<p>Cette adresse ne correspond à aucun formulaire\.<\/p>/);

    await env.settings("securitysettings", { requires_login: true });
    const signIn = await env.page("fr;q=0.5, de");
    assert.equal(signIn.status, 401);
    assert.match(signIn.text, /<html lang="de">/);
    assert.match(signIn.text, /<h1>Anmeldung erforderlich<\/h1>/);

    await env.settings("securitysettings", {});
    await env.settings("generalsettings", { is_disabled: true });
    const disabled = await env.page("fr");
    assert.equal(disabled.status, 403);
    assert.match(disabled.text, /<h1>Ce formulaire est fermé<\/h1>/);
    assert.match(
      disabled.text,
      /<p>Ce formulaire est désactivé et n’accepte aucune réponse\.<\/p>/,
    );
    const english = await env.page();
    assert.match(english.text, /<html lang="en">\n[\s\S]*<h1>This form is closed<\/h1>/);
    // A form that exists speaks its own language on its refusal pages too.
    await env.settings("generalsettings", { is_disabled: true, language: "es" });
    const spanish = await env.page("fr");
    assert.equal(spanish.status, 403);
    assert.match(spanish.text, /<html lang="es">/);
    assert.match(spanish.text, /<h1>Este formulario está cerrado<\/h1>/);
    assert.equal(spanish.headers.get("vary"), null);
  });

  it("names the steps of a form of several pages in its language", async () => {
    const env = await world(createMemoryStore());
    const created = await request(env.service, "POST", "/api/restricted/form", {
      as: env.alice,
      body: {
        form_configuration: { settings: { form_name: "Anmeldung", form_type: "classicmulti" } },
        form_definition: {
          pages: [{ title: "Sie", fields: fields.slice(0, 1) }, { fields: fields.slice(1) }],
        },
      },
    });
    const text = (await env.page("de", created.body.id)).text;
    assert.match(
      text,
      /<nav class="steps" aria-label="Schritte">\n<ol>\n<li data-step="1" aria-current="step">Sie<\/li>\n<li data-step="2">Schritt 2<\/li>/,
    );
    assert.match(
      text,
      /data-template="Schritt \{step\} von \{count\}" aria-live="polite">Schritt 1 von 2<\/p>/,
    );
    assert.match(
      text,
      />Zurück<\/button>\n<button type="button" id="step-next">Weiter<\/button>\n<button type="submit" hidden>Absenden<\/button>/,
    );
  });
});
