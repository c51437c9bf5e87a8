import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** A heading that takes focus when its screen appears, so keyboard and screen-reader users start there. */
export function ScreenTitle(props: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {props.children}
    </h1>
  );
}

/** A labelled input: the label is tied to the input by id, so clicking it and screen readers both work. */
export function Field(props: {
  id: string;
  label: string;
  type?: "text" | "email" | "password";
  autoComplete?: string;
  hint?: string;
  value: string;
  onInput: (value: string) => void;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        // preact's input typings split by type into a union a variable type cannot pick from.
        type={(props.type ?? "text") as "text"}
        autoComplete={props.autoComplete}
        aria-describedby={hintId}
        required
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** A form's error, announced when it appears. */
export function FormError(props: { message: string | null }) {
  return (
    <p class="error" role="alert">
      {props.message ?? ""}
    </p>
  );
}

/** Copies `text`; says so in a live region, since a button's own change is not announced. */
export function CopyButton(props: {
  text: string;
  label: string;
  /** Read by screen readers after the label, for a button repeated on each row of a table. */
  context?: string;
}) {
  const [done, setDone] = useState<string>("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setDone("Copied.");
    } catch {
      setDone("Copying failed: select the text and copy it by hand.");
    }
  };
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy}>
        {props.label}
        {props.context && <span class="visually-hidden"> {props.context}</span>}
      </button>
      <span class="status" aria-live="polite">
        {done}
      </span>
    </span>
  );
}

export function Section(props: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={props.id} class="card">
      <h2 id={props.id} tabIndex={-1}>
        {props.title}
      </h2>
      {props.children}
    </section>
  );
}

export const formatTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** Previous and next page buttons (Newer / Older unless named) and where the reader is. */
export function Pager(props: {
  label: string;
  page: number;
  pages: number;
  total: number;
  onPage: (p: number) => void;
  names?: [previous: string, next: string];
}) {
  const { page, pages } = props;
  const [previous, next] = props.names ?? ["Newer", "Older"];
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        {previous}
      </button>
      <span>
        Page {page} of {pages} ({props.total} in all)
      </span>
      <button type="button" class="secondary" disabled={page >= pages} onClick={() => props.onPage(page + 1)}>
        {next}
      </button>
    </nav>
  );
}
