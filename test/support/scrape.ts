import parsePrometheusTextFormat from 'parse-prometheus-text-format';

interface ParsedFamily {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string }>;
}

/** A parsed scrape: each family's TYPE, and every series by its own name (a histogram's as name_bucket, name_sum, name_count). */
export interface Scrape {
  types: Map<string, string>;
  series: Map<string, Array<{ labels: Record<string, string>; value: number }>>;
}

/**
 * Scrapes /metrics and parses it with parse-prometheus-text-format. That parser (1.1.1) folds a
 * histogram with labels into one unlabelled series, so the series are parsed a second time with
 * the TYPE lines left out: each _bucket, _sum and _count line then keeps its labels.
 */
export async function scrape(port: number): Promise<Scrape> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const text = await response.text();
  const typed = parsePrometheusTextFormat(text) as ParsedFamily[];
  const untyped = parsePrometheusTextFormat(
    text
      .split('\n')
      .filter((line) => !line.startsWith('# TYPE '))
      .join('\n'),
  ) as ParsedFamily[];
  // Untyped, a histogram's name_count lines come back as one family per label set: gather them.
  const series: Scrape['series'] = new Map();
  for (const family of untyped) {
    const samples = family.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
    series.set(family.name, [...(series.get(family.name) ?? []), ...samples]);
  }
  return { types: new Map(typed.map((family) => [family.name, family.type.toLowerCase()])), series };
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there are none). */
export function sample(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  const found = (scraped.series.get(name) ?? []).filter((s) => Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  return found.reduce((sum, s) => sum + s.value, 0);
}
