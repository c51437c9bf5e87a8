/** One sample of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (comments and blank lines skipped; label values unescaped). */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m?.[1] || m[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** A scrape of `url`, with the sum of a metric over the samples whose labels include `where`. */
export async function scrape(url: string) {
  // Bounded, so a gateway that stops answering fails the bench instead of hanging it.
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  const samples = parsePrometheus(await res.text());
  return {
    samples,
    sum(name: string, where: Record<string, string> = {}) {
      return samples
        .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
        .reduce((n, s) => n + s.value, 0);
    },
  };
}
