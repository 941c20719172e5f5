/**
 * The hosted form page's script (the entry point bundled into the page by
 * scripts/bundle-client.ts): it applies the form's rules live (live-rules.ts), uploads each
 * chosen file through S3 (one XMLHttpRequest per file, for its upload progress), submits the
 * visible fields' values through S2, shows S2's validation issues beside their fields, and
 * then shows the thanks message or follows the redirect. It calls the API beside the page
 * (`<base>/f/<id>` → `<base>/api/form/<id>/…`), so it works under any mount path.
 *
 * For the form's bot protections it sends the page's signed mark of when it was served
 * (`Formwork-Page`) and the honeypot's value, if a bot filled it (`Formwork-Honeypot`), with
 * S2; and when the form needs a challenge, it fetches one and solves it (ALTCHA, with
 * altcha-lib's solver) before each S3 and S2, as each solution is good for one request.
 *
 * A form of several pages is filled in as steps (steps.ts): Enter and Next move on once the
 * step's fields pass the page's checks, and Submit posts on the last. In another site's
 * frame, it tells the framing page its height and each submission's id (embedding.ts).
 * Back from a paying form's checkout, it shows the payment's state (payment-return.ts).
 */
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/web/sha";
import { embedding } from "./embedding.ts";
import { fieldErrors } from "./field-errors.ts";
import { applyRules, currentValue, type PageRules } from "./live-rules.ts";
import { say, sayCount, words } from "./page-words.ts";
import { paymentReturn } from "./payment-return.ts";
import { formSteps, type Steps } from "./steps.ts";

interface Answer {
  id?: string;
  message?: string;
  issues?: { path: string; message: string }[];
  thanks_behaviour?: string;
  thanks_behaviour_message?: string;
  thanks_behaviour_redirect_url?: string;
  thanks_behaviour_redirect_parent_page?: boolean;
  thanks_behaviour_redirect_url_params?: {
    param_name: string;
    param_value_form_field_system_name?: string;
    param_value_fixed?: string;
  }[];
}

const form = document.getElementById("formwork-form") as HTMLFormElement | null;
if (form) start(form);

