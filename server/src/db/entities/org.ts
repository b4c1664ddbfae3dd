import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';

export const OrgEntity = defineEntity({
  name: 'Org',
  tableName: 'orgs',
  properties: (p) => ({
    id: id(),
    slug: p.text().unique(),
    name: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
});
export type Org = InferEntity<typeof OrgEntity>;
