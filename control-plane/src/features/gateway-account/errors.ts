/** Gateway account API codes; rendered as `{message}` by presentMessage. */
export const GATEWAY_ACCOUNT_ERRORS = {
  UNAUTHORIZED: 401,
  INVALID_TOKEN: 401,
  GATEWAY_USER_EXISTS: 409,
  PARTY_EXISTS: 409,
  PARTY_REQUIRED: 403,
  GATEWAY_KEY_NOT_FOUND: 404,
  /** The user holds GATEWAY_KEYS_PER_USER active keys already (our addition). */
  GATEWAY_KEY_LIMIT_REACHED: 409,
  /** A deactivated or expired key cannot be rotated (our addition). */
  GATEWAY_KEY_INACTIVE: 409,
} as const;
