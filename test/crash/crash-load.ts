/**
 * The load of the exact crash tests: clients sending S3 uploads, S2s (with a file, plain,
 * drafts), S6 edits and S7 deletes round-robin to the live instances of a cluster
 * (crash-cluster.ts), while each round kills -9 one instance (in turn) and starts it again.
 * Every answer is kept in {@link Told}: what a client was told is what the records must show
 * afterwards.
 */
import { type Cluster, progress } from "./crash-cluster.ts";
import type { Told } from "./crash-records.ts";
import { fields, type LoadedForm, maxFileBytes } from "./crash-world.ts";

/** How many answers of each kind came, e.g. `S2 200`, `S7 died`, and their milliseconds in all. */
export type Answers = Map<string, { count: number; ms: number }>;

/** An answer's status and JSON body; `undefined` when the instance died or never answered. */
type Answer = { status: number; body: Record<string, unknown> } | undefined;

/** What one client does to one form on its `n`-th turn. */
class Client {
  constructor(
    private readonly cluster: Cluster,
    private readonly answers: Answers,
    private readonly stopped: () => boolean,
  ) {}

  async send(
    op: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Answer> {
    let server = this.cluster.pick();
    while (!server) {
      if (this.stopped()) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
      server = this.cluster.pick();
    }
    let answer: Answer;
    const sent = Date.now();
    try {
      const response = await fetch(`${server.base}${path}`, {
        method,
        headers:
          body instanceof FormData ? headers : { ...headers, "content-type": "application/json" },
        body: body instanceof FormData || body === undefined ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      answer = { status: response.status, body: text ? JSON.parse(text) : {} };
    } catch {
      answer = undefined;
    }
    const kind = `${op} ${answer?.status ?? "died"}`;
    const seen = this.answers.get(kind) ?? { count: 0, ms: 0 };
    this.answers.set(kind, { count: seen.count + 1, ms: seen.ms + Date.now() - sent });
    return answer;
  }

  /** S3 of a file of some bytes; its attachment id when stored. */
  async upload(form: LoadedForm, n: number): Promise<string | undefined> {
    const body = new FormData();
    const size = 500 + ((n * 7919) % (maxFileBytes - 500));
    body.append(fields.file, new Blob([new Uint8Array(size).fill(98)]), `cv${n}.txt`);
    const answer = await this.send(
      "S3",
      "POST",
      `/api/form/${form.formId}/submissionattachment`,
      {},
      body,
    );
    return answer?.status === 200 ? (answer.body.id as string) : undefined;
  }

  /** S2; its id when acknowledged. */
  async post(form: LoadedForm, n: number, file?: string, draft = false) {
    const values = [
      { unique_system_name: fields.name, submitted_value: `n${n}` },
      { unique_system_name: fields.email, submitted_value: `s${n}@example.com` },
      ...(file ? [{ unique_system_name: fields.file, submitted_value: file }] : []),
    ];
    const answer = await this.send(
      "S2",
      "POST",
      `/api/form/${form.formId}/submission`,
      {},
      {
        form_fields: values,
        is_draft_submission: draft,
      },
    );
    return answer?.status === 200 ? (answer.body.id as string) : undefined;
  }

  /** S6 of `id` with `body`. */
  update(form: LoadedForm, id: string, body: unknown) {
    const path = `/api/restricted/form/${form.formId}/submission/${id}${form.query}`;
    return this.send("S6", "POST", path, form.auth, body);
  }

  /** S7 of `id`. */
  remove(form: LoadedForm, id: string) {
    const path = `/api/restricted/form/${form.formId}/submission/${id}${form.query}`;
    return this.send("S7", "DELETE", path, form.auth);
  }
}

/** One form under load: what its clients were told, and the submissions S6 and S7 may take. */
export interface FormLoad {
  form: LoadedForm;
  told: Told;
  /** Acknowledged submissions no S7 was sent for. */
  live: string[];
}

/**
 * Turn `n` (unique: it names the values sent), the form's `step`-th, on `load.form`: mostly
 * an upload and an S2 claiming it; else an upload left unclaimed, a plain S2, a draft then
 * the S6 that submits it, an S6 that swaps the file, an S6 of the name, or (owner's form
 * only: the partner's monthly count stays exact) an S7.
 */
async function turn(client: Client, load: FormLoad, step: number, n: number): Promise<void> {
  const { form, told, live } = load;
  const acknowledge = (id: string | undefined, file?: string) => {
    if (!id) return;
    told.submitted.set(id, file);
    live.push(id);
  };
  const some = () => live[(n * 31) % Math.max(1, live.length)];
  switch (step % 10) {
    case 0:
    case 1:
    case 2:
    case 3: {
      const file = await client.upload(form, n);
      if (file) acknowledge(await client.post(form, n, file), file);
      return;
    }
    case 4:
      await client.upload(form, n);
      return;
    case 5:
      acknowledge(await client.post(form, n));
      return;
    case 6: {
      const id = await client.post(form, n, undefined, form.kind === "local");
      acknowledge(id);
      if (id && form.kind === "local")
        await client.update(form, id, { is_draft_submission: false });
      return;
    }
    case 7: {
      const id = some();
      const file = id && (await client.upload(form, n));
      if (id && file) {
        await client.update(form, id, {
          form_fields: [{ unique_system_name: fields.file, submitted_value: file }],
        });
      }
      return;
    }
    case 8: {
      const id = some();
      if (id) {
        await client.update(form, id, {
          form_fields: [{ unique_system_name: fields.name, submitted_value: `e${n}` }],
        });
      }
      return;
    }
    default: {
      if (form.kind !== "local" || live.length === 0) return;
      const [id] = live.splice((n * 31) % live.length, 1) as [string];
      told.deleting.add(id);
      const answer = await client.remove(form, id);
      if (!answer) return;
      told.deleting.delete(id);
      if (answer.status === 200 && answer.body.form_submission_item_deleted === true) {
        told.deleted.add(id);
      }
    }
  }
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  /** Clients sending at once. */
  clients: number;
  /** Rounds: each loads for `loadMs`, then kills -9 one instance and starts it again. */
  rounds: number;
  loadMs: number;
}

/**
 * Loads the forms from `clients` clients while each round kills -9 an instance (instance
 * `round % count`) and starts it again; after the last round, loads for `loadMs` more and
 * stops. @returns the answers by kind
 */
export async function runLoad(cluster: Cluster, loads: FormLoad[], options: LoadOptions) {
  const answers: Answers = new Map();
  let stopping = false;
  const client = new Client(cluster, answers, () => stopping);
  let n = 0;
  const clients = Array.from({ length: options.clients }, async () => {
    while (!stopping) {
      const at = n++;
      const load = loads[at % loads.length] as FormLoad;
      await turn(client, load, Math.floor(at / loads.length), at);
    }
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    for (let round = 0; round < options.rounds; round++) {
      await sleep(options.loadMs);
      progress(`round ${round}: kill -9 of instance ${round % cluster.size}, ${n} turns so far`);
      await cluster.crash(round % cluster.size);
    }
    await sleep(options.loadMs);
  } finally {
    stopping = true;
    await Promise.all(clients);
  }
  return answers;
}
