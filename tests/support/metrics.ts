/** A server's Prometheus exposition (GET /metrics), read once. */
export interface MetricsScrape {
  text: string;
  /** One series' value, `name` as exposed with its labels (`x_total{source="memory"}`); `absent` when not exposed. */
  sample(name: string, absent?: number): number;
  /** Every series of one metric added up (0 when none is exposed yet). */
  sum(name: string): number;
}

export async function scrapeMetrics(baseUrl: string): Promise<MetricsScrape> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const lines = text.split('\n');
  return {
    text,
    sample(name, absent = NaN) {
      const line = lines.find((l) => l.startsWith(`${name} `));
      return line ? Number(line.slice(name.length + 1)) : absent;
    },
    sum(name) {
      let total = 0;
      for (const l of lines) if (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) total += Number(l.slice(l.lastIndexOf(' ') + 1));
      return total;
    },
  };
}
