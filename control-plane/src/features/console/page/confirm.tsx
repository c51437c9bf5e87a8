import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

/**
 * The step between asking and sending: what will be sent, in words, and two buttons. Cancel is focused
 * first, so Enter on an accidental open sends nothing; Escape cancels.
 */
export function Confirm(props: {
  title: string;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  // Before the dialog is painted: a key pressed as soon as it shows (Escape) lands in it, not on the button
  // that opened it.
  useLayoutEffect(() => cancel.current?.focus(), []);
  return (
    <div
      class="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      onKeyDown={(e) => e.key === "Escape" && props.onCancel()}
    >
      <h3 id="confirm-title">{props.title}</h3>
      <div id="confirm-body">{props.children}</div>
      <div class="actions">
        <button ref={cancel} type="button" class="secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm} disabled={props.busy}>
          {props.busy ? "Sending…" : props.confirmLabel}
        </button>
      </div>
    </div>
  );
}
