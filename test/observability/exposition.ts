/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), enough to check
 * that a scrape parses: every line a `# HELP`, a `# TYPE` or a sample of a family declared
 * before it, label values quoted with their escapes, values numbers.
 */
import assert from "node:assert/strict";

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const labelPair = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(?:,|$)/;
const suffixes: Record<string, string[]> = {
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

/**
 * The families (name → type) and samples of `text`.
 * @throws {AssertionError} on a line that is not of the format.
 */
export function parseExposition(text: string): {
  families: Map<string, string>;
  samples: Sample[];
} {
  const families = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/;
    const declared = type.exec(line);
    if (declared) {
      families.set(declared[1] as string, declared[2] as string);
      continue;
    }
    const match = sampleLine.exec(line);
    assert.ok(match, `not a line of the exposition format: ${line}`);
    const [, name = "", labelText = "", valueText = ""] = match;
    const family = [...families].find(([base, kind]) =>
      (suffixes[kind] ?? [""]).some((suffix) => name === base + suffix),
    );
    assert.ok(family, `a sample of no declared family: ${line}`);
    // Go's ParseFloat, which Prometheus reads values with, takes NaN in any case.
    const value = Number(valueText.replace(/^\+Inf$/, "Infinity").replace(/^nan$/i, "NaN"));
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(valueText), `not a number: ${line}`);
    samples.push({ name, labels: labelsOf(labelText, line), value });
  }
  return { families, samples };
}

function labelsOf(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== "") {
    const pair = labelPair.exec(rest);
    assert.ok(pair, `bad labels: ${line}`);
    const [whole, key = "", value = ""] = pair;
    labels[key] = value.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));
    rest = rest.slice(whole.length);
  }
  return labels;
}