function parse<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function start(form: HTMLFormElement): void {
  const base = location.pathname.replace(/\/f\/[^/]*\/?$/, "");
  const api = `${base}/api/form/${encodeURIComponent(form.dataset.formId ?? "")}`;
  const thanks = document.getElementById("thanks") as HTMLElement;
  const button = form.querySelector("button[type=submit]") as HTMLButtonElement;
  const uploads = new Map<string, Promise<string | null>[]>();
  const rules = parse<PageRules>(document.getElementById("formwork-rules")?.textContent ?? "");
  applyRules(form, rules ?? {});
  let steps: Steps | undefined;
  const errors = fieldErrors(form, (field) => steps?.reveal(field));
  const setError = errors.set;
  const embedded = embedding(form);
  // Back from a paying form's checkout: the page shows the payment, not the form.
  if (paymentReturn(form, thanks, api)) return;

  /** The headers of S2 and S3 for the form's bot protections. */
  async function botHeaders(post: boolean): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    if (post && form.dataset.pageMark) headers["Formwork-Page"] = form.dataset.pageMark;
    const trap = form.querySelector<HTMLInputElement>("#hp-website");
    if (post && trap?.value) headers["Formwork-Honeypot"] = trap.value;
    if (form.dataset.challenge !== undefined) headers.Altcha = await solvedChallenge();
    return headers;
  }

  /** A solved challenge of the service, as the `Altcha` header carries it. */
  async function solvedChallenge(): Promise<string> {
    const response = await fetch(`${api}/challenge`);
    if (!response.ok) throw new Error("no challenge");
    const challenge = await response.json();
    const solution = await solveChallenge({ challenge, deriveKey });
    if (!solution) throw new Error("unsolved challenge");
    return btoa(JSON.stringify({ challenge, solution }));
  }

  const fields = () => [...form.querySelectorAll<HTMLElement>(".field")];
  const fieldOf = (name: string) => fields().find((f) => f.dataset.name === name);
  const controls = (field: HTMLElement) =>
    field.querySelectorAll<HTMLElement>("input, select, textarea");

  // Next leaves a step only when its shown fields pass the checks S2 would make.
  steps = formSteps(form, (shown) => {
    const first = errors.checkNow(shown);
    if (!first) return true;
    errors.alert(words.fixFields, true);
    controls(first)[0]?.focus();
    return false;
  });

  const showAlert = (message: string) => errors.alert(message);

  async function upload(name: string, file: File, list: HTMLElement): Promise<string | null> {
    const item = document.createElement("li");
    const label = document.createElement("span");
    const bar = document.createElement("progress");
    item.dataset.state = "uploading";
    label.textContent = file.name;
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", say(words.uploadOf, { file: file.name }));
    item.append(label, bar);
    list.append(item);
    let headers: Record<string, string>;
    try {
      headers = await botHeaders(false);
    } catch {
      item.dataset.state = "failed";
      label.textContent = say(words.uploadUnprepared, { file: file.name });
      return null;
    }
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      const fail = (message: string) => {
        item.dataset.state = "failed";
        label.textContent = message;
        resolve(null);
      };
      xhr.open("POST", `${api}/submissionattachment`);
      for (const [header, value] of Object.entries(headers)) xhr.setRequestHeader(header, value);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) bar.value = Math.floor((event.loaded / event.total) * 99);
      };
      xhr.onload = () => {
        const body = parse<{ id?: string; message?: string }>(xhr.responseText);
        if (xhr.status !== 200 || !body?.id) {
          const status = String(xhr.status);
          fail(
            body?.message
              ? `${file.name}: ${body.message}`
              : say(words.uploadFailed, { file: file.name, status }),
          );
          return;
        }
        bar.value = 100;
        item.dataset.state = "done";
        resolve(body.id);
      };
      xhr.onerror = () => fail(say(words.uploadUnreached, { file: file.name }));
      const data = new FormData();
      data.append(name, file, file.name);
      xhr.send(data);
    });
  }

  function chooseFiles(input: HTMLInputElement) {
    const field = input.closest(".field") as HTMLElement;
    const name = field.dataset.name ?? "";
    const list = field.querySelector(".uploads") as HTMLElement;
    const files = [...(input.files ?? [])];
    const maxFiles = Number(input.dataset.maxFiles) || Number.POSITIVE_INFINITY;
    const maxSize = Number(input.dataset.maxFileSize) || Number.POSITIVE_INFINITY;
    const tooBig = files.filter((file) => file.size > maxSize);
    list.textContent = "";
    uploads.set(name, []);
    setError(field, "");
    if (files.length > maxFiles) {
      return setError(field, sayCount(words.tooManyChosen, maxFiles), null, true);
    }
    if (tooBig[0])
      return setError(field, say(words.fileTooLarge, { file: tooBig[0].name }), null, true);
    uploads.set(
      name,
      files.map((file) => upload(name, file, list)),
    );
  }

  async function submittedValue(field: HTMLElement): Promise<string | null> {
    if (field.dataset.type !== "file") return currentValue(field);
    const ids = await Promise.all(uploads.get(field.dataset.name ?? "") ?? []);
    if (!ids.includes(null)) return ids.join("|");
    setError(field, words.fileNotUploaded);
    return null;
  }

  function redirectUrl(answer: Answer, values: Record<string, string>): string | null {
    if (!answer.thanks_behaviour_redirect_url) return null;
    let url: URL;
    try {
      url = new URL(answer.thanks_behaviour_redirect_url, location.href);
    } catch {
      return null;
    }
    // Web addresses only: a javascript: URL from the settings would run in this page.
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    for (const param of answer.thanks_behaviour_redirect_url_params ?? []) {
      const from = param.param_value_form_field_system_name;
      url.searchParams.append(
        param.param_name,
        (from ? values[from] : param.param_value_fixed) || "",
      );
    }
    return url.href;
  }

  function thank(answer: Answer, values: Record<string, string>) {
    const target = answer.thanks_behaviour === "url_redirect" && redirectUrl(answer, values);
    if (target && answer.thanks_behaviour_redirect_parent_page) {
      try {
        (window.top ?? window).location.href = target;
        return;
      } catch {
        // Cross-origin parent: follow the redirect in this frame instead.
      }
    }
    if (target) {
      location.href = target;
      return;
    }
    form.hidden = true;
    const message = answer.thanks_behaviour_message;
    thanks.textContent = (message && (words.answers[message] ?? message)) || words.thanks;
    thanks.hidden = false;
    thanks.focus();
  }

  function showIssues(answer: Answer | null) {
    let first: HTMLElement | null = null;
    const others: string[] = [];
    for (const issue of answer?.issues ?? []) {
      const field = fieldOf(issue.path);
      if (!field) {
        others.push(`${issue.path} ${issue.message}`);
        continue;
      }
      errors.issue(field, issue.message);
      first ??= field;
    }
    const message = answer?.message;
    const summary = first
      ? words.fixFields
      : (message && (words.answers[message] ?? message)) || words.notSent;
    errors.alert([summary, ...others].join(" "), others.length === 0 && first !== null);
    errors.failed();
    if (first) {
      steps?.reveal(first);
      controls(first)[0]?.focus();
    }
  }

  async function send() {
    const values: Record<string, string> = {};
    let failed = false;
    showAlert("");
    for (const field of fields()) setError(field, "");
    // S2 evaluates the rules over what it is sent, as the page did over what it shows: a
    // hidden field's value is sent (a calculation may read it) and S2 drops it; a hidden
    // file field's uploads are not.
    for (const field of fields().filter((f) => !f.hidden || f.dataset.type !== "file")) {
      const value = await submittedValue(field);
      if (value === null) failed = true;
      else if (value !== "") values[field.dataset.name ?? ""] = value;
    }
    if (failed) {
      errors.alert(words.fixFields, true);
      return errors.failed();
    }
    const formFields = Object.entries(values).map(([name, value]) => ({
      unique_system_name: name,
      submitted_value: value,
    }));
    let response: Response;
    try {
      response = await fetch(`${api}/submission`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(await botHeaders(true)) },
        body: JSON.stringify({ form_fields: formFields }),
      });
    } catch {
      return showAlert(words.offline);
    }
    const answer = parse<Answer>(await response.text());
    if (response.ok && answer) {
      if (answer.id) embedded.submitted(answer.id);
      thank(answer, values);
    } else showIssues(answer);
  }

  form.addEventListener("change", (event) => {
    const target = event.target as HTMLInputElement;
    if (target.type === "file") chooseFiles(target);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // Enter in a field of an earlier step moves on, as Next does; only the last step posts.
    if (steps && !steps.atEnd()) return steps.next();
    button.disabled = true;
    void send().finally(() => {
      button.disabled = false;
    });
  });
}
