/**
 * The hosted page's own words (docs/design.md §21), one catalogue for every language the page
 * speaks (`pageLanguages`, the settings' list): typed so that a language missing, or missing a
 * key, fails the type check. The server draws the page with them and sends the script only its
 * language's `script` words, so the script carries none of them.
 */
import type { PageLanguage } from "../../domain/settings/index.ts";
import { de } from "./de.ts";
import { en } from "./en.ts";
import { es } from "./es.ts";
import { fr } from "./fr.ts";
import type { PageWords } from "./page-words.ts";

export { counted, fill } from "./fill.ts";
export type { Counted, PageWords, ScriptWords, SentWords } from "./page-words.ts";

/** Every language's words. */
export const pageWords: Record<PageLanguage, PageWords> = { en, de, fr, es };

/** One language's words, with the language they are in (for `lang`, plurals and numbers). */
export interface Speech {
  language: PageLanguage;
  words: PageWords;
}

/** The page's words in `language`. */
export function speechIn(language: PageLanguage): Speech {
  return { language, words: pageWords[language] };
}
