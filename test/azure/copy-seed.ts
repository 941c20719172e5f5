/**
 * A standalone server's DATA_DIR with many submissions and some files, written fast: the
 * service in this process over the lowdb store and the fs blob store in `DATA_DIR`, as the
 * standalone server lays them out, fed through `service.fetch`. Also what the standalone server
 * answers for S5, S1 and S4 afterwards, to compare with the Azure server's answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { readConfig, resolveCustomerTokenSecret } from "../../examples/standalone/config.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import { formInput, type TestUser } from "../helpers.ts";
import { customerBody } from "../partners/setup.ts";

/** How many forms the seed spreads its submissions over. */
const formCount = 10;

/** The admin secret of the seeded DATA_DIR's server (ADMIN_SECRET). */
export const seedAdminSecret = "an admin secret for the copy test";

/** What the seed wrote, and the standalone answers to compare with. */
export interface Seeded {
  alice: TestUser;
  formId: string;
  submissions: number;
  files: number;
  /** The submission S1 reads: one with a file. */
  submissionId: string;
  fileId: string;
  fileBytes: string;
  /** A partner customer's login token (P1), signed with DATA_DIR's customer-token-secret. */
  customer: PartnerCustomer;
  answers: StandaloneAnswers;
}

/** A partner customer with a form of its own, and its login token. */
export interface PartnerCustomer {
  partnerId: string;
  jwt: string;
}

/** S5's first page, S1 of one submission, the bytes behind S4's link, a customer's F4. */
export interface StandaloneAnswers {
  page: unknown;
  submission: unknown;
  download: string;
  customerForms: unknown;
}

/**
 * Writes `submissions` submissions spread over {@link formCount} forms of one owner, every
 * `fileEvery`-th with a file; the answers compared are those of the first form. Spread, as a
 * store of that size would be: S5 on the Cosmos DB stand-in sorts a partition without an index,
 * and over 10,000 items in one it takes about 11 s, past the SDK's request timeout.
 */
