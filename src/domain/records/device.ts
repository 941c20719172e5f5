/** The `created_by_device` object of entries, submissions and attachments. */
export interface Device {
  client_ip_address: string;
  /** Two-letter country code; empty where unknown or private. */
  client_ip_country_code: string;
}
