/**
 * The form settings sections (docs/design.md §11), one module each under sections/, listed
 * in sections/registry.ts: what each section may hold (its schema, the domain's rule
 * wherever the section comes from), its checks against the form's definition, what the form
 * engine compiles from it, what F5 renders and what the hosted page does with it live. F2's
 * route parses a section with these schemas (src/schemas/settings.ts) and calls
 * `updateSettingsSection`. `accessFormToSubmit` opens a form to the public side as its
 * settings allow.
 */

export {
  type BotMarks,
  challengeSeconds,
  newChallenge,
  pageMark,
  screenUpload,
} from "./bot-protection.ts";
export { customHeaderEntries, headerPairComplete, headerPairIssue } from "./custom-headers.ts";
export { cloneFormWithSettings, updateSettingsSection } from "./form-settings.ts";
export { type PageLanguage, pageLanguageOf, pageLanguages } from "./sections/general.ts";
export { type ClosedReason, closedMessages } from "./sections/quantity-limit.ts";
export { renderedSections, sectionNamed, settingsSections } from "./sections/registry.ts";
export type { LiveFeature, SettingsSection } from "./sections/section.ts";
export { embedOriginsOf, renderedBotProtection } from "./sections/security.ts";
export { defaultThanksMessage, ownsThanksMessage } from "./sections/thanks-page.ts";
export { accessFormToSubmit } from "./submit-access.ts";
export { sweepUsedSolutions } from "./used-solutions.ts";
