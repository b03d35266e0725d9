/** A Prometheus text exposition as `name{label="v",…}` → value (labels in the order written). */
export type Samples = Map<string, number>;

/** Parses the text format (comments skipped); enough for the metrics spillway writes. */
export function parsePrometheusText(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?)\s+(\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    samples.set(match[1] ?? '', Number(match[2]));
  }
  return samples;
}

/** The value of a sample, or 0 when the series was never written (a counter never incremented). */
export function sample(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  const entries = Object.entries(labels);
  for (const [key, value] of samples) {
    const open = key.indexOf('{');
    const keyName = open < 0 ? key : key.slice(0, open);
    if (keyName !== name) continue;
    const labelText = open < 0 ? '' : key.slice(open + 1, -1);
    const found = new Map([...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
    if (found.size === entries.length && entries.every(([k, v]) => found.get(k) === v)) return value;
  }
  return 0;
}

export async function scrape(url: string): Promise<Samples> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  return parsePrometheusText(await response.text());
}
