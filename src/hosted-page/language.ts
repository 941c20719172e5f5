/**
 * Which language the hosted page speaks to one request (docs/design.md §21): the form's
 * `generalsettings.language` when it names one, else the best of the request's
 * `Accept-Language` that the page speaks (negotiated by `negotiator`, the package Express's
 * `req.acceptsLanguages` uses: quality values, `de-CH` served by `de`), else English.
 */
import Negotiator from "negotiator";
import { type PageLanguage, pageLanguages } from "../domain/settings/index.ts";

/** The page's language, and whether the request's `Accept-Language` chose it. */
export interface ChosenLanguage {
  language: PageLanguage;
  /** True when no form setting fixed it: the answer then varies with `Accept-Language`. */
  negotiated: boolean;
}

/** The page's language from the form's setting (`null`: none) and the request's header. */
export function chooseLanguage(setting: PageLanguage | null, request: Request): ChosenLanguage {
  if (setting) return { language: setting, negotiated: false };
  const accept = request.headers.get("accept-language");
  const [best] = accept
    ? new Negotiator({ headers: { "accept-language": accept } }).languages([...pageLanguages])
    : [];
  const language = pageLanguages.find((spoken) => spoken === best) ?? pageLanguages[0];
  return { language, negotiated: true };
}
