/** Webhook codes (our addition, docs/spec.md "Webhooks"); rendered in each route group's own error format. */
export const WEBHOOK_ERRORS = {
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  /** The URL is not https (without WEBHOOK_ALLOW_HTTP), carries credentials, or resolves to a refused address. */
  WEBHOOK_URL_REFUSED: 400,
  /** The owner holds WEBHOOK_ENDPOINTS_PER_OWNER endpoints already. */
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 409,
  /** A test event to a disabled endpoint: enable it first. */
  WEBHOOK_ENDPOINT_DISABLED: 409,
} as const;
