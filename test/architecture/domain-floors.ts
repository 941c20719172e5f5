/**
 * The floors of `src/domain` (layers.ts, `domainFloors`): a concept folder imports its own
 * folder and the floors below it, never one above; no two folders import each other; and no
 * file comes back to itself through a chain of imports, type-only imports included.
 */
import type { ImportEdge, Violation } from "./imports.ts";

const domain = "src/domain";

/** The folder of a domain file (`src/domain/forms`, or `src/domain` itself), else undefined. */
export function domainFolderOf(file: string): string | undefined {
  if (!file.startsWith(`${domain}/`)) return undefined;
  const [concept, ...rest] = file.slice(domain.length + 1).split("/");
  return rest.length === 0 ? domain : `${domain}/${concept}`;
}

/** The floor of a domain folder, counted from 0 at the bottom; files directly in src/domain stand on 0. */
function floorOf(folder: string, floors: string[]): number {
  return folder === domain ? 0 : floors.indexOf(folder.slice(domain.length + 1));
}

/** The domain files among `files` whose folder is on no floor. */
export function offFloorFiles(files: string[], floors: string[]): string[] {
  return files.filter((file) => {
    const folder = domainFolderOf(file);
    return folder !== undefined && floorOf(folder, floors) < 0;
  });
}

/** The imports between domain folders that go up a floor, or to or from a folder on none. */
export function checkFloors(edges: ImportEdge[], floors: string[]): Violation[] {
  const violations: Violation[] = [];
  for (const edge of domainEdges(edges)) {
    const from = domainFolderOf(edge.from) as string;
    const to = domainFolderOf(edge.to) as string;
    if (from === to) continue;
    const [fromFloor, toFloor] = [floorOf(from, floors), floorOf(to, floors)];
    if (fromFloor < 0 || toFloor < 0) {
      const stray = fromFloor < 0 ? from : to;
      violations.push({ edge, problem: `${stray} is on no floor of domainFloors` });
    } else if (toFloor > fromFloor) {
      violations.push({ edge, problem: `${from} may not import ${to}, a floor above it` });
    }
  }
  return violations;
}

/** The pairs of domain folders that import each other, each as `[a, b]` with a < b. */
export function twoWayPairs(edges: ImportEdge[]): [string, string][] {
  const arrows = new Set<string>();
  for (const edge of domainEdges(edges)) {
    const [from, to] = [domainFolderOf(edge.from), domainFolderOf(edge.to)];
    if (from !== to) arrows.add(`${from} ${to}`);
  }
  const pairs: [string, string][] = [];
  for (const arrow of arrows) {
    const [from, to] = arrow.split(" ") as [string, string];
    if (from < to && arrows.has(`${to} ${from}`)) pairs.push([from, to]);
  }
  return pairs.sort();
}

/**
 * The circles among the domain's files: each strongly connected component of more than one
 * file (or a file that imports itself), its files sorted. Tarjan's algorithm, one pass.
 */
export function fileCircles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of domainEdges(edges)) {
    next.set(from, (next.get(from) ?? new Set()).add(to));
    if (!next.has(to)) next.set(to, new Set());
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) visit(to);
      if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)?.has(file)) circles.push(component.sort());
  };
  for (const file of [...next.keys()].sort()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

function domainEdges(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((edge) => domainFolderOf(edge.from) && domainFolderOf(edge.to));
}
