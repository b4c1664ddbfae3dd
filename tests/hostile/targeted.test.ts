import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.js';
import {
  buildTenant,
  claimFor,
  envelopeProblems,
  expectEnvelope,
  send,
  sendRaw,
  startHostileServer,
  writeMarks,
  type Caller,
  type RawResponse,
  type Tenant,
} from './support.js';

const MiB = 1024 * 1024;

/**
 * Hand-picked hostile requests: sizes just over the limits, content types,
 * broken and deep JSON, unicode edge cases (NUL, lone surrogates, RTL, emoji,
 * combining marks), header injection over a raw socket, prototype pollution,
 * and numbers at the edges of `percent`. Each answer is the envelope or a
 * success, never a 5xx; rejected writes leave no trace.
 */
describe('targeted hostile input', () => {
  let t: TestServer;
  let a: Tenant;
  let owner: Caller;
  let key: Caller;

  const post = (path: string, body: unknown, caller: Caller = key, headers: Record<string, string> = {}) =>
    send(t.url, { method: 'POST', path, body: typeof body === 'string' ? body : JSON.stringify(body), headers }, caller);
  const put = (path: string, body: unknown, caller: Caller = key, headers: Record<string, string> = {}) =>
    send(t.url, { method: 'PUT', path, body: typeof body === 'string' ? body : JSON.stringify(body), headers }, caller);
  const get = (path: string, caller: Caller = key) => send(t.url, { method: 'GET', path }, caller);
  const ok = (res: RawResponse) => {
    expect(envelopeProblems(res), res.text.slice(0, 300)).toEqual([]);
    return res;
  };
  const projects = () => `/api/v1/orgs/${a.slug}/projects`;
  const envFlags = () => `/api/v1/envs/${a.envId}/flags`;
  const envConfigs = () => `/api/v1/envs/${a.envId}/configs`;
  const rawHead = (lines: string[], body = '') => `${lines.join('\r\n')}\r\n${body ? `content-length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;
  const host = () => `host: ${new URL(t.url).host}`;

  /** Runs `fn` and checks that neither env version nor audit count moved. */
  const noWrite = async (fn: () => Promise<void>) => {
    const before = await writeMarks(a);
    await fn();
    expect(await writeMarks(a)).toEqual(before);
  };

  beforeAll(async () => {
    t = await startHostileServer();
    const o = await claimFor(t, 'acme');
    a = await buildTenant(t, { slug: 'acme', prefix: 'a', owner: o });
    owner = { session: a.sessionToken };
    key = { token: a.apiKey.token };
    await a.session.createFlag({ path: { id: a.projectId }, body: { key: 'num', name: 'Num', valueType: 'number', defaultValue: 1 } });
    await a.session.createFlag({ path: { id: a.projectId }, body: { key: 'str', name: 'Str', valueType: 'string', defaultValue: 'x' } });
    await a.session.createFlag({ path: { id: a.projectId }, body: { key: 'pct', name: 'Pct', defaultValue: false } });
    await a.session.createConfig({ path: { id: a.projectId }, body: { key: 'deep', name: 'Deep', defaultValue: null } });
  });
  afterAll(() => t?.close());

  describe('body size', () => {
    it('refuses a JSON body just over 1 MiB with 413 and the envelope, and takes one of exactly 1 MiB', async () => {
      await noWrite(async () => {
        const wrap = (n: number) => `{"key":"big","name":"${'x'.repeat(n - '{"key":"big","name":""}'.length)}"}`;
        const over = wrap(MiB + 1);
        expect(Buffer.byteLength(over)).toBe(MiB + 1);
        expectEnvelope(await post(projects(), over, owner), 413, 'invalid_request');
        // Exactly 1 MiB is parsed (then refused by the name's 200-character limit).
        const body = expectEnvelope(await post(projects(), wrap(MiB), owner), 400, 'invalid_request');
        expect(body.fields).toHaveProperty('name');
      });
    });

    it('refuses a chunked body (no Content-Length) over 1 MiB too', async () => {
      const chunk = 'x'.repeat(64 * 1024);
      const chunks = [`{"key":"big","name":"`, ...Array.from({ length: 17 }, () => chunk), `"}`];
      const payload = chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n';
      const res = await sendRaw(
        t.url,
        `POST ${projects()} HTTP/1.1\r\n${host()}\r\ncookie: svc_session=${a.sessionToken}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n${payload}`,
      );
      expect(res.status).toBe(413);
      expect(envelopeProblems({ status: res.status, headers: res.headers, json: JSON.parse(res.body) })).toEqual([]);
    });

    it('gives target-ID routes 64 MiB: a body of 64 MiB + 1 byte is refused with 413', async () => {
      const path = `/api/v1/envs/${a.envId}/flags/${a.flagKey}/rollout/target-ids/add`;
      // The server drains the body before it answers, so the 64 MiB really travel (about a second locally).
      const size = 64 * MiB + 1;
      const head = '{"targetIds":["';
      const tail = '"]}';
      const body = Buffer.alloc(size, 'x');
      body.write(head, 0);
      body.write(tail, size - tail.length);
      const res = await sendRaw(
        t.url,
        Buffer.concat([
          Buffer.from(`POST ${path} HTTP/1.1\r\n${host()}\r\nauthorization: Bearer ${a.apiKey.token}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\nconnection: close\r\n\r\n`),
          body,
        ]),
        30_000,
      );
      expect(res.status).toBe(413);
      expect(envelopeProblems({ status: res.status, headers: res.headers, json: JSON.parse(res.body) })).toEqual([]);
      // Just over 1 MiB is fine there (and adds nothing new: the IDs are refused as too long).
      const ids = Array.from({ length: 5000 }, (_, i) => `${'u'.repeat(256)}-${i}`);
      const big = await post(path, { targetIds: ids });
      expect(big.status).toBe(400);
      expect((big.json as { fields: Record<string, string> }).fields).toHaveProperty(['targetIds.0']);
    });

    it('answers a rollback fire body of 16 KiB + 1 with 400 invalid_request', async () => {
      const res = await post(`/api/v1/webhooks/rollback/envs/${a.envId}/flags/${a.flagKey}`, `{"x":"${'y'.repeat(16 * 1024 - 7)}"}`, { rollback: a.rollbackSecret.token });
      expectEnvelope(res, 400, 'invalid_request');
    });
  });

  describe('content types and malformed JSON', () => {
    it('answers every wrong content type with the envelope and writes nothing', async () => {
      await noWrite(async () => {
        const body = JSON.stringify({ value: true });
        for (const ct of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', '', 'application/json; charset=utf-16']) {
          const res = await put(`${envFlags()}/${a.flagKey}/value`, body, key, { 'content-type': ct });
          ok(res);
          expect(res.status, ct).toBeGreaterThanOrEqual(400);
        }
        expectEnvelope(await put(`${envFlags()}/${a.flagKey}/value`, body, key, { 'content-type': 'application/json; charset=latin1' }), 415, 'invalid_request');
      });
    });

    it('answers malformed JSON with 400 invalid_request (fields.body) and writes nothing', async () => {
      await noWrite(async () => {
        for (const text of ['{"value": ', '{', '}', 'nul', '{"value": tru}', "{'value': true}", '{"value": true,}', '{"value": NaN}', '{"value": Infinity}', '{"value": 0x10}', '{"value": 01}', '\u0000', '{"a":"\u0001"}', '[', '"', '{"value": "unterminated}']) {
          const res = await put(`${envFlags()}/${a.flagKey}/value`, text);
          const body = expectEnvelope(res, 400, 'invalid_request');
          expect(body.fields, text).toBeDefined();
        }
        // Valid JSON that is not an object: the strict parser refuses scalars; arrays fail validation.
        for (const text of ['null', 'true', '1', '"value"', '[]', '[{"value":true}]']) expectEnvelope(await put(`${envFlags()}/${a.flagKey}/value`, text), 400, 'invalid_request');
      });
    });

    it('survives 10,000 unclosed brackets and deeply nested JSON values (400 or stored, never 5xx)', async () => {
      await noWrite(async () => {
        expectEnvelope(await put(`${envConfigs()}/deep/value`, `{"value":${'['.repeat(10_000)}`), 400, 'invalid_request');
        expectEnvelope(await put(`${envConfigs()}/deep/value`, '['.repeat(500_000)), 400, 'invalid_request');
      });
      // Values nest up to 100 levels; deeper bodies are refused before they reach JSON.stringify or jsonb.
      const shallow = ok(await put(`${envConfigs()}/deep/value`, `{"value":${'['.repeat(90)}${']'.repeat(90)}}`));
      expect(shallow.status).toBe(200);
      await noWrite(async () => {
        for (const depth of [101, 1_000, 10_000, 100_000]) {
          const nested = (inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
          for (const [what, call] of [
            ['value', () => put(`${envConfigs()}/deep/value`, `{"value":${nested('')}}`)],
            ['context', () => post(`/api/v1/envs/${a.envId}/evaluate`, `{"context":{"userId":"u","deep":${nested('')}}}`)],
            ['defaultValue', () => post(`/api/v1/projects/${a.projectId}/configs`, `{"key":"deep-${depth}","name":"D","defaultValue":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`)],
            ['rule value', () => put(`${envConfigs()}/deep/rules`, `{"rules":[{"conditions":[],"value":${nested('1')}}]}`)],
            ['newValue', () => put(`${envConfigs()}/deep/rollout`, `{"percent":1,"newValue":${nested('')}}`)],
          ] as const) {
            const body = expectEnvelope(await call(), 400, 'invalid_request');
            expect(body.fields, `${what} at depth ${depth}`).toEqual({ body: 'nested deeper than 100 levels' });
          }
        }
      });
      // The ruleset (read by every SDK) still renders.
      expect((await get(`/api/v1/envs/${a.envId}/ruleset`)).status).toBe(200);
      expect((await get(`${envConfigs()}/deep`)).status).toBe(200);
    });
  });

  describe('strings and unicode', () => {
    it('refuses NUL (U+0000) in names, keys, values, object keys, target IDs, paths and queries with 400, and writes nothing', async () => {
      await noWrite(async () => {
        const cases: Array<[string, () => Promise<RawResponse>]> = [
          ['project name', () => post(projects(), { key: 'nul', name: 'a\u0000b' }, owner)],
          ['project key', () => post(projects(), { key: 'nul\u0000', name: 'x' }, owner)],
          ['flag name', () => post(`/api/v1/projects/${a.projectId}/flags`, { key: 'nul', name: 'N\u0000' })],
          ['flag description', () => post(`/api/v1/projects/${a.projectId}/flags`, { key: 'nul', name: 'N', description: '\u0000', defaultValue: true })],
          ['string flag value', () => put(`${envFlags()}/str/value`, { value: 'a\u0000b' })],
          ['config value', () => put(`${envConfigs()}/${a.configKey}/value`, { value: { nested: ['\u0000'] } })],
          ['config value key', () => put(`${envConfigs()}/${a.configKey}/value`, { value: { 'k\u0000': 1 } })],
          ['rule attribute', () => put(`${envFlags()}/${a.flagKey}/rules`, { rules: [{ conditions: [{ attribute: 'e\u0000', operator: 'in', values: ['x'] }], value: true }] })],
          ['rule values', () => put(`${envFlags()}/${a.flagKey}/rules`, { rules: [{ conditions: [{ attribute: 'email', operator: 'in', values: ['\u0000'] }], value: true }] })],
          ['rollout seed', () => put(`${envFlags()}/pct/rollout`, { percent: 0, newValue: true, seed: 's\u0000' })],
          ['rollout newValue', () => put(`${envConfigs()}/${a.configKey}/rollout`, { percent: 5, newValue: '\u0000' })],
          ['plan name', () => post(`/api/v1/projects/${a.projectId}/rollout-plans`, { key: 'nul', name: '\u0000', rampSteps: [{ percent: 100, holdForSeconds: 0 }] })],
          ['plan timezone', () => post(`/api/v1/projects/${a.projectId}/rollout-plans`, { key: 'nul', name: 'n', rampSteps: [{ percent: 100, holdForSeconds: 0 }], blackoutTimezone: 'UTC\u0000' })],
          ['api key name', () => post(`/api/v1/orgs/${a.slug}/api-keys`, { name: 'k\u0000' }, owner)],
          ['secret name', () => post(`/api/v1/envs/${a.envId}/rollback-webhook-secrets`, { name: 's\u0000' }, owner)],
          ['invitation email', () => post(`/api/v1/orgs/${a.slug}/invitations`, { email: 'a\u0000@example.com', role: 'member' }, owner)],
          ['evaluate context', () => post(`/api/v1/envs/${a.envId}/evaluate`, { context: { userId: 'a\u0000' } })],
          ['target IDs (one bad among many)', () => post(`${envFlags()}/${a.flagKey}/rollout/target-ids/add`, { targetIds: ['fresh-1', 'fresh-2', 'bad\u0000id', 'fresh-3'] })],
          ['target IDs replace', () => post(`${envFlags()}/${a.flagKey}/rollout/target-ids/replace`, { targetIds: ['fresh-1', '\u0000'] })],
          ['slug in path', () => get(`/api/v1/orgs/a%00b/projects`)],
          ['key in path', () => put(`${envFlags()}/a%00/value`, { value: true })],
          ['target ID in path', () => get(`${envFlags()}/${a.flagKey}/rollout/target-ids/contains/x%00y`)],
          ['query', () => get(`/api/v1/orgs/${a.slug}/audit?resourceKey=a%00b`)],
          ['query cursor', () => get(`${envFlags()}/${a.flagKey}/rollout/target-ids?cursor=%00`)],
        ];
        for (const [what, call] of cases) {
          const res = await call();
          expect(envelopeProblems(res), what).toEqual([]);
          expect({ what, status: res.status }).toEqual({ what, status: 400 });
        }
      });
      const count = await get(`${envFlags()}/${a.flagKey}/rollout`);
      expect((count.json as { targetIdsCount: number }).targetIdsCount).toBe(2);
    });

    it('stores RTL, emoji, combining marks and astral characters exactly, in names, values, target IDs and the audit reason', async () => {
      const weird = ['\u202eevil\u202c', 'مرحبا', 'e\u0301\u0301', '🚀👩‍👩‍👧‍👦🏳️‍🌈', '𝕳', '\ufeffbom', 'Z̴̡̛̗a̷̢l̵g̶o̵', '\uffff'];
      const project = ok(await post(projects(), { key: 'unicode', name: weird.join(' ') }, owner));
      expect(project.status).toBe(201);
      expect((project.json as { name: string }).name).toBe(weird.join(' '));
      const value = ok(await put(`${envConfigs()}/${a.configKey}/value`, { value: Object.fromEntries(weird.map((w, i) => [w, [i, w]])) }));
      expect(value.status).toBe(200);
      expect((value.json as { value: unknown }).value).toEqual(Object.fromEntries(weird.map((w, i) => [w, [i, w]])));
      const add = ok(await post(`${envFlags()}/${a.flagKey}/rollout/target-ids/add`, { targetIds: weird }));
      expect(add.json).toMatchObject({ added: weird.length });
      for (const w of weird) {
        const res = await get(`${envFlags()}/${a.flagKey}/rollout/target-ids/contains/${encodeURIComponent(w)}`);
        expect(res.json, w).toEqual({ contains: true });
      }
      const list = (await get(`${envFlags()}/${a.flagKey}/rollout/target-ids?limit=100`)).json as { items: string[] };
      expect(list.items).toEqual(expect.arrayContaining(weird));
      // Bytewise (UTF-8) order.
      expect(list.items).toEqual([...list.items].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
      await post(`${envFlags()}/${a.flagKey}/rollout/target-ids/remove`, { targetIds: weird });
      // The audit reason travels as UTF-8 bytes in a header.
      const reason = 'rollback: 🚀 مرحبا e\u0301';
      const res = ok(await put(`${envFlags()}/str/value`, { value: 'reasoned' }, key, { 'x-audit-reason': Buffer.from(reason, 'utf8').toString('latin1') }));
      expect(res.status).toBe(200);
    });

    it('refuses lone surrogates (JSON \\ud800) with 400 and writes nothing, but takes escaped surrogate pairs', async () => {
      await noWrite(async () => {
        const calls: Array<[string, () => Promise<RawResponse>]> = [
          ['name', () => post(projects(), `{"key":"lone","name":"\\ud800"}`, owner)],
          ['value', () => put(`${envFlags()}/str/value`, `{"value":"x\\ud800y"}`)],
          ['value key', () => put(`${envConfigs()}/${a.configKey}/value`, `{"value":{"\\udfff":"ok"}}`)],
          ['reversed pair', () => put(`${envConfigs()}/${a.configKey}/value`, `{"value":"\\udc00\\ud800"}`)],
          ['target IDs', () => post(`${envFlags()}/${a.flagKey}/rollout/target-ids/add`, `{"targetIds":["fine","\\ud800","a\\udfffb"]}`)],
          ['context', () => post(`/api/v1/envs/${a.envId}/evaluate`, `{"context":{"userId":"\\ud800"}}`)],
          ['path (UTF-8 of a surrogate)', () => get(`${envFlags()}/${a.flagKey}/rollout/target-ids/contains/%ED%A0%80`)],
          ['slug (overlong UTF-8)', () => get(`/api/v1/orgs/%C0%AF/projects`)],
        ];
        for (const [what, call] of calls) {
          const res = await call();
          expect(envelopeProblems(res), what).toEqual([]);
          expect({ what, status: res.status }).toEqual({ what, status: 400 });
        }
      });
      const pair = ok(await put(`${envFlags()}/str/value`, `{"value":"\\ud83d\\ude80 \\u00e9"}`));
      expect((pair.json as { value: string }).value).toBe('🚀 é');
    });

    it('stores a rollback fire whose alert payload carries NUL or lone surrogates without a 5xx', async () => {
      const fire = (body: string) => post(`/api/v1/webhooks/rollback/envs/${a.envId}/configs/${a.configKey}`, body, { rollback: a.rollbackSecret.token });
      for (const body of [
        `{"alerts":[{"generatorURL":"http://grafana.example/\\u0000x","labels":{"alertname":"\\u0000"}}]}`,
        `{"externalURL":"http://am.example/\\ud800","alerts":[{"generatorURL":"http://am.example/\\udfff"}]}`,
        `{"event":{"data":{"html_url":"http://pd.example/\\u0000"}}}`,
        `{"ruleUrl":"\\ud800","title":"\\u0000"}`,
        '\u0000\u0001 not json at all',
      ]) {
        const res = ok(await fire(body));
        expect(res.status, body).toBeLessThan(500);
      }
      const fires = ok(await get(`/api/v1/envs/${a.envId}/rollback-fires`));
      expect(fires.status).toBe(200);
      // Every string read back is well-formed (lone surrogates would have been escaped as \udxxx in the JSON text).
      expect(fires.text).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
      expect(fires.text).not.toContain('\\u0000');
    });

    it('enforces length limits on very long strings with 400 and the field named', async () => {
      await noWrite(async () => {
        const long = 'x'.repeat(100_000);
        const cases: Array<[string, () => Promise<RawResponse>]> = [
          ['name', () => post(projects(), { key: 'long', name: long }, owner)],
          ['key', () => post(projects(), { key: long, name: 'x' }, owner)],
          ['targetIds.0', () => post(`${envFlags()}/${a.flagKey}/rollout/target-ids/add`, { targetIds: [long] })],
          ['seed', () => put(`${envFlags()}/pct/rollout`, { percent: 0, seed: long })],
          ['headers.x-audit-reason', () => put(`${envFlags()}/str/value`, { value: 'y' }, key, { 'x-audit-reason': 'r'.repeat(501) })],
        ];
        for (const [field, call] of cases) {
          const body = expectEnvelope(await call(), 400, 'invalid_request');
          expect(body.fields, field).toHaveProperty([field]);
        }
      });
      // A path segment of 100,000 characters is 404 or 414/431-style envelope, never 5xx.
      ok(await get(`/api/v1/orgs/${'a'.repeat(8000)}/projects`));
    });
  });

  describe('headers', () => {
    it('stores only the first line of an X-Audit-Reason with CRLF smuggled in, and reflects no injected header', async () => {
      const before = await writeMarks(a);
      const body = JSON.stringify({ value: 'crlf' });
      const res = await sendRaw(
        t.url,
        rawHead([`PUT ${envFlags()}/str/value HTTP/1.1`, host(), `authorization: Bearer ${a.apiKey.token}`, 'content-type: application/json', 'x-audit-reason: first\r\nX-Injected: yes', 'connection: close'], body),
      );
      expect(res.status).toBe(200);
      expect(res.headers.map(([k]) => k)).not.toContain('x-injected');
      const after = await writeMarks(a);
      expect(after.auditCount).toBe(before.auditCount + 1);
      const events = await a.session.listAuditEvents({ path: { slug: a.slug }, query: { limit: 1 } });
      const event = await a.session.getAuditEvent({ path: { id: events.events[0]!.id } });
      expect(event.reason).toBe('first');
    });

    it('answers bare CR, bare LF and NUL inside header values with the envelope (400), not a bare socket error', async () => {
      for (const [name, value] of [
        ['x-audit-reason', 'a\rb'],
        ['x-audit-reason', 'a\u0000b'],
        ['if-match', '"x"\rX-Evil: 1'],
        ['authorization', `Bearer ${a.apiKey.token}\r`],
      ] as const) {
        await noWrite(async () => {
          const res = await sendRaw(
            t.url,
            rawHead([`PUT ${envFlags()}/str/value HTTP/1.1`, host(), `authorization: Bearer ${a.apiKey.token}`, 'content-type: application/json', `${name}: ${value}`, 'connection: close'], JSON.stringify({ value: 'cr' })),
          );
          expect(res.status, `${name}: ${JSON.stringify(value)}`).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(envelopeProblems({ status: res.status, headers: res.headers, json: safeJson(res.body) }), `${name}: ${JSON.stringify(value)} → ${res.raw.slice(0, 200)}`).toEqual([]);
        });
      }
    });

    it('answers headers over the server limit (431) and a huge If-Match (400) with the envelope', async () => {
      const res = await sendRaw(t.url, rawHead([`GET /api/v1/orgs/${a.slug} HTTP/1.1`, host(), `authorization: Bearer ${a.apiKey.token}`, `x-filler: ${'f'.repeat(100_000)}`, 'connection: close']));
      expect(res.status).toBe(431);
      expect(envelopeProblems({ status: res.status, headers: res.headers, json: safeJson(res.body) }), res.raw.slice(0, 200)).toEqual([]);
      await noWrite(async () => {
        const body = expectEnvelope(await put(`${envFlags()}/str/value`, { value: 'm' }, key, { 'if-match': `"${'a'.repeat(8000)}"` }), 400, 'invalid_request');
        expect(body.fields).toHaveProperty(['headers.if-match']);
        expectEnvelope(await put(`${envFlags()}/str/value`, { value: 'm' }, key, { 'if-match': '"not-the-etag"' }), 412, 'precondition_failed');
        expectEnvelope(await put(`${envFlags()}/str/value`, { value: 'm' }, key, { 'if-match': 'W/"weak", "two", *' }), 412, 'precondition_failed');
      });
    });

    it('judges duplicate Authorization headers as one credential and never 5xx', async () => {
      const dup = (first: string, second: string) =>
        sendRaw(t.url, rawHead([`GET /api/v1/orgs/${a.slug} HTTP/1.1`, host(), `authorization: ${first}`, `authorization: ${second}`, 'connection: close']));
      const valid = `Bearer ${a.apiKey.token}`;
      for (const [first, second] of [
        [valid, 'Bearer svc_garbage'],
        ['Bearer svc_garbage', valid],
        [valid, valid],
        ['Basic Zm9vOmJhcg==', valid],
      ]) {
        const res = await dup(first!, second!);
        expect(res.status, `${first} + ${second}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(envelopeProblems({ status: res.status, headers: res.headers, json: safeJson(res.body) })).toEqual([]);
          expect(res.status).toBe(401);
        }
      }
      // A garbage credential first never lets the valid second one through.
      expect((await dup('Bearer svc_garbage', valid)).status).toBe(401);
    });
  });

  describe('prototype pollution', () => {
    it('keeps __proto__ and constructor keys as plain data and never pollutes the server', async () => {
      const polluting = [
        `{"__proto__":{"polluted":"yes"},"key":"proto1","name":"P"}`,
        `{"constructor":{"prototype":{"polluted":"yes"}},"key":"proto2","name":"P"}`,
      ];
      for (const text of polluting) ok(await post(projects(), text, owner));
      ok(await put(`${envConfigs()}/${a.configKey}/value`, `{"value":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"x":1}}`));
      const state = await get(`${envConfigs()}/${a.configKey}`);
      expect(state.text).toContain('"__proto__":{"polluted":"yes"}');
      ok(await post(`/api/v1/envs/${a.envId}/evaluate`, `{"context":{"__proto__":{"userId":"a-user-1"},"constructor":{"prototype":{"x":1}}}}`));
      ok(await put(`${envFlags()}/${a.flagKey}/rules`, `{"rules":[{"conditions":[{"attribute":"__proto__","operator":"in","values":["x"]}],"value":true,"__proto__":{"value":false}}]}`));
      ok(await send(t.url, { method: 'PATCH', path: `/api/v1/projects/${a.projectId}/rollout-plans/${a.planKey}`, body: `{"__proto__":{"cadence":"auto"}}` }, key));
      ok(await post(`/api/v1/orgs/${a.slug}/api-keys`, `{"name":"p","__proto__":{"requiresApproval":true,"actions":["read"]}}`, owner));
      ok(await get(`/api/v1/orgs/${a.slug}/audit?__proto__[polluted]=yes&constructor[prototype][polluted]=yes`));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      // The plan did not become auto through a smuggled prototype.
      expect((await get(`/api/v1/projects/${a.projectId}/rollout-plans/${a.planKey}`)).json).toMatchObject({ cadence: 'manual' });
    });
  });

  describe('numbers', () => {
    it('treats percent edge values precisely: 1e309, -0, 0.1+0.2, 1E2, strings, too many decimals', async () => {
      const path = `${envFlags()}/pct/rollout`;
      await noWrite(async () => {
        for (const text of ['1e309', '-1e309', '-1', '100.00001', '0.00001', '"50"', 'null', '[]', '{}', 'true', '1e-7', '-0.00001', '123456789012345678901234567890']) {
          const body = expectEnvelope(await put(path, `{"percent":${text},"newValue":true}`), 400, 'invalid_request');
          expect(body.fields, text).toHaveProperty('percent');
        }
      });
      const zero = ok(await put(path, `{"percent":-0,"newValue":true}`));
      expect(zero.status).toBe(200);
      expect(Object.is((zero.json as { percent: number }).percent, 0)).toBe(true);
      const sum = ok(await put(path, `{"percent":${0.1 + 0.2},"newValue":true}`));
      expect(sum.status).toBe(200);
      // Within float noise of 4 decimals: accepted, and read back as that number.
      expect((sum.json as { percent: number }).percent).toBeCloseTo(0.3, 12);
      const exp = ok(await put(path, `{"percent":5E1,"newValue":true}`));
      expect((exp.json as { percent: number }).percent).toBe(50);
      const tiny = ok(await put(path, `{"percent":99.9999,"newValue":true}`));
      expect((tiny.json as { percent: number }).percent).toBe(99.9999);
    });

    it('refuses non-finite and out-of-range numbers in typed values, holds, limits and queries', async () => {
      await noWrite(async () => {
        const cases: Array<[string, () => Promise<RawResponse>]> = [
          ['number flag 1e309', () => put(`${envFlags()}/num/value`, `{"value":1e309}`)],
          ['number flag -1e309', () => put(`${envFlags()}/num/value`, `{"value":-1e309}`)],
          ['number flag default', () => post(`/api/v1/projects/${a.projectId}/flags`, `{"key":"inf","name":"I","valueType":"number","defaultValue":1e309}`)],
          ['hold', () => post(`/api/v1/projects/${a.projectId}/rollout-plans`, `{"key":"inf","name":"I","rampSteps":[{"percent":50,"holdForSeconds":1e309},{"percent":100,"holdForSeconds":0}]}`)],
          ['rate limit', () => post(`/api/v1/orgs/${a.slug}/api-keys`, `{"name":"big","rateLimitPerMin":1e21}`, owner)],
          ['ttl', () => post(`/api/v1/orgs/${a.slug}/api-keys`, `{"name":"big","ttlSeconds":1e309}`, owner)],
          ['audit limit', () => get(`/api/v1/orgs/${a.slug}/audit?limit=1e309`)],
          ['target-id limit', () => get(`${envFlags()}/${a.flagKey}/rollout/target-ids?limit=99999999999999999999`)],
          ['fires limit', () => get(`/api/v1/envs/${a.envId}/rollback-fires?limit=-0`)],
        ];
        for (const [what, call] of cases) {
          const res = await call();
          expect(envelopeProblems(res), what).toEqual([]);
          expect({ what, status: res.status }).toEqual({ what, status: 400 });
        }
      });
      // Large but finite numbers in JSON values round-trip.
      const big = ok(await put(`${envFlags()}/num/value`, `{"value":1.7976931348623157e308}`));
      expect((big.json as { value: number }).value).toBe(Number.MAX_VALUE);
    });
  });
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
