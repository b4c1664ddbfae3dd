import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { logFormat } from './logger.js';

describe('logFormat', () => {
  it('is human-readable on a terminal and JSON otherwise, unless LOG_FORMAT says', () => {
    expect(logFormat(loadConfig({}), true)).toBe('pretty');
    expect(logFormat(loadConfig({}), false)).toBe('json');
    expect(logFormat(loadConfig({ LOG_FORMAT: 'json' }), true)).toBe('json');
    expect(logFormat(loadConfig({ LOG_FORMAT: 'pretty' }), false)).toBe('pretty');
  });

  it('refuses an unknown LOG_FORMAT at start-up', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'text' })).toThrow(/LOG_FORMAT/);
  });
});
