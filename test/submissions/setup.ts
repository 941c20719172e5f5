import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import type { FormServiceOptions } from "../../src/index.ts";
import { conformingFetch, formInput, setup, type TestUser } from "../helpers.ts";

/** Every field type of docs/design.md §5, as one form. */
export const allFields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true, max_length: 20 },
  { unique_system_name: "about_2", type: "textarea", label: "About" },
  { unique_system_name: "email_3", type: "email", label: "E-mail" },
  { unique_system_name: "age_4", type: "number", label: "Age", min: 0, max: 130 },
  { unique_system_name: "born_5", type: "date", label: "Born" },
  { unique_system_name: "size_6", type: "select", label: "Size", options: ["S", "M", "L"] },
  { unique_system_name: "tone_7", type: "radio", label: "Tone", options: ["warm", "cold"] },
  { unique_system_name: "likes_8", type: "checkbox", label: "Likes", options: ["a", "b", "c"] },
  {
    unique_system_name: "cv_9",
    type: "file",
    label: "CV",
    max_files: 2,
    max_file_size: 1000,
    accept: [".txt", "image/*"],
  },
];

/** A service with the fs blob store in a fresh folder, a clock the test moves, and a form. */
export async function withFiles(options: Partial<FormServiceOptions> = {}) {
  const directory = await mkdtemp(join(tmpdir(), "formwork-files-"));
  after(() => rm(directory, { recursive: true, force: true }));
  const clock = { now: new Date("2026-11-01T10:00:00.000Z") };
  const now = () => clock.now;
  const blobs = createFsBlobStore({
    directory,
    storageUrl: "http://localhost/storage",
    signingSecret: "test signing secret",
    now,
  });
  const env = await setup({ blobs, now, sweepIntervalMs: 0, ...options });
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Job application", allFields),
  });
  assert.equal(created.status, 200);
  const formId: string = created.body.id;
  const tick = (ms = 1000) => {
    clock.now = new Date(clock.now.getTime() + ms);
  };
  return { ...env, alice, formId, clock, tick, directory, blobs };
}

export type FilesEnv = Awaited<ReturnType<typeof withFiles>>;

/** Uploads one file through S3 as a real multipart request. */
export async function upload(
  env: FilesEnv,
  part: {
    field?: string;
    bytes?: Uint8Array<ArrayBuffer> | string;
    filename?: string;
    type?: string;
  },
  options: { formId?: string; as?: TestUser; headers?: Record<string, string> } = {},
) {
  const form = new FormData();
  const blob = new Blob([part.bytes ?? "hello file"], { type: part.type ?? "text/plain" });
  form.append(part.field ?? "cv_9", blob, part.filename ?? "cv.txt");
  const headers = new Headers(options.headers);
  if (options.as) {
    headers.set("TokenId", options.as.token_id);
    headers.set("TokenSecret", options.as.token_secret);
  }
  const response = await conformingFetch(env.service)(
    new Request(`http://localhost/api/form/${options.formId ?? env.formId}/submissionattachment`, {
      method: "POST",
      body: form,
      headers,
    }),
  );
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Posts a submission (S2) with the given values. */
export function submit(
  env: FilesEnv,
  values: Record<string, string>,
  options: { draft?: boolean; as?: TestUser; formId?: string } = {},
) {
  const form_fields = Object.entries(values).map(([unique_system_name, submitted_value]) => ({
    unique_system_name,
    submitted_value,
  }));
  const body: Record<string, unknown> = { form_fields };
  if (options.draft !== undefined) body.is_draft_submission = options.draft;
  return env.call("POST", `/api/form/${options.formId ?? env.formId}/submission`, {
    as: options.as,
    body,
  });
}

/** Fetches a URL through the service, as a browser following a link would. */
export async function download(env: FilesEnv, url: string) {
  const response = await conformingFetch(env.service)(new Request(url));
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}
