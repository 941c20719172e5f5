import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { bundleModule, bundlePath } from "../../scripts/bundle-client.ts";
import { clientScript } from "../../src/hosted-page/client-bundle.ts";
import { pageStyles } from "../../src/hosted-page/styles.ts";

/** What the page's own script and styles may weigh, gzipped (docs/design.md §21). */
const pageBudgetBytes = 35 * 1024;

describe("hosted page script bundle", () => {
  it("is current with its sources (npm run bundle:client rewrites it)", async () => {
    assert.equal(await readFile(bundlePath, "utf8"), await bundleModule());
  });

  it("keeps the page's script and styles under 35 KiB gzipped", (t) => {
    // The bot-protection solver is bundled into the script: counted, though it need not be.
    const script = gzipSync(clientScript).length;
    const styles = gzipSync(pageStyles).length;
    t.diagnostic(
      `page weight, gzipped: script ${script} B + styles ${styles} B = ${script + styles} B of ${pageBudgetBytes} B`,
    );
    assert.ok(script + styles <= pageBudgetBytes, `${script + styles} B gzipped`);
  });
});
