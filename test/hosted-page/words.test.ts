import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closedMessages, pageLanguageOf, pageLanguages } from "../../src/domain/settings/index.ts";
import { chooseLanguage } from "../../src/hosted-page/language.ts";
import { counted, fill, pageWords } from "../../src/hosted-page/words/index.ts";
import { type FieldProblem, problemText, readProblem } from "../../src/rules/field-problems.ts";

/** Every text of `words`, by its path of keys. */
function texts(words: unknown, path = ""): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (typeof words !== "object" || words === null) return found.set(path, words);
  for (const [key, value] of Object.entries(words)) {
    for (const [inner, text] of texts(value, path ? `${path}.${key}` : key)) found.set(inner, text);
  }
  return found;
}

/** The `{name}`s a text puts values into, sorted. */
const placeholders = (text: unknown) =>
  [...String(text).matchAll(/\{(\w+)\}/g)].map((found) => found[1]).sort();

describe("the hosted page's words", () => {
  const english = texts(pageWords.en);

  it("has every key in every language, none empty, with English's placeholders", () => {
    assert.deepEqual(Object.keys(pageWords).sort(), [...pageLanguages].sort());
    for (const language of pageLanguages) {
      const words = texts(pageWords[language]);
      assert.deepEqual([...words.keys()].sort(), [...english.keys()].sort(), language);
      for (const [path, text] of words) {
        assert.equal(typeof text, "string", `${language} ${path}`);
        assert.ok(String(text).trim().length > 0, `${language} ${path} is empty`);
        const wanted = placeholders(english.get(path));
        assert.deepEqual(placeholders(text), wanted, `${language} ${path}`);
      }
    }
  });

  it("says the closed notices in English in S2's own sentences", () => {
    assert.equal(pageWords.en.closed.closed, `${closedMessages.closed}.`);
    assert.equal(pageWords.en.closed.sold_out, `${closedMessages.sold_out}.`);
  });

  it("fills values in once, and picks one or other by the language's plural rules", () => {
    assert.equal(fill("{label}: {option}", { label: "{option}", option: "x" }), "{option}: x");
    assert.equal(fill("{unknown} stays"), "{unknown} stays");
    assert.equal(counted(pageWords.en.upToFiles, 1, "en"), "Up to 1 file");
    assert.equal(counted(pageWords.fr.upToFiles, 0, "fr"), "Jusqu’à 0 fichier");
    assert.equal(counted(pageWords.de.upToFiles, 3, "de"), "Bis zu 3 Dateien");
  });
});

describe("field problems by code", () => {
  const problems: FieldProblem[] = [
    { code: "required" },
    { code: "too_long", max: 40 },
    { code: "not_email" },
    { code: "not_number" },
    { code: "too_small", min: -1.5 },
    { code: "too_large", max: 130 },
    { code: "not_date" },
    { code: "not_attachments" },
    { code: "repeated_attachment" },
    { code: "too_many_files", max: 2 },
    { code: "not_an_option" },
    { code: "repeated_option" },
    { code: "sold_out", option: "am: early" },
  ];

  it("reads each of S2's sentences back into its problem, and no other", () => {
    for (const problem of problems) assert.deepEqual(readProblem(problemText(problem)), problem);
    assert.equal(problemText({ code: "too_long", max: 40 }), "must be at most 40 characters");
    assert.equal(readProblem("is not a field of this form"), null);
    assert.equal(readProblem("must be at most many"), null);
  });
});

describe("the hosted page's language", () => {
  const asking = (acceptLanguage?: string) =>
    new Request("http://localhost/f/x", {
      headers: acceptLanguage === undefined ? {} : { "accept-language": acceptLanguage },
    });

  it("reads a setting's tag by its primary subtag, in any case", () => {
    assert.equal(pageLanguageOf("de"), "de");
    assert.equal(pageLanguageOf("FR"), "fr");
    assert.equal(pageLanguageOf("es-419"), "es");
    assert.equal(pageLanguageOf("de-Latn-CH"), "de");
    for (const bad of ["pt", "german", "de_CH", "", "en-", 7, null]) {
      assert.equal(pageLanguageOf(bad), null, String(bad));
    }
  });

  it("follows the setting, else Accept-Language's best spoken language, else English", () => {
    assert.deepEqual(chooseLanguage("fr", asking("de")), { language: "fr", negotiated: false });
    const chosen = (header?: string) => chooseLanguage(null, asking(header));
    assert.deepEqual(chosen("de-CH, en;q=0.8"), { language: "de", negotiated: true });
    assert.equal(chosen("pt-BR, es;q=0.5, en;q=0.4").language, "es");
    assert.equal(chosen("fr;q=0.2, de;q=0.9").language, "de");
    assert.equal(chosen("pt, ja").language, "en");
    assert.equal(chosen("*").language, "en");
    assert.equal(chosen(";;, =").language, "en");
    assert.equal(chosen().language, "en");
  });
});
