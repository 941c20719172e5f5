import { refusedPageSettings, renderFormPage } from "../domain/flows/index.ts";
import { pageMark, renderedBotProtection } from "../domain/settings/index.ts";
import { type ChosenLanguage, chooseLanguage } from "../hosted-page/language.ts";
import { closedPage, formPage, messagePage } from "../hosted-page/page.ts";
import { speechIn } from "../hosted-page/words/index.ts";
import { asServiceError } from "../http/port-failures.ts";
import type { ErrorCode } from "../kernel/errors.ts";
import type { RouteOperation } from "./operation.ts";
import { guidParam, urlOf } from "./route-request.ts";

/**
 * The hosted form page (extension): `GET /f/{formId}` answers the form as an HTML page under
 * the same access rules as F5. A form that cannot be shown answers a short HTML page with the
 * status F5 would give, rather than the JSON envelope. A form that S2 would refuse any post
 * to (past `closes_at_utc` or at `max_total_submissions`) answers a notice of S2's sentence
 * instead of the form (docs/design.md §21). The page speaks the form's
 * `generalsettings.language`, else the best of `Accept-Language` it speaks, else English
 * (`Content-Language`; `Vary: Accept-Language` when the header chose); a page with no form
 * to read (missing, bad address) follows `Accept-Language`. Every page of a form that exists
 * keeps the form's framing rule (`securitysettings.embed_origins`, see {@link htmlResponse}).
 */
export const hostedPageOperation: RouteOperation = {
  method: "get",
  path: "/f/:formId",
  operationId: "formPage",
  ref: "extension",
  summary: "The hosted form page",
  description: "An HTML page that renders the form, uploads through S3 and submits through S2.",
  tag: "Pages",
  auth: "public",
  response: { description: "The form as an HTML page.", schema: "html" },
  handler: async (request, ctx) => {
    const nonce = newNonce();
    let formId: string | undefined;
    try {
      formId = guidParam(request, "formId");
      const found = await renderFormPage(ctx, request.caller, formId);
      const { rendered, closed, embedOrigins } = found;
      const chosen = chooseLanguage(found.language, request);
      const speech = speechIn(chosen.language);
      const page = (body: string) => htmlResponse(200, body, nonce, chosen, embedOrigins);
      if (closed) return page(closedPage(rendered, closed, nonce, speech));
      const { honeypot, min_fill_seconds } = renderedBotProtection(rendered.form_configuration);
      const mark = honeypot || min_fill_seconds > 0 ? pageMark(ctx, rendered.id) : undefined;
      const query = urlOf(request).searchParams;
      return page(formPage(rendered, nonce, mark, query, speech, embedOrigins));
    } catch (error) {
      // Anything else is a fault of ours: the router logs it and answers a bare 500.
      const known = asServiceError(error);
      if (!known) throw error;
      // A form that exists but is refused keeps its language and framing rule; a missing or
      // hidden one (404) has neither, so that it answers exactly as a missing one. Should
      // they not be read, no site may frame this page: the refusal is still answered as HTML.
      const settings =
        formId && framedRefusals.has(known.code)
          ? await refusedPageSettings(ctx, formId).catch(() => ({
              language: null,
              embedOrigins: [],
            }))
          : undefined;
      const chosen = chooseLanguage(settings?.language ?? null, request);
      const speech = speechIn(chosen.language);
      const explained = explanations[known.code];
      const { title, message } = explained
        ? speech.words[explained]
        : { title: speech.words.cannotShow, message: known.message };
      const body = messagePage(title, message, nonce, speech);
      return htmlResponse(known.status, body, nonce, chosen, settings?.embedOrigins);
    }
  },
};

/** The refusals of a form that exists and that the caller may know of. */
const framedRefusals = new Set<ErrorCode>(["form_disabled", "unauthorized"]);

/** The message page, in the page's words, of each refusal that has one. */
const explanations: Partial<Record<ErrorCode, "notFound" | "badAddress" | "disabled" | "signIn">> =
  {
    not_found: "notFound",
    validation_failed: "badAddress",
    form_disabled: "disabled",
    unauthorized: "signIn",
  };

/**
 * The page's headers: a CSP that lets only this response's own inline script and style run
 * and lets them reach only this origin, no MIME sniffing, and no caching (the nonce is per
 * response). Framing: with `embedOrigins`, `frame-ancestors` those origins (`'none'` for an
 * empty list); without, no `frame-ancestors`, so that any site may frame the page.
 */
function htmlResponse(
  status: number,
  body: string,
  nonce: string,
  { language, negotiated }: ChosenLanguage,
  embedOrigins?: readonly string[],
): Response {
  const frameAncestors = embedOrigins && (embedOrigins.join(" ") || "'none'");
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    ...(frameAncestors ? [`frame-ancestors ${frameAncestors}`] : []),
  ].join("; ");
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": csp,
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
      "cache-control": "no-store",
      "content-language": language,
      ...(negotiated ? { vary: "Accept-Language" } : {}),
    },
  });
}

/** 128 random bits, base64: a CSP nonce for one response. */
function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
