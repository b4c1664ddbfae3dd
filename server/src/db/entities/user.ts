import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';

export const UserEntity = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: (p) => ({
    id: id(),
    /** Stored lowercased (the check constraint refuses anything else); look up with `email.toLowerCase()`. */
    email: p.text().unique(),
    displayName: p.text(),
    createdAt: timestamp(),
    deletedAt: timestamp().nullable(),
  }),
  checks: [{ name: 'users_email_lowercase_check', expression: 'email = lower(email)' }],
});
export type User = InferEntity<typeof UserEntity>;
