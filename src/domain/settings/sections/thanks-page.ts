/**
 * `thankspagesettings` (docs/design.md §11): what a person sees once S2 stored their
 * submission: an inline message, or a redirect with parameters. S2 answers it; F5 returns it
 * for the hosted page, which follows it after a post.
 */
import * as v from "valibot";
import type { FormRecord } from "../../forms/form-record.ts";
import type { SettingsSection } from "./section.ts";

/** The default message of a form without `thankspagesettings`. */
export const defaultThanksMessage = "Thank you for your submission";

const url = v.pipe(
  v.string(),
  v.url("must be a URL"),
  v.regex(/^https?:/i, "must be http or https"),
);

const thanksParam = v.object({
  param_name: v.pipe(v.string(), v.minLength(1)),
  param_value_form_field_system_name: v.optional(v.string(), ""),
  param_value_fixed: v.optional(v.string(), ""),
});

const schema = v.pipe(
  v.looseObject({
    thanks_behaviour: v.optional(v.picklist(["inline_message", "url_redirect"]), "inline_message"),
    thanks_behaviour_message: v.optional(v.string()),
    thanks_behaviour_redirect_parent_page: v.optional(v.boolean(), false),
    thanks_behaviour_redirect_url: v.optional(url),
    thanks_behaviour_redirect_url_params: v.optional(v.array(thanksParam), []),
  }),
  v.forward(
    v.check(
      (s) => s.thanks_behaviour !== "url_redirect" || Boolean(s.thanks_behaviour_redirect_url),
      "is required with url_redirect",
    ),
    ["thanks_behaviour_redirect_url"],
  ),
);

/** The `thankspagesettings` section. */
export const thanksPageSettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "thankspagesettings",
  schema,
  rendered: { position: 5, value: ({ stored }) => stored },
};

interface ThanksParam {
  param_name: string;
  param_value_form_field_system_name: string;
  param_value_fixed: string;
}

interface ThanksPage {
  thanks_behaviour?: "inline_message" | "url_redirect";
  thanks_behaviour_message?: string;
  thanks_behaviour_redirect_parent_page?: boolean;
  thanks_behaviour_redirect_url?: string;
  thanks_behaviour_redirect_url_params?: ThanksParam[];
}

/**
 * The thanks-page part of the S2 answer, from the form's `thankspagesettings`: an inline
 * message by default, or a redirect with its parameters (each a form-field name or a fixed
 * value, the other empty).
 */
export function thanksPageOf(form: FormRecord) {
  const settings = (form.form_configuration[thanksPageSettings.name] ?? {}) as ThanksPage;
  const redirectParentPage = settings.thanks_behaviour_redirect_parent_page ?? false;
  if (settings.thanks_behaviour === "url_redirect") {
    return {
      thanks_behaviour: "url_redirect" as const,
      thanks_behaviour_redirect_parent_page: redirectParentPage,
      thanks_behaviour_redirect_url: settings.thanks_behaviour_redirect_url ?? "",
      thanks_behaviour_redirect_url_params: (
        settings.thanks_behaviour_redirect_url_params ?? []
      ).map((param) => ({
        param_name: param.param_name,
        param_value_form_field_system_name: param.param_value_form_field_system_name ?? "",
        param_value_fixed: param.param_value_fixed ?? "",
      })),
    };
  }
  return {
    thanks_behaviour: "inline_message" as const,
    thanks_behaviour_message: settings.thanks_behaviour_message || defaultThanksMessage,
    thanks_behaviour_redirect_parent_page: redirectParentPage,
  };
}

/**
 * Whether a form's owner wrote a thanks message of their own, read from a form configuration
 * (a stored one or F5's): when not, S2 answers {@link defaultThanksMessage}, which the hosted
 * page says in its own language (docs/design.md §21).
 */
export function ownsThanksMessage(configuration: Record<string, unknown>): boolean {
  const settings = configuration[thanksPageSettings.name] as ThanksPage | undefined;
  return Boolean(settings?.thanks_behaviour_message);
}
