/**
 * What the CLI prints is made of names and labels anyone could sign up with: control characters in them
 * (ESC and the C1 CSI start escape sequences that recolour, move the cursor or retitle the terminal; BEL
 * rings) and bidirectional overrides are shown as `\xNN` / `\uNNNN` escapes instead of being written raw.
 * Sign-up refuses them now (`control-plane/src/http/text.ts`), but rows written before stay.
 * Newlines and tabs of the CLI's own layout are kept.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function visible(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

/** JSON escapes C0 controls itself; C1 controls, DEL and the bidi controls are escaped too. */
export function visibleJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
