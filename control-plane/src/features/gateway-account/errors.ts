/** Gateway account API codes; rendered as `{message}` by presentMessage. */
export const GATEWAY_ACCOUNT_ERRORS = {
  UNAUTHORIZED: 401,
  INVALID_TOKEN: 401,
  GATEWAY_USER_EXISTS: 409,
  PARTY_EXISTS: 409,
  PARTY_REQUIRED: 403,
  GATEWAY_KEY_NOT_FOUND: 404,
} as const;
