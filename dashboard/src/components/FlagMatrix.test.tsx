// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Config, Environment, Flag } from '@gradual/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { useLocation } from '../router';
import { descriptionOf, envelope, fakeApi } from '../test/fake-api';
import { flagDefinition } from '../test/fixtures';
import { FlagMatrix } from './FlagMatrix';

afterEach(() => {
  cleanup();
  setApi(undefined);
});
beforeEach(() => window.history.replaceState(null, '', '/app/o/acme/p/p1'));

const PROJECT = '00000000-0000-4000-8000-0000000000a1';
const PROD: Environment = { id: '00000000-0000-4000-8000-0000000000e1', projectId: PROJECT, key: 'production', name: 'Production', version: 4, createdAt: '2026-11-20T10:00:00.000Z' };
const STAGING: Environment = { id: '00000000-0000-4000-8000-0000000000e2', projectId: PROJECT, key: 'staging', name: 'Staging', version: 2, createdAt: '2026-11-20T10:00:00.000Z' };
const FLAG: Flag = flagDefinition({ projectId: PROJECT });
const CONFIG: Config = {
  id: '00000000-0000-4000-8000-0000000000c1',
  projectId: PROJECT,
  key: 'checkout.limits',
  name: 'Checkout limits',
  description: null,
  defaultValue: { max: 3 },
  clientVisible: false,
  tags: [],
  maintainer: null,
  metadata: {},
  variants: {},
  schema: null,
  archivedAt: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
};

/** The link of `key` in the environment named `env`: named by the environment, described by the key. */
function cellLink(key: string, env: string): HTMLElement {
  const row = screen.getAllByRole('row').find((r) => r.querySelector('code')?.textContent === key);
  if (!row) throw new Error(`no row for ${key}`);
  return within(row).getByRole('link', { name: new RegExp(`^${env}:`) });
}

/** A rollout as the server lists it (only what the matrix reads matters; the rest keeps the shape). */
function rollout(envId: string, status: string, percent: number, updatedAt: string) {
  return {
    id: '00000000-0000-4000-8000-0000000000r1',
    environmentId: envId,
    primitiveKind: 'flag',
    primitiveKey: 'new-checkout',
    status,
    percent,
    pausedAtPercent: null,
    pausedReason: null,
    rolledBackFromPercent: null,
    seed: 'new-checkout:production',
    bucketField: 'userId',
    newValue: true,
    planKey: null,
    planRampStepsSnapshot: null,
    cadence: null,
    planBlackoutDaysOfWeek: null,
    planBlackoutTimezone: null,
    rampStepIdx: null,
    nextStepAt: null,
    targetIdsCount: 0,
    lastAutoRollback: null,
    lastGuardStop: null,
    createdAt: updatedAt,
    updatedAt,
  };
}

const STATES: Record<string, { flags: unknown[]; configs: unknown[] }> = {
  [PROD.id]: {
    flags: [{ key: 'new-checkout', envId: PROD.id, valueType: 'boolean', value: false, rules: [], rollout: rollout(PROD.id, 'active', 25, '2026-11-23T09:30:00.000Z'), updatedAt: '2026-11-21T08:00:00.000Z' }],
    configs: [{ key: 'checkout.limits', envId: PROD.id, value: { max: 5 }, rules: [], rollout: null, updatedAt: '2026-11-22T12:00:00.000Z' }],
  },
  [STAGING.id]: {
    flags: [{ key: 'new-checkout', envId: STAGING.id, valueType: 'boolean', value: true, rules: [{ conditions: [], value: true }], rollout: null, updatedAt: '2026-11-21T08:00:00.000Z' }],
    configs: [{ key: 'checkout.limits', envId: STAGING.id, value: { max: 3 }, rules: [], rollout: null, updatedAt: '2026-11-20T10:00:00.000Z' }],
  },
};

function answerStates(failEnv?: string) {
  return fakeApi(({ method, path }) => {
    const m = /^\/api\/v1\/envs\/([^/]+)\/(flags|configs)$/.exec(path);
    if (method !== 'GET' || !m) return { status: 404, body: envelope('not_found', `no route ${method} ${path}`) };
    if (m[1] === failEnv) return { status: 403, body: envelope('insufficient_role', 'Not allowed in this environment.') };
    const env = STATES[m[1]!];
    return env ? { status: 200, body: env[m[2] as 'flags' | 'configs'] } : { status: 404, body: envelope('not_found', 'No such environment.') };
  });
}

function Where() {
  return <output data-testid="where">{useLocation().path}</output>;
}

