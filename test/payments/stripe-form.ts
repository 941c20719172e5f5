/**
 * Stripe's form encoding read back: `line_items[0][price_data][currency]=eur` becomes
 * `{ line_items: { "0": { price_data: { currency: "eur" } } } }` (arrays stay objects with
 * index keys; the server reads them by index).
 */
export function parseForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split("[").map((part) => part.replace(/\]$/, ""));
    let node = root;
    for (const part of path.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[path[path.length - 1] as string] = value;
  }
  return root;
}
