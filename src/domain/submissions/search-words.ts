import { type FormDefinition, fileFieldNames } from "../forms/form-definition.ts";
import type { SubmittedField } from "../records/submission-record.ts";

/**
 * The `search_words` of a submission: the distinct lower-case words of its values, file
 * fields left out (their values are attachment ids, not words anyone types).
 */
export function searchWordsOf(definition: FormDefinition, fields: SubmittedField[]): string[] {
  const files = fileFieldNames(definition);
  const words = new Set<string>();
  for (const field of fields) {
    if (files.has(field.unique_system_name)) continue;
    for (const word of wordsOf(field.submitted_value)) words.add(word);
  }
  return [...words];
}

/** The lower-case words (runs of letters and digits) of a text. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
