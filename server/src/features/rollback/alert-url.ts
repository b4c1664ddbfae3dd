/**
 * The alert URL an alerting tool put in its webhook payload, from the shapes
 * the spec names, in order: generic `alert_url` (legacy alias `link`),
 * Prometheus Alertmanager / Grafana `alerts[0].generatorURL`, PagerDuty v3
 * `event.data.html_url`. Anything else (or a non-http(s) value) gives null.
 */
export function parseMonitorUrl(payload: unknown): string | null {
  if (!isObject(payload)) return null;
  const alerts = payload.alerts;
  const event = payload.event;
  const candidates = [
    payload.alert_url,
    payload.link,
    Array.isArray(alerts) && isObject(alerts[0]) ? alerts[0].generatorURL : undefined,
    isObject(event) && isObject(event.data) ? event.data.html_url : undefined,
  ];
  for (const candidate of candidates) {
    const url = httpUrl(candidate);
    if (url) return url;
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Only absolute http(s) URLs are kept: the dashboard links to them. */
function httpUrl(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2048) return null;
  try {
    const url = new URL(v);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

