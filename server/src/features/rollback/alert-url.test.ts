import { describe, expect, it } from 'vitest';
import { parseMonitorUrl } from './alert-url.js';

describe('parseMonitorUrl', () => {
  it.each([
    ['generic alert_url', { alert_url: 'https://monitor.example.com/a/1' }, 'https://monitor.example.com/a/1'],
    ['legacy link', { link: 'http://monitor.example.com/a/2' }, 'http://monitor.example.com/a/2'],
    ['Alertmanager / Grafana generatorURL', { alerts: [{ generatorURL: 'https://grafana.example.com/alerting/x' }] }, 'https://grafana.example.com/alerting/x'],
    ['PagerDuty v3 html_url', { event: { data: { html_url: 'https://acme.pagerduty.com/incidents/Q1' } } }, 'https://acme.pagerduty.com/incidents/Q1'],
    ['a non-http(s) link', { alert_url: 'javascript:alert(1)' }, null],
    ['no body', undefined, null],
  ])('%s', (_name, payload, expected) => {
    expect(parseMonitorUrl(payload)).toBe(expected);
  });
});
