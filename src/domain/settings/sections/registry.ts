/**
 * Every settings section (docs/design.md §11), in the order F2's `settingsSection` lists
 * them. Each is one module of this folder; adding a section is its module and a line here.
 */
import { calculatedFieldSettings } from "./calculated-fields.ts";
import { cascadingListSettings } from "./cascading-lists.ts";
import { conditionalLogicSettings } from "./conditional-logic.ts";
import { confirmationEmailSettings } from "./confirmation-email.ts";
import { destinationSettings } from "./destination.ts";
import { dynamicDataFieldSettings } from "./dynamic-data-fields.ts";
import { generalSettings } from "./general.ts";
import { paymentSettings } from "./payment.ts";
import { quantityLimitSettings } from "./quantity-limit.ts";
import type { SettingsSection } from "./section.ts";
import { securitySettings } from "./security.ts";
import { thanksPageSettings } from "./thanks-page.ts";

/** The settings sections. */
export const settingsSections: readonly SettingsSection[] = [
  generalSettings,
  thanksPageSettings,
  securitySettings,
  quantityLimitSettings,
  conditionalLogicSettings,
  calculatedFieldSettings,
  dynamicDataFieldSettings,
  cascadingListSettings,
  confirmationEmailSettings,
  destinationSettings,
  paymentSettings,
];

const byName = new Map(settingsSections.map((section) => [section.name, section]));

/** The section F2 calls `name`, or `undefined` for none. */
export function sectionNamed(name: string): SettingsSection | undefined {
  return byName.get(name);
}

/** The sections F5 returns, in the order it lists them. */
export const renderedSections: readonly SettingsSection[] = settingsSections
  .filter((section) => section.rendered)
  .sort((a, b) => (a.rendered?.position ?? 0) - (b.rendered?.position ?? 0));
