/**
 * `paymentsettings` (docs/design.md §11): kept as given, once it is a JSON object, for the
 * payments extension to read.
 */
import type { SettingsSection } from "./section.ts";

/** The `paymentsettings` section. */
export const paymentSettings: SettingsSection = { name: "paymentsettings" };
