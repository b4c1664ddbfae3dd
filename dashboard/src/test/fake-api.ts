import { createClient, type GradualClient } from '@gradual/sdk';

export interface Recorded {
  method: string;
  path: string;
  /** The query string's parameters. */
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };
type Handler = (req: Recorded) => Answer | Promise<Answer>;

/**
 * A real SDK client over a fake fetch: each request is recorded and answered by `handler`, so
 * components see exactly what the server's envelopes turn into (GradualApiError with `fields`).
 */
export function fakeApi(handler: Handler): { client: GradualClient; requests: Recorded[] } {
  const requests: Recorded[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const text = await req.text();
    const url = new URL(req.url);
    const recorded: Recorded = {
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(recorded);
    const answer = await handler(recorded);
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-test', ...answer.headers },
    });
  };
  return { client: createClient({ baseUrl: 'http://dashboard.test', fetch }), requests };
}

/** The error envelope the server writes. */
export function envelope(code: string, message: string, fields?: Record<string, string>, details?: Record<string, unknown>) {
  return { code, message, ...(fields ? { fields } : {}), ...(details ? { details } : {}), requestId: 'req-test' };
}

/** The validation message shown for a form control: the text of what aria-describedby names. */
export function descriptionOf(el: HTMLElement): string {
  return (el.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}
