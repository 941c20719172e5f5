/**
 * The hosted form page's style sheet, inlined under the page's CSP nonce: system fonts, one
 * readable column, visible focus, and colours that keep WCAG AA contrast (text at 4.5:1,
 * borders and the focus ring at 3:1 at least). A date's calendar button, a stop of its own in
 * Chromium's tab order, outlines its input (docs/design.md §21).
 */
export const pageStyles = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1b1f24;
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 40rem; margin: 2rem auto; padding: 2rem; background: #fff;
  border-radius: 8px; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.12); }
h1 { margin: 0 0 0.5rem; font-size: 1.75rem; line-height: 1.2; }
h2 { margin: 2rem 0 1rem; font-size: 1.25rem; border-bottom: 1px solid #d0d5dc; padding-bottom: 0.25rem; }
.description { margin: 0 0 1.5rem; color: #444c56; }
.field { margin: 0 0 1.25rem; }
.field[data-type="hidden"] { margin: 0; }
.hp { position: absolute; left: -10000px; top: auto; width: 1px; height: 1px; overflow: hidden; }
label, legend { display: block; font-weight: 600; margin-bottom: 0.25rem; }
fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
legend { padding: 0; }
.choice { display: flex; align-items: center; gap: 0.5rem; margin: 0.25rem 0; }
.choice label { font-weight: 400; margin: 0; }
.choice input { width: 1.1rem; height: 1.1rem; margin: 0; }
input[type="text"], input[type="email"], input[type="number"], input[type="date"], textarea, select {
  width: 100%; padding: 0.5rem 0.625rem; border: 1px solid #6e7781; border-radius: 6px;
  font: inherit; color: inherit; background: #fff; }
input[type="file"] { font: inherit; }
:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
input[type="date"]:focus-within:not(:focus) { outline: 3px solid #0969da; outline-offset: 2px; }
.field [aria-invalid="true"] { border-color: #cf222e; box-shadow: 0 0 0 1px #cf222e; }
.mark { color: #cf222e; margin-left: 0.25rem; }
.hint { margin: 0 0 0.375rem; color: #57606a; font-size: 0.875rem; }
.error { margin: 0.375rem 0 0; color: #cf222e; font-weight: 600; font-size: 0.9375rem; }
.alert { margin: 1rem 0; padding: 0.75rem 1rem; border-radius: 6px; background: #ffebe9;
  border: 1px solid #ff8182; }
.alert p { margin: 0; }
.error-links { margin: 0.5rem 0 0; padding-left: 1.25rem; }
.error-links a { color: #a40e26; font-weight: 600; }
.calculated { display: block; min-height: 2.5rem; padding: 0.5rem 0.625rem; border-radius: 6px;
  background: #f4f5f7; font-weight: 600; font-variant-numeric: tabular-nums; }
.notice { margin: 1rem 0 0; padding: 0.75rem 1rem; border-radius: 6px; background: #f4f5f7;
  border: 1px solid #d0d5dc; }
.uploads { list-style: none; margin: 0.5rem 0 0; padding: 0; }
.uploads li { display: grid; grid-template-columns: 1fr 10rem; gap: 0.25rem 0.75rem;
  align-items: center; font-size: 0.9375rem; margin-bottom: 0.25rem; }
.uploads progress { width: 100%; }
.uploads [data-state="failed"] { color: #cf222e; }
button { margin-top: 0.5rem; padding: 0.625rem 1.5rem; border: 0; border-radius: 6px;
  background: #1f6feb; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button:disabled { background: #8c959f; cursor: wait; }
button.secondary { background: #fff; color: #1f6feb; box-shadow: inset 0 0 0 1px #1f6feb; }
.step-buttons { display: flex; flex-wrap: wrap; gap: 0.75rem; justify-content: space-between; }
.step-buttons button[type="submit"], #step-next { margin-left: auto; }
.steps ol { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 1rem 0 0; padding: 0;
  list-style: none; font-size: 0.875rem; color: #57606a; }
.steps li[aria-current="step"] { color: #1b1f24; font-weight: 600; text-decoration: underline;
  text-underline-offset: 0.3em; }
.step-count { margin: 0.25rem 0 0; font-size: 0.875rem; color: #57606a; }
.step > h2:first-child { margin-top: 1.5rem; }
.thanks { font-size: 1.25rem; padding: 1rem 0; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
[hidden] { display: none !important; }
`;
