/** A refused or failed API call: the status, the API's own `{message}` and, on 429, when to try again. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

export type Method = "GET" | "POST" | "DELETE";

/**
 * Calls an API on this origin and answers its response when 2xx; the bearer token is sent only when given.
 * A refusal becomes an ApiError carrying the API's `{message}`.
 */
export async function send(
  method: Method,
  path: string,
  token?: string,
  body?: unknown,
  accept = "application/json",
): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "The server cannot be reached. Check your connection and try again.");
  }
  if (res.ok) return res;
  const json = (await res.json().catch(() => null)) as { message?: unknown } | null;
  const message = typeof json?.message === "string" ? json.message : `Request failed (${res.status})`;
  const retry = Number(res.headers.get("retry-after"));
  throw new ApiError(res.status, message, Number.isFinite(retry) && retry > 0 ? retry : null);
}

/** `send` for a JSON answer (null for 204). */
export async function call<T>(method: Method, path: string, token?: string, body?: unknown): Promise<T> {
  const res = await send(method, path, token, body);
  return (res.status === 204 ? null : await res.json().catch(() => null)) as T;
}

/** "Try again in N seconds" for a 429, in words. */
export function retryIn(error: ApiError): string {
  const wait = error.retryAfterSeconds;
  return `Too many requests. Try again in ${wait ?? "a few"} ${wait === 1 ? "second" : "seconds"}.`;
}
