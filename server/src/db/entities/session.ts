import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';
import { UserEntity } from './user.js';

export const SessionEntity = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: (p) => ({
    id: id(),
    /** Hex SHA-256 of the cookie token; the token itself is never stored. */
    tokenHash: p.text().unique(),
    userId: p.manyToOne(UserEntity).mapToPk().fieldName('user_id').deleteRule('cascade').index(),
    expiresAt: timestamp(),
    createdAt: timestamp(),
    lastSeenAt: timestamp(),
  }),
});
export type Session = InferEntity<typeof SessionEntity>;
