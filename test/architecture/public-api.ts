/**
 * What the package's entry points expose, read with the TypeScript 5 compiler API (the
 * project compiles with TypeScript 7, which has no JS API; the typed-client generator's
 * workspace installs TypeScript 5 with `npm ci`).
 */
import { createRequire } from "node:module";
import path from "node:path";
import type * as TS from "../../examples/typed-client/generator/node_modules/typescript/lib/typescript.d.ts";

const ts = createRequire(
  new URL("../../examples/typed-client/generator/package.json", import.meta.url),
)("typescript") as typeof TS;

/** A named type or value of the project that a public export's declaration mentions. */
export interface Mention {
  name: string;
  file: string;
  by: string;
}

/** The names each entry exports, and the project's named declarations their signatures use. */
export function publicSurface(root: string, entries: string[]) {
  const program = ts.createProgram(
    entries.map((entry) => path.join(root, entry)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      customConditions: ["formwork-source"],
    },
  );
  const checker = program.getTypeChecker();
  const exported = new Map<string, string[]>();
  const exportedSymbols = new Set<TS.Symbol>();
  const roots: { symbol: TS.Symbol; by: string }[] = [];
  for (const entry of entries) {
    const source = program.getSourceFile(path.join(root, entry));
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read ${entry}`);
    const names: string[] = [];
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      names.push(symbol.name);
      const target = resolved(checker, symbol);
      exportedSymbols.add(target);
      roots.push({ symbol: target, by: `${entry}: ${symbol.name}` });
    }
    exported.set(entry, names.sort());
  }
  const mentions: Mention[] = [];
  const seen = new Set<TS.Symbol>();
  const visit = (symbol: TS.Symbol, by: string) => {
    if (seen.has(symbol)) return;
    seen.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      const walk = (node: TS.Node) => {
        // Bodies are not signatures: what a function does inside is not its public type.
        if (ts.isBlock(node) || ts.isImportDeclaration(node)) return;
        if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
          const name = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
          // `as const` is written as a reference to a type named `const`.
          const referenced =
            name.getText() === "const" ? undefined : checker.getSymbolAtLocation(name);
          if (referenced) note(resolved(checker, referenced), by);
        }
        if (ts.isTypeQueryNode(node)) {
          const referenced = checker.getSymbolAtLocation(node.exprName);
          if (referenced) note(resolved(checker, referenced), by);
        }
        ts.forEachChild(node, walk);
      };
      walk(declaration);
    }
  };
  const note = (symbol: TS.Symbol, by: string) => {
    const file = symbol.declarations?.[0]?.getSourceFile().fileName ?? "";
    const relative = path.relative(root, file);
    if (relative.startsWith("..") || relative.includes("node_modules")) return;
    if (symbol.flags & ts.SymbolFlags.TypeParameter) return;
    mentions.push({ name: symbol.name, file: relative, by });
    visit(symbol, `${by} → ${symbol.name}`);
  };
  for (const { symbol, by } of roots) visit(symbol, by);
  const unexported = mentions.filter(
    (mention) =>
      ![...exportedSymbols].some(
        (symbol) =>
          symbol.name === mention.name &&
          path.relative(root, symbol.declarations?.[0]?.getSourceFile().fileName ?? "") ===
            mention.file,
      ),
  );
  return { exported, unexported };
}

function resolved(checker: TS.TypeChecker, symbol: TS.Symbol): TS.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}
