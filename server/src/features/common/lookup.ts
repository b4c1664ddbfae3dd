import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { EnvironmentEntity, OrgEntity, ProjectEntity, type Environment, type Org, type Project } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Malformed ids are simply not found: never let them reach PostgreSQL's uuid parser. */
export const isUuid = (value: string): boolean => UUID.test(value);

export async function findOrgBySlug(em: EntityManager, slug: string): Promise<Org> {
  const org = slug.length <= 63 ? await em.findOne(OrgEntity, { slug }) : null;
  if (!org) throw new DomainError('not_found', 'Organization not found.');
  return org;
}

export async function findProject(em: EntityManager, id: string): Promise<Project> {
  const project = isUuid(id) ? await em.findOne(ProjectEntity, { id }) : null;
  if (!project) throw new DomainError('not_found', 'Project not found.');
  return project;
}

export async function findEnvironment(em: EntityManager, id: string): Promise<Environment> {
  const env = isUuid(id) ? await em.findOne(EnvironmentEntity, { id }) : null;
  if (!env) throw new DomainError('not_found', 'Environment not found.');
  return env;
}

/** Runs `fn`; a unique-constraint race becomes `key_in_use` on the given field. */
export async function mapUniqueViolation<T>(fn: () => Promise<T>, error: () => DomainError): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw error();
    throw err;
  }
}

export const keyInUse = (what: string, key: string) =>
  new DomainError('key_in_use', `A ${what} with key "${key}" already exists.`, { fields: { key: 'already in use' } });

export const iso = (d: Date) => d.toISOString();
