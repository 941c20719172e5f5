import * as v from "valibot";
import { formDefinitionSchema, formTypes } from "../domain/forms/index.ts";
import { nameSchema } from "./common.ts";

/** Body of the form create and whole-update extensions (docs/design.md §4). */
export const formBody = v.object({
  form_configuration: v.object({
    settings: v.object({
      form_name: nameSchema,
      form_description: v.optional(v.pipe(v.string(), v.maxLength(5000))),
      form_type: v.picklist(formTypes, `must be one of ${formTypes.join(", ")}`),
    }),
  }),
  form_definition: v.optional(formDefinitionSchema, { pages: [] }),
});
