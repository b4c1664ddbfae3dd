import { z } from 'zod';
import { named } from '../openapi-meta.js';

/** Deleting is irreversible, so the caller types the key of what goes again (as for an organization's slug). */
const confirmation = (what: string) => z.object({ confirm: z.string().max(200).optional() }).describe(`\`confirm\` must be the ${what}, typed again.`);

export const DeletePrimitiveRequest = named('DeletePrimitiveRequest', confirmation("flag's or config's key"));
export const DeleteEnvironmentRequest = named('DeleteEnvironmentRequest', confirmation("environment's key"));
export const DeleteProjectRequest = named('DeleteProjectRequest', confirmation("project's key"));
export const DeleteSegmentRequest = named('DeleteSegmentRequest', confirmation("segment's key"));
