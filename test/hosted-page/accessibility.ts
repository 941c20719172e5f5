import assert from "node:assert/strict";
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";

/** The rules axe runs: WCAG 2.0 and 2.1, levels A and AA, and its best practices. */
export const axeTags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

/** The impacts that fail a page (docs/design.md §21). */
const failing = new Set(["serious", "critical"]);

/**
 * Runs axe-core over `page` as it is now and fails, naming `label` (the state: "with errors,
 * phone", say), listing every violation of serious or critical impact: its rule, impact,
 * the selectors of the elements at fault and axe's help. Returns the milder violations.
 *
 * axe runs in the page alone ("legacy mode"), which takes half the time of its default: that
 * opens a blank page per run to gather the results of cross-origin frames. A page that frames
 * another origin (an embedding page) passes `{ frames: true }` to have those checked too.
 */
export async function assertAccessible(page: Page, label: string, options = { frames: false }) {
  const results = await new AxeBuilder({ page })
    .withTags(axeTags)
    .setLegacyMode(!options.frames)
    .analyze();
  const serious = results.violations.filter((v) => failing.has(v.impact ?? ""));
  const lines = serious.map(
    (v) =>
      `${v.id} (${v.impact}) at ${v.nodes.map((node) => node.target.join(" ")).join(", ")}: ${v.help}`,
  );
  if (lines.length > 0) {
    assert.fail(`${label}: axe found serious or critical violations:\n${lines.join("\n")}`);
  }
  return results.violations.filter((v) => !failing.has(v.impact ?? ""));
}
