import { useState } from 'react';
import type { PrimitiveEnvUsage } from '@gradual/sdk';
import { formatTime } from '../format';
import { useResource } from '../hooks';
import type { DefinitionApi } from '../primitive-api';
import { Empty, ErrorNote, Loading } from './ui';

const HOUR = 3_600_000;

/**
 * Hourly counts as one number per hour of the window, oldest first, ending with the hour `end`
 * falls in; hours without evaluations count 0.
 */
export function hourlySeries(hourly: PrimitiveEnvUsage['hourly'], days: number, end: Date): number[] {
  const last = Math.floor(end.getTime() / HOUR);
  const first = last - days * 24 + 1;
  const series = new Array<number>(last - first + 1).fill(0);
  for (const h of hourly) {
    const i = Math.floor(new Date(h.hour).getTime() / HOUR) - first;
    if (i >= 0 && i < series.length) series[i] = (series[i] ?? 0) + h.count;
  }
  return series;
}

/** A small bar chart of hourly counts (decorative detail; the label says the total). */
export function Sparkline({ series, label }: { series: number[]; label: string }) {
  const max = Math.max(1, ...series);
  const w = 240;
  const h = 32;
  const step = w / Math.max(1, series.length);
  return (
    <svg className="sparkline" viewBox={`0 0 ${w} ${h}`} width={w} height={h} role="img" aria-label={label} preserveAspectRatio="none">
      <line x1="0" y1={h - 0.5} x2={w} y2={h - 0.5} className="sparkline-base" />
      {series.map((n, i) =>
        n > 0 ? <rect key={i} x={i * step} y={h - (n / max) * h} width={Math.max(1, step - 0.5)} height={(n / max) * h} className="sparkline-bar" /> : null,
      )}
    </svg>
  );
}

const VARIANT_NAMES: Record<string, string> = {
  default: 'Base value',
  'target-id': 'Target ID',
  'rollout-new': 'Rollout (admitted)',
  'rollout-base': 'Base value (not admitted by the rollout)',
};

/** A variant in words, as the "does this user get it?" answer names the branch; an unknown one as reported. */
export function variantName(variant: string): string {
  const rule = /^rule-(\d+)$/.exec(variant);
  return rule ? `Rule ${rule[1]}` : (VARIANT_NAMES[variant] ?? variant);
}

/** Evaluations of a flag or config per environment: last evaluated, counts per variant, an hourly sparkline. */
export function UsagePanel({ ops }: { ops: Pick<DefinitionApi, 'usage'> }) {
  const [days, setDays] = useState(7);
  const usage = useResource(() => ops.usage(days), [ops, days]);
  const now = new Date();

  return (
    <div className="usage">
      <div className="toolbar">
        <label>
          <span className="label">Period</span>
          <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
            <option value={1}>Last 24 hours</option>
            <option value={7}>Last 7 days</option>
            <option value={30}>Last 30 days</option>
            <option value={90}>Last 90 days</option>
          </select>
        </label>
      </div>
      <ErrorNote error={usage.error} />
      {usage.loading && !usage.data && <Loading />}
      {usage.data && usage.data.environments.length === 0 && <Empty>No environments yet.</Empty>}
      {usage.data && usage.data.environments.length > 0 && (
        <div className="table-wrap">
          <table className="usage-table" data-testid="usage-table">
            <thead>
              <tr>
                <th scope="col">Environment</th>
                <th scope="col">Last evaluated</th>
                <th scope="col">Evaluations</th>
                <th scope="col">By variant</th>
                <th scope="col">Hourly</th>
              </tr>
            </thead>
            <tbody>
              {usage.data.environments.map((e) => (
                <tr key={e.envId}>
                  <th scope="row">
                    <code>{e.envKey}</code>
                  </th>
                  <td>{e.lastEvaluatedAt ? formatTime(e.lastEvaluatedAt) : <span className="muted">never</span>}</td>
                  <td>{e.total.toLocaleString()}</td>
                  <td>
                    {e.variants.length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      <ul className="plain">
                        {e.variants.map((v) => (
                          <li key={v.variant}>
                            <span title={v.variant}>{variantName(v.variant)}</span>: {v.count.toLocaleString()}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>
                    <Sparkline series={hourlySeries(e.hourly, usage.data!.days, now)} label={`${e.total.toLocaleString()} evaluations in ${e.envKey} over ${usage.data!.days} days, by hour`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
