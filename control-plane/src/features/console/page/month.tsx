/** This UTC month, `YYYY-MM`. */
export const thisMonth = () => new Date().toISOString().slice(0, 7);

/** The first and last day of a `YYYY-MM` month. */
export function monthRange(month: string): { start: string; end: string } {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return { start: `${month}-01`, end: `${month}-${String(last).padStart(2, "0")}` };
}

/** A labelled month picker (native: keyboard and screen readers know it). */
export function MonthField(props: { id: string; value: string; onChange: (month: string) => void }) {
  return (
    <div class="field inline">
      <label for={props.id}>Month (UTC)</label>
      <input
        id={props.id}
        type="month"
        value={props.value}
        max={thisMonth()}
        onChange={(e) => {
          const v = e.currentTarget.value;
          if (/^\d{4}-\d{2}$/.test(v)) props.onChange(v);
        }}
      />
    </div>
  );
}
