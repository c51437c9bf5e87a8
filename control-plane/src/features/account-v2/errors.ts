/** Account codes: the spec's account-v2 table verbatim, plus the approval states it leaves open. */
export const ACCOUNT_ERRORS = {
  MISSING_BASIC_AUTH: 401,
  INVALID_BASIC_AUTH: 401,
  INVALID_CREDENTIALS: 401,
  ORGANISATION_PENDING: 403,
  ORGANISATION_REJECTED: 403,
  ORGANISATION_SUSPENDED: 403,
  API_KEY_NOT_FOUND: 404,
  USER_EXISTS: 409,
  /** The organisation holds API_KEYS_PER_ORGANISATION active keys already (our addition). */
  API_KEY_LIMIT_REACHED: 409,
  /** A console session token that expired, was signed out or never existed (our addition). */
  INVALID_SESSION: 401,
} as const;
