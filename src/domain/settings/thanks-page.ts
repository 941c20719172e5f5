import type { FormRecord } from "../forms/form-record.ts";

/** The default message of a form without `thankspagesettings`. */
export const defaultThanksMessage = "Thank you for your submission";

interface ThanksParam {
  param_name: string;
  param_value_form_field_system_name: string;
  param_value_fixed: string;
}

interface ThanksPageSettings {
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
  const settings = (form.form_configuration.thankspagesettings ?? {}) as ThanksPageSettings;
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
