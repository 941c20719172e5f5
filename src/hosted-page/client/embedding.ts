/**
 * The page in another site's frame (docs/design.md §21): it tells the framing page its
 * content height whenever that changes (`formwork:resize`) and, once S2 has stored a
 * submission, the submission's id (`formwork:submitted`), both with the form's id, so that
 * the framing page can size its `<iframe>` and react. Unframed, it does nothing.
 *
 * The messages go to the origins the form may be framed by (`data-embed-origins`, from
 * `securitysettings.embed_origins`): to the framing page's own origin when it is one of them
 * (`location.ancestorOrigins`, else the referrer's), else to each. A form any site may frame
 * posts to `"*"`: its messages carry only a height and an id, never a value the respondent
 * typed, and they go to `window.parent` alone, the page that framed this one.
 */

/** What the page script tells the framing page. */
export interface Embedding {
  /** S2 stored the submission `submissionId`. */
  submitted(submissionId: string): void;
}

const unframed: Embedding = { submitted() {} };

/** Starts telling the framing page of `form`'s page its height; see the module's comment. */
export function embedding(form: HTMLFormElement): Embedding {
  if (window.parent === window) return unframed;
  const formId = form.dataset.formId ?? "";
  const targets = targetOrigins(form.dataset.embedOrigins);
  const post = (message: Record<string, unknown>) => {
    for (const origin of targets) window.parent.postMessage(message, origin);
  };
  let posted = -1;
  new ResizeObserver(() => {
    // The root's box is the content's height (margins included), never less than it, so the
    // frame can shrink to it as well as grow.
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === posted) return;
    posted = height;
    post({ type: "formwork:resize", formId, height });
  }).observe(document.documentElement);
  return {
    submitted: (submissionId) => post({ type: "formwork:submitted", formId, submissionId }),
  };
}

/** Where the messages go: `"*"` with no list, none with an empty one (nobody may frame). */
function targetOrigins(listed: string | undefined): string[] {
  if (listed === undefined) return ["*"];
  const origins = listed.split(" ").filter(Boolean);
  const parent = location.ancestorOrigins?.[0] ?? originOf(document.referrer);
  return parent && origins.includes(parent) ? [parent] : origins;
}

function originOf(address: string): string | undefined {
  try {
    return new URL(address).origin;
  } catch {
    return undefined;
  }
}
