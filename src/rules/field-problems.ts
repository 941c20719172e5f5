/**
 * What can be wrong with one field's value, by code (docs/design.md §5, §21): S2 says each
 * problem in the English sentence {@link problemText} writes, and the hosted page says it in
 * the respondent's language from the same code. {@link readProblem} reads S2's sentence back
 * into its code, so that the page can say an issue S2 answered in its own words. Pure: it
 * runs in the browser too.
 */

/** A problem with a field's value, with the numbers or option its sentence names. */
export type FieldProblem =
  | { code: "required" }
  | { code: "too_long"; max: number }
  | { code: "not_email" }
  | { code: "not_number" }
  | { code: "too_small"; min: number }
  | { code: "too_large"; max: number }
  | { code: "not_date" }
  | { code: "not_attachments" }
  | { code: "repeated_attachment" }
  | { code: "too_many_files"; max: number }
  | { code: "not_an_option" }
  | { code: "repeated_option" }
  | { code: "sold_out"; option: string };

/** The codes of {@link FieldProblem}. */
export type ProblemCode = FieldProblem["code"];

/** S2's sentence for `problem`, after the field's name ("is required"). */
export function problemText(problem: FieldProblem): string {
  switch (problem.code) {
    case "required":
      return "is required";
    case "too_long":
      return `must be at most ${problem.max} characters`;
    case "not_email":
      return "must be an e-mail address";
    case "not_number":
      return "must be a number";
    case "too_small":
      return `must be at least ${problem.min}`;
    case "too_large":
      return `must be at most ${problem.max}`;
    case "not_date":
      return "must be a date written YYYY-MM-DD";
    case "not_attachments":
      return "must be attachment ids joined by |";
    case "repeated_attachment":
      return "names an attachment more than once";
    case "too_many_files":
      return `must hold at most ${problem.max} files`;
    case "not_an_option":
      return "is not one of the options";
    case "repeated_option":
      return "names an option more than once";
    case "sold_out":
      return `${problem.option} is sold out`;
  }
}

/** The problems whose sentence names nothing but the problem. */
type PlainProblem = Exclude<FieldProblem, { max: number } | { min: number } | { option: string }>;

const plainCodes: PlainProblem["code"][] = [
  "required",
  "not_email",
  "not_number",
  "not_date",
  "not_attachments",
  "repeated_attachment",
  "not_an_option",
  "repeated_option",
];

/** Each plain problem by the sentence {@link problemText} writes for it. */
const plain: Record<string, FieldProblem> = Object.fromEntries(
  plainCodes.map((code) => [problemText({ code }), { code }]),
);

const numberText = "(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)";
const counted: [RegExp, (n: number) => FieldProblem][] = [
  [new RegExp(`^must be at most ${numberText} characters$`), (max) => ({ code: "too_long", max })],
  [
    new RegExp(`^must hold at most ${numberText} files$`),
    (max) => ({ code: "too_many_files", max }),
  ],
  [new RegExp(`^must be at least ${numberText}$`), (min) => ({ code: "too_small", min })],
  [new RegExp(`^must be at most ${numberText}$`), (max) => ({ code: "too_large", max })],
];

/**
 * The problem S2's `message` (an issue's, after the field's name) says, or `null` for a
 * sentence this table does not know, which the page then shows as S2 wrote it.
 */
export function readProblem(message: string): FieldProblem | null {
  if (Object.hasOwn(plain, message)) return plain[message] ?? null;
  for (const [pattern, problem] of counted) {
    const found = pattern.exec(message);
    if (found) return problem(Number(found[1]));
  }
  const soldOut = /^(.+) is sold out$/s.exec(message);
  return soldOut ? { code: "sold_out", option: soldOut[1] ?? "" } : null;
}
