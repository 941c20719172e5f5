/**
 * A form of several pages filled in as steps (docs/design.md §21): one definition page
 * (`section.step`) shown at a time, Back and Next between them, Submit on the last. A page
 * whose fields conditions all hide is skipped, and the indicator and "Step n of m" count only
 * the pages shown. Next checks the page it leaves (`check`) and stays while a field there is
 * wrong. The page's address keeps the step (`#step-N`, N the definition page's number), one
 * history entry per move, so the browser's Back and Forward move between steps.
 */

/** The steps of one form. */
export interface Steps {
  /** Whether the form is on its last shown step (Submit posts), or has no steps. */
  atEnd(): boolean;
  /** Moves on, if `check` finds nothing wrong on the step shown. */
  next(): void;
  /** Shows the step that holds `field`, when it is another. */
  reveal(field: HTMLElement): void;
}

/**
 * The steps of `form`. `check` is given the fields shown on the step being left and
 * answers whether they may be left (it shows their errors when not).
 */
export function formSteps(form: HTMLFormElement, check: (fields: HTMLElement[]) => boolean): Steps {
  const sections = [...form.querySelectorAll<HTMLElement>("section.step")];
  const back = form.querySelector<HTMLButtonElement>("#step-back");
  const forward = form.querySelector<HTMLButtonElement>("#step-next");
  const submit = form.querySelector<HTMLButtonElement>("button[type=submit]");
  const count = document.getElementById("step-count");
  const items = [...form.querySelectorAll<HTMLElement>(".steps li")];
  if (sections.length === 0) return { atEnd: () => true, next() {}, reveal() {} };

  const fieldsOf = (section: HTMLElement) => [
    ...section.querySelectorAll<HTMLElement>(".field:not([data-type=hidden])"),
  ];
  // A page is shown while one of its fields is (conditions set each field's `hidden`).
  const shown = () => sections.filter((section) => fieldsOf(section).some((f) => !f.hidden));
  let current = sections[0] as HTMLElement;

  /** The step named by the address (`#step-N`), or the first, as a shown page. */
  function fromAddress(): HTMLElement {
    const number = /^#step-(\d+)$/.exec(location.hash)?.[1];
    const named = sections.find((section) => section.dataset.step === number);
    return nearestShown(named ?? (sections[0] as HTMLElement));
  }

  /** `section` if shown, else the shown page before it, else the first shown. */
  function nearestShown(section: HTMLElement): HTMLElement {
    const open = shown();
    if (open.includes(section)) return section;
    const index = sections.indexOf(section);
    return (
      open.filter((s) => sections.indexOf(s) < index).pop() ??
      open[0] ??
      (sections[0] as HTMLElement)
    );
  }

  /** Draws `current`: its page, the indicator, the count and the buttons. */
  function draw(): void {
    const open = shown();
    const position = open.indexOf(current);
    for (const section of sections) section.hidden = section !== current;
    for (const item of items) {
      const section = sections.find((s) => s.dataset.step === item.dataset.step);
      item.hidden = !section || !open.includes(section);
      if (section === current) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
    if (count) {
      const text = (count.dataset.template ?? "")
        .replace("{step}", String(position + 1))
        .replace("{count}", String(open.length));
      if (count.textContent !== text) count.textContent = text;
    }
    const last = position === open.length - 1;
    if (back) back.hidden = position <= 0;
    if (forward) forward.hidden = last;
    if (submit) submit.hidden = !last;
  }

  /** Shows `section`; `record` adds it to the history; focus goes to its heading. */
  function go(section: HTMLElement, record: boolean, focus: boolean): void {
    current = section;
    draw();
    if (record) history.pushState(null, "", `#step-${section.dataset.step}`);
    if (!focus) return;
    const heading = section.querySelector<HTMLElement>("h2");
    const target =
      heading ??
      section.querySelector<HTMLElement>(".field:not([hidden]) :is(input, select, textarea)");
    target?.focus();
    section.scrollIntoView?.({ block: "start" });
  }

  function step(by: 1 | -1): void {
    const open = shown();
    const target = open[open.indexOf(current) + by];
    if (target) go(target, true, true);
  }

  back?.addEventListener("click", () => step(-1));
  forward?.addEventListener("click", () => steps.next());
  addEventListener("popstate", () => go(fromAddress(), false, true));
  // After live-rules.ts's listeners (added first): a change may hide or show a page.
  const redraw = () => {
    current = nearestShown(current);
    draw();
  };
  form.addEventListener("input", redraw);
  form.addEventListener("change", redraw);
  current = fromAddress();
  draw();

  const steps: Steps = {
    atEnd: () => {
      const open = shown();
      return open.indexOf(current) === open.length - 1;
    },
    next() {
      if (check(fieldsOf(current).filter((field) => !field.hidden))) step(1);
    },
    reveal(field) {
      const section = sections.find((s) => s.contains(field));
      if (section && section !== current) go(section, true, false);
    },
  };
  return steps;
}