export async function seedDataDir(
  dataDir: string,
  submissions: number,
  fileEvery: number,
): Promise<Seeded> {
  const store = createLowdbStore({ directory: join(dataDir, "records") });
  const service = createFormService({
    store,
    blobs: createFsBlobStore({
      directory: join(dataDir, "files"),
      storageUrl: "http://localhost:3000/storage",
      signingSecret: "a signing secret for the copy test",
    }),
    adminSecret: seedAdminSecret,
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    rateLimits: { publicPerMinute: 0, credentialPerMinute: 0 },
    // As the standalone server keeps it, where the Azure server reads it too.
    partners: {
      tokenSecret: await resolveCustomerTokenSecret(readConfig({ DATA_DIR: dataDir })),
    },
  });
  try {
    const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
    const newForm = () =>
      call(service, "POST", "/api/restricted/form", alice, {
        ...formInput("Applications", [
          { unique_system_name: "name_1", type: "text", label: "Name", required: true },
          {
            unique_system_name: "cv_2",
            type: "file",
            label: "CV",
            max_files: 1,
            max_file_size: 1024,
          },
        ]),
      });
    const formIds: string[] = [];
    for (let n = 0; n < formCount; n++) formIds.push((await newForm()).id as string);
    const formId = formIds[0] as string;
    let files = 0;
    let last = { submissionId: "", fileId: "", fileBytes: "" };
    const postOne = async (n: number) => {
      const formOf = formIds[n % formCount] as string;
      const values = [{ unique_system_name: "name_1", submitted_value: `applicant ${n}` }];
      let fileId = "";
      const fileBytes = `curriculum vitae of applicant ${n}\n`;
      if (n % fileEvery === 0) {
        fileId = await upload(service, formOf, fileBytes, `cv ${n}.txt`);
        values.push({ unique_system_name: "cv_2", submitted_value: fileId });
        files++;
      }
      const posted = await call(service, "POST", `/api/form/${formOf}/submission`, undefined, {
        form_fields: values,
      });
      if (fileId && formOf === formId) {
        last = { submissionId: posted.id as string, fileId, fileBytes };
      }
    };
    let next = 0;
    const worker = async () => {
      while (next < submissions) await postOne(next++);
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const customer = await partnerCustomer(service);
    const answers = await answersOf(service, alice, formId, last, customer);
    return { alice, formId, submissions, files, ...last, customer, answers };
  } finally {
    await service.close();
    await store.close();
  }
}

/** S5's first page, S1 of `submissionId`, the file S4's link downloads, the customer's F4. */
export async function answersOf(
  service: { fetch(request: Request): Promise<Response> } | string,
  alice: TestUser,
  formId: string,
  which: { submissionId: string; fileId: string },
  customer: PartnerCustomer,
): Promise<StandaloneAnswers> {
  const restricted = `/api/restricted/form/${formId}`;
  const page = await call(service, "GET", `${restricted}/submissions?batchSize=25`, alice);
  const submission = await call(
    service,
    "GET",
    `${restricted}/submission/${which.submissionId}`,
    alice,
  );
  const link = await call(
    service,
    "GET",
    `${restricted}/submissionattachment/${which.fileId}`,
    alice,
  );
  const request = new Request(link.id as string);
  const response =
    typeof service === "string" ? await fetch(request) : await service.fetch(request);
  assert.equal(response.status, 200, `the download through ${link.id}`);
  const customerForms = await call(
    service,
    "GET",
    `/api/restricted/user/form?partnerAccountId=${customer.partnerId}`,
    { Authorization: `Bearer ${customer.jwt}` },
  );
  return { page, submission, download: await response.text(), customerForms };
}

/** A partner, a customer (P4) with a form, and the customer's login token (P1). */
async function partnerCustomer(service: FormService): Promise<PartnerCustomer> {
  const partner = await service.admin.createPartner({ name: "Acme" });
  const partnerHeaders = { PartnerId: partner.partner_id, PartnerSecret: partner.partner_secret };
  const email = "carla@example.com";
  await call(service, "POST", "/api/restricted/partner/user", partnerHeaders, customerBody(email));
  const login = await call(service, "POST", "/api/restricted/partner/userauth", {
    ...partnerHeaders,
    PartnerCustomerEmail: email,
  });
  const customer = { partnerId: partner.partner_id, jwt: login.message as string };
  await call(
    service,
    "POST",
    `/api/restricted/form?partnerAccountId=${customer.partnerId}`,
    { Authorization: `Bearer ${customer.jwt}` },
    formInput("Carla's form", []),
  );
  return customer;
}

/** Sends one request to a service in this process or at an address; answers its JSON. */
async function call(
  service: { fetch(request: Request): Promise<Response> } | string,
  method: string,
  path: string,
  as?: TestUser | Record<string, string>,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
): Promise<any> {
  const headers = new Headers(
    as && "token_id" in as ? { TokenId: as.token_id, TokenSecret: as.token_secret } : as,
  );
  if (body !== undefined) headers.set("content-type", "application/json");
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const response =
    typeof service === "string"
      ? await fetch(`${service}${path}`, init)
      : await service.fetch(new Request(`http://localhost:3000${path}`, init));
  const text = await response.text();
  assert.equal(response.status, 200, `${method} ${path}: ${text}`);
  return JSON.parse(text);
}

async function upload(service: FormService, formId: string, bytes: string, filename: string) {
  const body = new FormData();
  body.append("cv_2", new Blob([bytes], { type: "text/plain" }), filename);
  const response = await service.fetch(
    new Request(`http://localhost:3000/api/form/${formId}/submissionattachment`, {
      method: "POST",
      body,
    }),
  );
  const text = await response.text();
  assert.equal(response.status, 200, `S3: ${text}`);
  return JSON.parse(text).id as string;
}