describe('FlagMatrix', () => {
  it('shows every flag and config in every environment side by side, each cell linking to it there', async () => {
    const { client, requests } = answerStates();
    setApi(client);
    render(
      <>
        <FlagMatrix slug="acme" projectId={PROJECT} envs={[PROD, STAGING]} flags={[FLAG]} configs={[CONFIG]} />
        <Where />
      </>,
    );
    await screen.findAllByTestId('matrix-cell');
    const prodCell = cellLink('new-checkout', 'Production');
    expect(descriptionOf(prodCell)).toBe('new-checkout');
    expect(prodCell.getAttribute('href')).toBe(`/app/o/acme/p/${PROJECT}/e/${PROD.id}/flags/new-checkout`);
    expect(prodCell.textContent).toContain('false');
    expect(prodCell.textContent).toContain('Rolling out');
    expect(prodCell.textContent).toContain('25%');
    // The last change is the rollout's (newer than the value's).
    expect(prodCell.textContent).toContain(new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date('2026-11-23T09:30:00.000Z')));

    const stagingCell = cellLink('new-checkout', 'Staging');
    expect(stagingCell.getAttribute('href')).toBe(`/app/o/acme/p/${PROJECT}/e/${STAGING.id}/flags/new-checkout`);
    expect(stagingCell.textContent).toContain('true');
    expect(stagingCell.textContent).toContain('1 rule');
    expect(stagingCell.textContent).not.toContain('%');

    const configCell = cellLink('checkout.limits', 'Production');
    expect(configCell.getAttribute('href')).toBe(`/app/o/acme/p/${PROJECT}/e/${PROD.id}/configs/checkout.limits`);
    expect(configCell.textContent).toContain('{"max":5}');

    // Rows in key order; columns in the environments' order.
    const table = screen.getByTestId('flag-matrix');
    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['Key', 'Default value', 'Production', 'Staging']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.querySelector('code')?.textContent)).toEqual(['checkout.limits', 'new-checkout']);

    // One listing per kind and environment.
    expect(requests.map((r) => r.path).sort()).toEqual(
      [`/api/v1/envs/${PROD.id}/configs`, `/api/v1/envs/${PROD.id}/flags`, `/api/v1/envs/${STAGING.id}/configs`, `/api/v1/envs/${STAGING.id}/flags`].sort(),
    );

    // A plain click navigates in place.
    fireEvent.click(stagingCell);
    expect(screen.getByTestId('where').textContent).toBe(`/o/acme/p/${PROJECT}/e/${STAGING.id}/flags/new-checkout`);
  });

  it('links the key to the flag in the first environment', async () => {
    const { client } = answerStates();
    setApi(client);
    render(<FlagMatrix slug="acme" projectId={PROJECT} envs={[PROD, STAGING]} flags={[FLAG]} configs={[]} />);
    await screen.findAllByTestId('matrix-cell');
    const keyLink = screen.getByRole('link', { name: 'new-checkout' });
    expect(keyLink.getAttribute('href')).toBe(`/app/o/acme/p/${PROJECT}/e/${PROD.id}/flags/new-checkout`);
    // The key names one cell of its row, the first.
    expect(screen.getAllByRole('cell', { name: /new-checkout/ })).toHaveLength(1);
  });

  it('says why an environment could not be read', async () => {
    const { client } = answerStates(STAGING.id);
    setApi(client);
    render(<FlagMatrix slug="acme" projectId={PROJECT} envs={[PROD, STAGING]} flags={[FLAG]} configs={[]} />);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/role in this organization does not allow this|Not allowed/));
  });

  it('lists definitions with their default values before any environment exists', () => {
    const { client, requests } = answerStates();
    setApi(client);
    render(<FlagMatrix slug="acme" projectId={PROJECT} envs={[]} flags={[FLAG]} configs={[CONFIG]} />);
    expect(screen.getByText('{"max":3}')).toBeTruthy();
    expect(screen.getByText(/create an environment to set them/)).toBeTruthy();
    expect(requests).toHaveLength(0);
  });

  it('toggles whether client keys may evaluate a flag (PATCH clientVisible) and tells the page', async () => {
    const changed: string[] = [];
    const { client, requests } = fakeApi(({ method, path, body }) => {
      if (method === 'PATCH' && path === `/api/v1/projects/${PROJECT}/flags/new-checkout`) {
        return { status: 200, body: { ...FLAG, ...(body as object) } };
      }
      const m = /^\/api\/v1\/envs\/([^/]+)\/(flags|configs)$/.exec(path);
      return m ? { status: 200, body: STATES[m[1]!]![m[2] as 'flags' | 'configs'] } : { status: 404, body: envelope('not_found', 'no route') };
    });
    setApi(client);
    render(<FlagMatrix slug="acme" projectId={PROJECT} envs={[PROD]} flags={[FLAG]} configs={[CONFIG]} onDefinitionChanged={(kind) => changed.push(kind)} />);
    const row = screen.getAllByRole('row').find((r) => r.querySelector('code')?.textContent === 'new-checkout')!;
    const box = within(row).getByRole('checkbox', { name: 'Client-visible' });
    expect((box as HTMLInputElement).checked).toBe(false);
    fireEvent.click(box);
    await waitFor(() => expect((box as HTMLInputElement).checked).toBe(true));
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ clientVisible: true });
    expect(changed).toEqual(['flag']);
  });

  it('shows a definition changed elsewhere when the page passes it again', () => {
    setApi(answerStates().client);
    const { rerender } = render(<FlagMatrix slug="acme" projectId={PROJECT} envs={[]} flags={[FLAG]} configs={[]} />);
    const box = () => screen.getByRole<HTMLInputElement>('checkbox', { name: 'Client-visible' });
    expect(box().checked).toBe(false);
    rerender(<FlagMatrix slug="acme" projectId={PROJECT} envs={[]} flags={[{ ...FLAG, clientVisible: true, archivedAt: '2026-11-23T10:00:00.000Z' }]} configs={[]} />);
    expect(box().checked).toBe(true);
    expect(screen.getByText('Archived')).toBeTruthy();
  });
});
