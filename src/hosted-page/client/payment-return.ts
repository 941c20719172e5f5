/**
 * The page a checkout sends its respondent back to (docs/design.md §26): the address carries
 * `submission`, `payment` (`paid` or `cancel`) and the submission's `token`. Instead of the
 * form, the page shows the payment's state, read from the service with the token: paid;
 * confirming (back from paying, the provider's event not in yet: asked again a bounded number
 * of times); or not completed, with a button that opens a new checkout.
 */
import { words } from "./page-words.ts";

/** How often, and how long apart, the page asks again while a payment is being confirmed. */
const confirmTries = 15;
const confirmEveryMs = 1000;

interface PaymentView {
  payment_status?: "pending" | "paid" | "expired" | "failed";
  checkout_url?: string;
}

/**
 * Shows the payment's state when the page's address is a checkout's return address.
 * @returns whether it is (the form is then hidden).
 */
export function paymentReturn(form: HTMLFormElement, thanks: HTMLElement, api: string): boolean {
  const query = new URLSearchParams(location.search);
  const submission = query.get("submission");
  const outcome = query.get("payment");
  const token = query.get("token");
  if (!submission || !token || (outcome !== "paid" && outcome !== "cancel")) return false;
  const said = words.payment;
  const address = `${api}/submission/${encodeURIComponent(submission)}/payment`;
  const credential = `?token=${encodeURIComponent(token)}`;
  const retry = document.createElement("button");
  retry.type = "button";
  retry.id = "payment-retry";
  retry.textContent = said.tryAgain;
  retry.hidden = true;
  thanks.after(retry);
  form.hidden = true;

  const show = (text: string, canRetry = false) => {
    thanks.textContent = text;
    thanks.hidden = false;
    retry.hidden = !canRetry;
  };

  async function ask(method: "GET" | "POST", path: string): Promise<PaymentView | null> {
    try {
      const response = await fetch(`${address}${path}${credential}`, { method });
      return response.ok ? ((await response.json()) as PaymentView) : null;
    } catch {
      return null;
    }
  }

  /** Says `view`'s state; `false` while it is still to be confirmed. */
  function state(view: PaymentView | null, confirming: boolean): boolean {
    const status = view?.payment_status;
    if (!status) show(said.unreached, !confirming);
    else if (status === "paid") show(said.paid);
    else if (status !== "pending") show(`${said.notCompleted} ${said.closed}`);
    else if (confirming) return false;
    else show(said.notCompleted, true);
    return true;
  }

  async function confirm() {
    show(said.confirming);
    for (let tries = 1; tries <= confirmTries; tries++) {
      if (state(await ask("GET", ""), true)) return;
      if (tries < confirmTries) await new Promise((go) => setTimeout(go, confirmEveryMs));
    }
    show(said.unconfirmed);
  }

  retry.addEventListener("click", async () => {
    retry.disabled = true;
    const view = await ask("POST", "/checkout");
    retry.disabled = false;
    const target = view?.checkout_url;
    // Web addresses only: anything else would run in this page.
    if (!target || !/^https?:\/\//i.test(target)) {
      state(view, false);
      return;
    }
    // A provider's checkout refuses to be framed: an embedded page leaves its frame.
    try {
      (window.top ?? window).location.href = target;
    } catch {
      location.href = target;
    }
  });

  thanks.focus();
  if (outcome === "paid") void confirm();
  else void ask("GET", "").then((view) => state(view, false));
  return true;
}
