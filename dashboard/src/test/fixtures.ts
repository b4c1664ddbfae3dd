import type { Flag } from '@gradual/sdk';

/** When the fixtures were created and last changed. */
export const FIXTURE_TIME = '2026-11-20T10:00:00.000Z';

/** A boolean flag's definition with every member set; a test overrides what it is about. */
export function flagDefinition(overrides: Partial<Flag> & Pick<Flag, 'projectId'>): Flag {
  return {
    id: '00000000-0000-4000-8000-0000000000f1',
    key: 'new-checkout',
    name: 'New checkout',
    description: null,
    valueType: 'boolean',
    defaultValue: false,
    clientVisible: false,
    tags: [],
    maintainer: null,
    metadata: {},
    variants: {},
    archivedAt: null,
    createdAt: FIXTURE_TIME,
    updatedAt: FIXTURE_TIME,
    ...overrides,
  };
}
