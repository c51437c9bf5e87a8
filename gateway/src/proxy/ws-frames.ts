import { randomBytes } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";

/**
 * One direction of a WebSocket tunnel, passed through unchanged while its frame headers are read
 * (RFC 6455 §5.2): byte 0 is FIN, RSV1-3 and the opcode; byte 1 the MASK bit and a 7-bit length, 126
 * meaning a 16-bit and 127 a 64-bit length follows (network order); then a 4-byte masking key when MASK is
 * set (client frames, §5.3); then the payload. Payloads are never copied or unmasked, only counted past.
 *
 * It serves two things the gateway needs:
 * - `onMessage` runs before the first frame of each data message (opcode 1 text or 2 binary, §5.6; not a
 *   continuation 0 nor a control frame 8-10, §5.5) is passed on, and the stream waits for it: a message
 *   is never forwarded before the slice it belongs to is paid (docs/architecture.md §11).
 * - `cut` stops the stream at the next frame boundary, so a close frame of the gateway's own can follow a
 *   whole frame on the same connection without corrupting it.
 *
 * A header is held back until it is complete (at most 14 bytes), then passed on in one piece.
 */
export class FrameGate extends Transform {
  readonly #header = Buffer.alloc(14);
  #have = 0;
  /** Header bytes needed: 2 until the second byte tells the rest. */
  #need = 2;
  /** Payload bytes of the current frame still to pass. */
  #remaining = 0;
  #cut: (() => void) | undefined;
  #stopped = false;
  /** A complete header waits on `onMessage`: nothing of its frame has been passed on yet. */
  #waiting = false;

  constructor(private readonly onMessage?: () => Promise<void>) {
    super();
  }

  /** Between two frames (no header or payload half passed). */
  get atBoundary(): boolean {
    return this.#have === 0 && this.#remaining === 0;
  }

  /** Stops passing bytes at the next frame boundary (now, if at one), then calls `then` once. */
  cut(then: () => void): void {
    if (this.#stopped || this.#cut) return;
    this.#cut = then;
    if (this.atBoundary || this.#waiting) this.#stop();
  }

  #stop() {
    this.#stopped = true;
    const then = this.#cut;
    this.#cut = undefined;
    then?.();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#scan(chunk, 0).then(() => done(), done);
  }

  async #scan(chunk: Buffer, from: number): Promise<void> {
    let pos = from;
    while (pos < chunk.length && !this.#stopped) {
      if (this.#remaining > 0) {
        const n = Math.min(this.#remaining, chunk.length - pos);
        this.push(chunk.subarray(pos, pos + n));
        pos += n;
        this.#remaining -= n;
        if (this.#remaining === 0 && this.#cut) this.#stop();
        continue;
      }
      const h = this.#header;
      while (this.#have < this.#need && pos < chunk.length) h[this.#have++] = chunk[pos++] as number;
      if (this.#have < this.#need) return;
      if (this.#need === 2) {
        const len7 = (h[1] as number) & 0x7f;
        const masked = ((h[1] as number) & 0x80) !== 0;
        this.#need = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (masked ? 4 : 0);
        if (this.#have < this.#need) continue;
      }
      const len7 = (h[1] as number) & 0x7f;
      // A 64-bit length above 2^53 cannot be counted exactly; no peer sends a frame that large.
      const length = len7 === 126 ? h.readUInt16BE(2) : len7 === 127 ? Number(h.readBigUInt64BE(2)) : len7;
      const opcode = (h[0] as number) & 0x0f;
      if ((opcode === 1 || opcode === 2) && this.onMessage) {
        this.#waiting = true;
        try {
          await this.onMessage();
        } finally {
          this.#waiting = false;
        }
        if (this.#stopped) return;
      }
      this.push(Buffer.from(h.subarray(0, this.#need)));
      this.#have = 0;
      this.#need = 2;
      this.#remaining = length;
      if (length === 0 && this.#cut) this.#stop();
    }
  }
}

/** RFC 6455 §7.4.2: 4000-4999 are for applications; 4402 mirrors HTTP 402 Payment Required. */
export const CLOSE_UNPAID = 4402;
export const CLOSE_UNPAID_REASON = "balance exhausted";
/** 4403 mirrors HTTP 403: the connection's key no longer admits a request; the reason is the gateway's 403 message. */
export const CLOSE_REFUSED = 4403;

/**
 * A close frame (§5.5.1: opcode 8, status code then UTF-8 reason, at most 125 bytes of payload); masked
 * when it goes to the provider, as every client frame must be (§5.3).
 */
export function closeFrame(code: number, reason: string, masked: boolean): Buffer {
  const payload = Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason, "utf8")]);
  if (payload.length > 125) throw new Error("close reason too long");
  if (!masked) return Buffer.concat([Buffer.from([0x88, payload.length]), payload]);
  const key = randomBytes(4);
  for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (key[i % 4] as number);
  return Buffer.concat([Buffer.from([0x88, 0x80 | payload.length]), key, payload]);
}
