export { createClient } from './client.js';
export type { ClientOptions, GradualClient, GradualOperations, GradualRawOperations } from './client.js';
export { GradualApiError, isGradualApiError } from './errors.js';
export type { ErrorCode } from './errors.js';
export type * from './generated/types.gen.js';
