import { it, expect } from 'vitest';
import { createParser } from 'eventsource-parser';
it('parses', () => {
  const got: string[] = [];
  const p = createParser({ onEvent: (e) => got.push(e.data) });
  p.feed('event: x\ndata: 1\n\n');
  expect(got).toEqual(['1']);
});
