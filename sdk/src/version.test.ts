import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_NAME, SDK_VERSION } from './version.js';

describe('the SDK names itself as its package does', () => {
  it('SDK_NAME and SDK_VERSION are package.json name and version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect({ name: SDK_NAME, version: SDK_VERSION }).toEqual({ name: pkg.name, version: pkg.version });
  });
});
