import type { ComponentChildren } from "preact";

/**
 * An SVG chart as both pages draw them: a `figure` whose `svg` is one image to screen readers, named by its
 * title and described by its description (ids from `id`, so two charts on a page stay apart). What it
 * draws, its caption (a legend, the figures' table) and whether it may stretch are the caller's.
 */
export function ChartFrame(props: {
  id: string;
  width: number;
  height: number;
  title: string;
  description: ComponentChildren;
  /** Bars may stretch with the page; a chart with text in it keeps its aspect so the text does not. */
  stretch?: boolean;
  children: ComponentChildren;
  caption?: ComponentChildren;
}) {
  const { id } = props;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${props.width} ${props.height}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        preserveAspectRatio={props.stretch ? "none" : undefined}
        data-testid={id}
      >
        <title id={`${id}-title`}>{props.title}</title>
        <desc id={`${id}-desc`}>{props.description}</desc>
        {props.children}
      </svg>
      {props.caption}
    </figure>
  );
}
