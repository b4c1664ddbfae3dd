import { z } from 'zod';

/** One audited change inside a committed write, as a live-change event lists it. */
export const LiveChange = z
  .object({
    resourceType: z.string(),
    resourceKey: z.string().nullable(),
    action: z.string(),
  })
  .strict();
export type LiveChange = z.infer<typeof LiveChange>;

/**
 * The data of a `change` event on an environment's or organization's event stream: one committed
 * write, the environment version it produced, and the audited changes in it that the caller may read.
 */
export const LiveChangeEvent = z
  .object({
    envId: z.string().uuid(),
    version: z.number().int(),
    changes: z.array(LiveChange),
  })
  .strict();
export type LiveChangeEvent = z.infer<typeof LiveChangeEvent>;
