/**
 * The page's words in the script (docs/design.md §21): the server sends its language's
 * (`#formwork-words`, words/page-words.ts `SentWords`), so the script carries no language of
 * its own. A field's problem is said from its code (src/rules/field-problems.ts); an issue
 * S2 answered is read back into its code, and one this page does not know is shown as S2
 * wrote it.
 */
import { type FieldProblem, readProblem } from "../../rules/field-problems.ts";
import { counted, fill } from "../words/fill.ts";
import type { Counted, SentWords } from "../words/page-words.ts";

function read(): SentWords {
  try {
    return JSON.parse(document.getElementById("formwork-words")?.textContent ?? "");
  } catch {
    return { answers: {} } as SentWords;
  }
}

/** The words of the page's language. */
export const words: SentWords = read();

/** The page's language, as `<html lang>` says. */
const language = document.documentElement.lang || "en";

/** `text` with its `{name}`s filled in. */
export const say = fill;

/** The text of `text` for `count`, filled in. */
export function sayCount(text: Counted, count: number, values?: Record<string, string>): string {
  return counted(text, count, language, values);
}

/** `problem` of the field named `label`, in the page's words. */
export function problemWords(problem: FieldProblem, label: string): string {
  const values = { ...problem, label };
  const text = words.problems[problem.code];
  if (typeof text === "string") return fill(text, values);
  return counted(text, "max" in problem ? problem.max : 0, language, values);
}

/**
 * S2's issue `message` about the field named `label`, in the page's words when the page
 * knows it, with the problem it read (`null`: shown as S2 wrote it).
 */
export function issueWords(message: string, label: string) {
  const problem = readProblem(message);
  const text = problem ? problemWords(problem, label) : `${label} ${message}`;
  return { text, problem };
}
