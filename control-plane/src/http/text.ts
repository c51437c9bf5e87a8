/**
 * Characters a name or label shown to an operator must not hold: C0 and C1 controls and DEL (ESC and the
 * C1 CSI start terminal escape sequences, BEL rings), and the bidirectional overrides and isolates, which
 * reorder what a terminal or a page shows around them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A zod refinement's check and message: free text without control characters. */
export const noControls = [(s: string) => !CONTROLS.test(s), "Must not contain control characters"] as const;
