import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';
import { OrgEntity } from './org.js';

export const ProjectEntity = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: (p) => ({
    id: id(),
    orgId: p.manyToOne(OrgEntity).mapToPk().fieldName('org_id').deleteRule('cascade'),
    key: p.text(),
    name: p.text(),
    targetIdField: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  // (org_id, key) also serves "projects of an org" lookups.
  uniques: [{ properties: ['orgId', 'key'] }],
});
export type Project = InferEntity<typeof ProjectEntity>;
