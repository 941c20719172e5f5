/**
 * The bodies the service answers with on success, beyond the envelopes of
 * `src/openapi/responses.ts`: lists and pages of the records of `records.ts`.
 */
import * as v from "valibot";
import { renderedSections } from "../domain/settings/index.ts";
import {
  attachmentRecord,
  customerRecord,
  datalistEntryRecord,
  datalistRecord,
  formBasicRecord,
  formSummaryRecord,
  formUserRecord,
  roleName,
  submissionRecord,
  submissionView,
  timestamps,
  webhookRecord,
} from "./records.ts";

const ids = v.array(v.string());

/**
 * A form definition as the service answers it: pages of fields, each with its system name,
 * type, label and `required`, and what its type adds (kept as it was written).
 */
export const definitionAnswer = v.looseObject({
  pages: v.array(
    v.looseObject({
      title: v.optional(v.string()),
      fields: v.array(
        v.looseObject({
          unique_system_name: v.string(),
          type: v.string(),
          label: v.string(),
          required: v.boolean(),
          options: v.optional(v.array(v.string())),
        }),
      ),
    }),
  ),
});

/** P3: the partner's customers. */
export const customerList = v.array(customerRecord);

/** F4: the caller's forms and their ids by access. */
export const formList = v.strictObject({
  results: v.array(formSummaryRecord),
  accessible_form_ids_edit_access: ids,
  accessible_form_ids_account_management_access: ids,
  accessible_form_ids_full_reporting_access: ids,
});

const section = v.optional(v.looseObject({}));

/**
 * F5: what a page needs to render the form: the definition with the options of
 * datalist-backed fields filled in, and the settings sections that drive rendering.
 */
export const renderedForm = v.strictObject({
  id: v.string(),
  form_configuration: v.strictObject({
    settings: v.strictObject({
      ...formSummaryRecord.entries.form_configuration.entries.settings.entries,
      prefill_fields: v.optional(
        v.pipe(
          v.array(v.string()),
          v.description(
            "The fields the hosted page fills in from its address's query, by system name; left out when none.",
          ),
        ),
      ),
    }),
    ...Object.fromEntries(renderedSections.map(({ name }) => [name, section])),
  }),
  form_definition: definitionAnswer,
});

/** U1: the form's users, its basics and the caller's roles. */
export const formUserList = v.strictObject({
  results: v.array(formUserRecord),
  form_document_basic: formBasicRecord,
  granted_form_roles: v.array(roleName),
});

/** D4: the caller's datalists and their ids by access. */
export const datalistList = v.strictObject({
  results: v.array(datalistRecord),
  accessible_datalist_ids_edit_access: ids,
  accessible_datalist_ids_account_management_access: ids,
  accessible_datalist_ids_full_reporting_access: ids,
});

/** D5: the ids of the inserted entry items, in order. */
export const insertedEntryIds = v.pipe(ids, v.minLength(1));

/** D7: the datalist's entry items in `sort_order`. */
export const datalistEntryList = v.strictObject({
  results: v.array(datalistEntryRecord),
  has_edit_access: v.boolean(),
});

/** S1: one submission and its attachments with signed links. */
export const submissionAnswer = v.strictObject({
  form_submission: submissionView,
  attachment_details: v.array(
    v.strictObject({ attachment: attachmentRecord, attachment_sas_uri: v.string() }),
  ),
  user_has_edit_submission_access: v.boolean(),
});

/** S5: one page of submissions, oldest first. */
export const submissionPage = v.strictObject({
  form_definition: v.optional(definitionAnswer),
  results: v.array(submissionRecord),
  attachments: v.array(attachmentRecord),
  granted_form_roles: v.array(roleName),
  container_sas_uri: v.string(),
  continuation_token: v.pipe(
    v.nullable(v.string()),
    v.description("Pass it back as `continuationToken` for the next page; null at the end."),
  ),
});

/** The history extension: a submission's edits, newest first. */
export const submissionHistory = v.strictObject({
  submission_id: v.string(),
  current_version: v.pipe(v.number(), v.integer()),
  created_date_utc: v.string(),
  dropped_versions: v.pipe(
    v.number(),
    v.integer(),
    v.description("How many of the oldest edits the history's bounds let go."),
  ),
  versions: v.array(
    v.strictObject({
      version: v.pipe(v.number(), v.integer()),
      edited_date_utc: v.string(),
      edited_by_user_id: v.string(),
      changes: v.array(
        v.strictObject({
          unique_system_name: v.string(),
          from: v.optional(v.string()),
          to: v.optional(v.string()),
        }),
      ),
      draft_cleared: v.optional(v.literal(true)),
      values_omitted: v.optional(v.literal(true)),
    }),
  ),
});

/** The audit trail extension: a page of a form's entries, newest first. */
export const auditPage = v.strictObject({
  entries: v.array(
    v.strictObject({
      id: v.string(),
      at: v.string(),
      actor: v.pipe(
        v.string(),
        v.description("A user id, `partner:<partner id>`, or `system` for the service's own work."),
      ),
      on_behalf_of: v.optional(
        v.pipe(v.string(), v.description("The customer a partner acted as, by login token.")),
      ),
      action: v.string(),
      form_id: v.string(),
      target_ids: v.array(v.string()),
      count: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.description("How many records: on S5 pages, and where the ids are cut to 100."),
        ),
      ),
      client_address: v.string(),
      request_id: v.string(),
      expires_at: v.string(),
    }),
  ),
  continuation_token: v.nullable(v.string()),
});

/** W1: the form's webhooks. */
export const webhookList = v.array(webhookRecord);

const attempt = v.strictObject({
  attempt: v.pipe(v.number(), v.integer()),
  at: v.string(),
  outcome: v.picklist(["response", "network_error", "timeout", "refused"]),
  status_code: v.optional(v.pipe(v.number(), v.integer())),
  message: v.optional(v.string()),
});

/** The deliveries extension: one page of deliveries, newest first, with every attempt. */
export const deliveryPage = v.strictObject({
  results: v.array(
    v.strictObject({
      id: v.string(),
      kind: v.optional(v.picklist(["webhook", "email", "destination"])),
      webhook_id: v.string(),
      form_id: v.string(),
      submission_id: v.string(),
      event_type: v.string(),
      payload: v.pipe(v.unknown(), v.description("The JSON body sent on every attempt.")),
      status: v.picklist(["pending", "delivered", "failed"]),
      attempts: v.array(attempt),
      ...timestamps,
    }),
  ),
  continuation_token: v.nullable(v.string()),
});

/** `/openapi.json`: an OpenAPI 3.1 document. */
export const openApiAnswer = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.record(v.string(), v.looseObject({})),
});
