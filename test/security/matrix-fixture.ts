import assert from "node:assert/strict";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createStripePayments } from "../../adapters/stripe/index.ts";
import { roleNames } from "../../src/domain/forms/roles.ts";
import { collections } from "../../src/domain/records/collections.ts";
import { outboxPartitionOf } from "../../src/domain/webhooks/webhook-outbox.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import { formInput } from "../helpers.ts";
import { type CallerKind, callerKinds, type OwnerKind } from "./matrix-callers.ts";
import {
  adminSecret,
  badAccountTokens,
  badTokens,
  callersOf,
  partnersOf,
  tokenLifetimeSeconds,
  tokenSecret,
} from "./matrix-principals.ts";
import { expectOk, type MatrixAnswer, type MatrixRequest, sendAs } from "./matrix-requests.ts";
import type { FormState } from "./matrix-rules.ts";
import {
  type Capture,
  folderSnapshot,
  type SnapshotStore,
  snapshotStore,
} from "./store-snapshot.ts";

/** The Stripe keys of the matrix's service: it verifies events, and calls Stripe for nothing. */
export const matrixStripe = { secretKey: "sk_test_matrix", webhookSecret: "whsec_matrix" };

const allFlags = roleNames.map((role) => `${role}=1`).join("&");

/** The records the routes act on: the owner's, and partner P's customer. */
export interface FixtureIds {
  formId: string;
  submissionId: string;
  attachmentId: string;
  webhookId: string;
  deliveryId: string;
  /** A finished destination post of the form (the action deliveries extension). */
  actionDeliveryId: string;
  /** A collaborator's form user security record (U3, U4). */
  userSecurityId: string;
  datalistId: string;
  entryId: string;
  /** A customer of partner P (P1, P5). */
  customerEmail: string;
  /** The stranger's own form and datalist, through which it names the owner's records. */
  strangerFormId: string;
  strangerDatalistId: string;
  /** A local account other than the owner, with one token (admin routes). */
  accountId: string;
  tokenId: string;
}

/** A fresh service holding one record of every kind, and every kind of caller. */
export interface Fixture {
  service: FormService;
  ids: FixtureIds;
  /** Everything the store and the blob folder hold, as one string. */
  snapshot(): Promise<string>;
  /** Sends `request` as `caller`. */
  send(caller: CallerKind, request: MatrixRequest): Promise<MatrixAnswer>;
  /** Remembers what the store and the blob folder hold now, for `reset`. */
  mark(): Promise<void>;
  /** Puts the store and the blob folder back as `mark` saw them. */
  reset(): Promise<void>;
  /** Closes the service and removes the blob folder. */
  close(): Promise<void>;
}

/**
 * Builds the fixture of one owner kind: the form's owner is a local account, or a paying or
 * free-trial customer of partner P.
 */
export async function buildFixture(ownerKind: OwnerKind): Promise<Fixture> {
  const { service, store, directory, clock } = await newService();
  const env = await partnersOf(service);
  const { credentials, customerEmail } = await callersOf(env, ownerKind);
  const owner = (request: MatrixRequest) => expectOk(sendAs(service, credentials.owner, request));
  const formIds = await formRecords(owner, ownerKind);
  const deliveryId = await finishDelivery(store, formIds.webhookId);
  const actionDeliveryId = await finishDelivery(store, `destination:${formIds.formId}`);
  const datalistIds = await datalistRecords(owner);
  const stranger = (request: MatrixRequest) =>
    expectOk(sendAs(service, credentials.stranger, request));
  const body = formInput("The stranger's", fields);
  const strangerFormId = (await stranger({ method: "POST", path: "/api/restricted/form", body }))
    .id;
  const strangerDatalistId = (await datalistRecords(stranger)).datalistId;
  await badTokens(
    env,
    credentials,
    ownerKind === "local" ? customerEmail : "owner@example.com",
    clock,
  );
  await badAccountTokens(service, credentials);
  for (const kind of callerKinds) assert.ok(credentials[kind], `no credentials for ${kind}`);
  const other = await service.admin.createAccount({ email: "other-account@example.com" });
  let marked: Capture = [];
  const markedFolder = `${directory}-marked`;
  return {
    service,
    ids: {
      ...formIds,
      ...datalistIds,
      deliveryId,
      actionDeliveryId,
      customerEmail,
      strangerFormId,
      strangerDatalistId,
      accountId: other.user_id,
      tokenId: other.token_id,
    },
    snapshot: async () => `${await store.snapshot()}\n${await folderSnapshot(directory)}`,
    send: (caller, request) => sendAs(service, credentials[caller], request),
    async mark() {
      marked = await store.capture();
      await rm(markedFolder, { recursive: true, force: true });
      await cp(directory, markedFolder, { recursive: true });
    },
    async reset() {
      await store.restore(marked);
      await rm(directory, { recursive: true, force: true });
      await cp(markedFolder, directory, { recursive: true });
    },
    async close() {
      await service.close();
      await rm(directory, { recursive: true, force: true });
      await rm(markedFolder, { recursive: true, force: true });
    },
  };
}

/** Puts the fixture's form in `state` (the owner's F2); "enabled" is how it is built. */
export async function setFormState(fx: Fixture, state: FormState): Promise<void> {
  if (state === "enabled") return;
  const [section, body] =
    state === "disabled"
      ? ["generalsettings", { form_name: "Matrix", is_disabled: true }]
      : ["securitysettings", { requires_login: true }];
  const path = `/api/restricted/form/${fx.ids.formId}/?updateSettingsOnly=1&settingsSection=${section}`;
  await expectOk(fx.send("owner", { method: "POST", path, body }));
}

