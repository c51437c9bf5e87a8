import type { ComponentChildren } from "preact";

/** A column heading: `num` right-aligns figures; `hidden` is read by screen readers only (an actions column). */
export interface Column {
  label: string;
  num?: boolean;
  hidden?: boolean;
}

/**
 * A table as every view writes one: captioned (unless its heading names it), its column headings scoped, scrolling inside its card
 * rather than the page at phone width. The rows (`tbody`'s children) are the caller's.
 */
export function DataTable(props: {
  caption?: ComponentChildren | undefined;
  columns: readonly Column[];
  testId?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class="scroll">
      <table data-testid={props.testId}>
        {props.caption && <caption>{props.caption}</caption>}
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.label} scope="col" class={c.num ? "num" : undefined}>
                {c.hidden ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
