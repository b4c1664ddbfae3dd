import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';
import { ProjectEntity } from './project.js';

export const EnvironmentEntity = defineEntity({
  name: 'Environment',
  tableName: 'environments',
  properties: (p) => ({
    id: id(),
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade'),
    /** Denormalised from the project so tenant checks need no join. */
    orgId: p.uuid(),
    key: p.text(),
    name: p.text(),
    /** +1 on every committed write in the environment; services set it (0 on create). */
    version: p.integer(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  uniques: [{ properties: ['projectId', 'key'] }],
});
export type Environment = InferEntity<typeof EnvironmentEntity>;
