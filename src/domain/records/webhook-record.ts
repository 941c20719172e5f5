import type { Timestamps } from "../../kernel/timestamps.ts";

/** A stored submission webhook. Partition: its form id. */
export interface WebhookRecord extends Timestamps {
  id: string;
  form_id: string;
  created_by_user_id: string;
  webhook_name: string;
  webhook_destination_url: string;
  http_header_key: string;
  http_header_value: string;
  /** The Standard Webhooks signing secret, `whsec_<base64>`; it must be kept to sign with. */
  webhook_shared_secret: string;
}
