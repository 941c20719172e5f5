/**
 * README's walk-through with curl, written with the generated types (`schema.d.ts`) and
 * openapi-fetch: every path, parameter, body and answer below is checked by TypeScript
 * against Formwork's OpenAPI document.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./schema.d.ts";

/** A typed client of a Formwork service at `baseUrl` (the base path included). */
export function formworkClient(
  baseUrl: string,
  fetch?: (request: Request) => Promise<Response>,
): Client<paths> {
  return createClient<paths>({ baseUrl, ...(fetch ? { fetch } : {}) });
}

/** What an openapi-fetch call answered: its data, or an error naming the failure. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    const failure = JSON.stringify(result.error);
    throw new Error(`${result.response.url} answered ${result.response.status}: ${failure}`);
  }
  return result.data;
}

/** What the walk-through made and read, for whoever runs it to look at. */
export interface WalkThroughResult {
  cities: string[];
  formName: string;
  submissionId: string;
  submittedValues: Record<string, string>;
  downloadLink: string;
}

/**
 * The README's walk-through: an account from the admin API, a datalist with two entries, a
 * form whose select takes its options from it, a thanks-page setting, a collaborator and a
 * change of their roles, an upload and a submission naming it, the submissions listed and a
 * temporary link to the file.
 */
export async function walkThrough(
  client: Client<paths>,
  adminSecret: string,
): Promise<WalkThroughResult> {
  const account = ok(
    await client.POST("/api/admin/accounts", {
      body: { email: "you@example.com" },
      headers: { AdminSecret: adminSecret },
    }),
  );
  const headers = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const list = ok(
    await client.POST("/api/restricted/datalist", {
      body: { settings: { list_name: "Cities", list_description: "Where you live" } },
      headers,
    }),
  );
  const datalistId = { datalistId: list.id };
  ok(
    await client.POST("/api/restricted/datalist/{datalistId}/entry", {
      params: { path: datalistId },
      body: [{ entry_value: "Auckland" }, { entry_value: "Wellington" }],
      headers,
    }),
  );
  const entries = ok(
    await client.GET("/api/restricted/datalist/{datalistId}/entries", {
      params: { path: datalistId },
      headers,
    }),
  );
  const formId = await createForm(client, headers, list.id);
  const form = { path: { formId } };
  const rendered = ok(await client.GET("/api/form/{formId}", { params: form }));
  ok(
    await client.POST("/api/restricted/form/{formId}/", {
      params: {
        ...form,
        query: { updateSettingsOnly: "1", settingsSection: "thankspagesettings" },
      },
      body: { thanks_behaviour: "inline_message", thanks_behaviour_message: "Thanks!" },
      headers,
    }),
  );
  ok(await client.GET("/api/restricted/user/form", { headers }));
  await addCollaborator(client, headers, formId);
  const { submissionId, downloadLink } = await submit(client, headers, formId);
  const read = ok(
    await client.GET("/api/restricted/form/{formId}/submission/{submissionId}", {
      params: { path: { formId, submissionId } },
      headers,
    }),
  );
  return {
    cities: entries.results.map((entry) => entry.entry_value),
    formName: rendered.form_configuration.settings.form_name,
    submissionId,
    submittedValues: Object.fromEntries(
      read.form_submission.form_fields.map((f) => [f.unique_system_name, f.submitted_value]),
    ),
    downloadLink,
  };
}

type Headers = { TokenId: string; TokenSecret: string };

async function createForm(client: Client<paths>, headers: Headers, datalistId: string) {
  const created = ok(
    await client.POST("/api/restricted/form", {
      body: {
        form_configuration: { settings: { form_name: "Contact us", form_type: "classicsingle" } },
        form_definition: {
          pages: [
            {
              title: "You",
              fields: [
                { unique_system_name: "gpi_1", type: "text", label: "Name", required: true },
                { unique_system_name: "gpi_2", type: "email", label: "E-mail" },
                {
                  unique_system_name: "gpi_3",
                  type: "select",
                  label: "City",
                  datalist_id: datalistId,
                },
                { unique_system_name: "gpi_4", type: "file", label: "CV", max_file_size: 5000000 },
              ],
            },
          ],
        },
      },
      headers,
    }),
  );
  return created.id;
}

async function addCollaborator(client: Client<paths>, headers: Headers, formId: string) {
  const added = ok(
    await client.POST("/api/restricted/form/{formId}/usersecurity", {
      params: {
        path: { formId },
        query: { collaborator_email: "colleague@example.com", has_reporting_full: "1" },
      },
      headers,
    }),
  );
  ok(
    await client.GET("/api/restricted/form/{formId}/usersecurity", {
      params: { path: { formId } },
      headers,
    }),
  );
  ok(
    await client.POST("/api/restricted/form/{formId}/usersecurity/{userSecurityId}", {
      params: {
        path: { formId, userSecurityId: added.id },
        query: { has_reporting_full: "1", has_form_editor: "1" },
      },
      headers,
    }),
  );
}

async function submit(client: Client<paths>, headers: Headers, formId: string) {
  const upload = new FormData();
  upload.append("gpi_4", new Blob(["my curriculum vitae\n"], { type: "text/plain" }), "cv.txt");
  const file = ok(
    await client.POST("/api/form/{formId}/submissionattachment", {
      params: { path: { formId } },
      // openapi-fetch sends a FormData body as it is, with its multipart boundary.
      body: upload as unknown as Record<string, string>,
      bodySerializer: (body) => body as unknown as FormData,
    }),
  );
  const posted = ok(
    await client.POST("/api/form/{formId}/submission", {
      params: { path: { formId } },
      body: {
        form_fields: [
          { unique_system_name: "gpi_1", submitted_value: "Ada" },
          { unique_system_name: "gpi_3", submitted_value: "Wellington" },
          { unique_system_name: "gpi_4", submitted_value: file.id },
        ],
      },
    }),
  );
  ok(
    await client.GET("/api/restricted/form/{formId}/submissions", {
      params: { path: { formId }, query: { batchSize: "10" } },
      headers,
    }),
  );
  const link = ok(
    await client.GET("/api/restricted/form/{formId}/submissionattachment/{attachmentId}", {
      params: { path: { formId, attachmentId: file.id } },
      headers,
    }),
  );
  return { submissionId: posted.id, downloadLink: link.id };
}