async function newService() {
  const store = snapshotStore(createMemoryStore());
  const directory = await mkdtemp(join(tmpdir(), "formwork-matrix-"));
  const clock = { now: new Date("2026-11-20T10:00:00.000Z") };
  const now = () => clock.now;
  const blobs = createFsBlobStore({
    directory,
    storageUrl: "http://localhost/storage",
    signingSecret: "matrix signing secret",
    now,
  });
  const service = createFormService({
    store,
    blobs,
    now,
    adminSecret,
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    allowPrivateWebhookDestinations: true,
    partners: { tokenSecret, tokenLifetimeSeconds },
    rateLimits: { publicPerMinute: 0, credentialPerMinute: 0 },
    payments: createStripePayments({ ...matrixStripe, apiUrl: "http://127.0.0.1:9" }),
  });
  return { service, store, directory, clock };
}

type Owner = (request: MatrixRequest) => ReturnType<typeof expectOk>;

/** The form with its collaborators, webhook, submission and attachment. */
async function formRecords(owner: Owner, ownerKind: OwnerKind) {
  const body = formInput("Matrix", fields);
  const formId = (await owner({ method: "POST", path: "/api/restricted/form", body })).id;
  const form = `/api/restricted/form/${formId}`;
  const grant = async (email: string, flags: string) =>
    (
      await owner({
        method: "POST",
        path: `${form}/usersecurity?collaborator_email=${email}&${flags}`,
      })
    ).id;
  for (const role of roleNames) await grant(`${role}@example.com`, `${role}=1`);
  const twins = ownerKind === "local" ? ["twin-p", "twin-q"] : ["twin-local", "twin-q"];
  for (const twin of twins) await grant(`${twin}@example.com`, allFlags);
  const removedId = await grant("removed@example.com", allFlags);
  await owner({ method: "DELETE", path: `${form}/usersecurity/${removedId}` });
  const downgradedId = await grant("downgraded@example.com", allFlags);
  const downgrade = roleNames.map((role) => `${role}=${Number(role === "has_form_submission")}`);
  await owner({
    method: "POST",
    path: `${form}/usersecurity/${downgradedId}?${downgrade.join("&")}`,
  });
  const userSecurityId = await grant("target@example.com", "has_reporting_full=1");
  const hook = { webhook_name: "Hook", webhook_destination_url: "http://127.0.0.1:9/hook" };
  const webhookId = (await owner({ method: "POST", path: `${form}/submissionwebhook`, body: hook }))
    .id;
  // A destination nothing answers at: S2's post to it fails, and is left to the outbox.
  await owner({
    method: "POST",
    path: `${form}/?updateSettingsOnly=1&settingsSection=destinationsettings`,
    body: { enabled: true, destination_url: "http://127.0.0.1:9/crm" },
  });
  // The owner submits: a free-trial customer's form takes nobody else's submission.
  const upload = new FormData();
  upload.append("fil_2", new Blob(["matrix file"], { type: "text/plain" }), "notes.txt");
  const publicPath = `/api/form/${formId}`;
  const attachmentId = (
    await owner({ method: "POST", path: `${publicPath}/submissionattachment`, body: upload })
  ).id;
  const submission = submissionInput(attachmentId);
  const submissionId = (
    await owner({ method: "POST", path: `${publicPath}/submission`, body: submission })
  ).id;
  return { formId, userSecurityId, webhookId, attachmentId, submissionId };
}

/** The owner's datalist with one entry. */
async function datalistRecords(owner: Owner) {
  const body = { settings: { list_name: "Colours" } };
  const datalistId = (await owner({ method: "POST", path: "/api/restricted/datalist", body })).id;
  const entry = { entry_value: "red" };
  const path = `/api/restricted/datalist/${datalistId}/entry`;
  const [entryId] = (await owner({ method: "POST", path, body: entry })) as string[];
  return { datalistId, entryId: entryId ?? "" };
}

/** The matrix form's fields: a required text field, a file field and an e-mail field. */
const fields = [
  { unique_system_name: "gpi_1", type: "text", label: "Name", required: true },
  { unique_system_name: "fil_2", type: "file", label: "Notes", max_files: 1, max_file_size: 1000 },
  { unique_system_name: "eml_3", type: "email", label: "E-mail" },
];

/** The respondent address of the matrix submissions, as its e-mail field holds it. */
export const respondentEmail = "ada@example.com";

/** An S2 body for the matrix form. */
export function submissionInput(attachmentId?: string) {
  const form_fields = [
    { unique_system_name: "gpi_1", submitted_value: "Ada" },
    { unique_system_name: "eml_3", submitted_value: respondentEmail },
  ];
  if (attachmentId)
    form_fields.push({ unique_system_name: "fil_2", submitted_value: attachmentId });
  return { form_fields };
}

/**
 * Marks the delivery S2 queued in the log `logId` (a webhook's, or an action's) as failed,
 * as the worker would, so that it may be redelivered.
 */
async function finishDelivery(store: SnapshotStore, logId: string) {
  const { items } = await store.query<{ id: string }>(collections.webhookDeliveries, logId);
  const delivery = items[0]?.record;
  assert.ok(delivery, "S2 queued no delivery");
  await store.replace(collections.webhookDeliveries, logId, { ...delivery, status: "failed" });
  await store.delete(collections.webhookOutbox, outboxPartitionOf(delivery.id), delivery.id);
  return delivery.id;
}
