export { createClient } from './client.js';
export type { ClientOptions, GradualClient, GradualOperations, GradualRawOperations, MutationResult, OperationName, OperationResult, ProposableOperation, ResponseResult, RetryOptions } from './client.js';
export { API_PREFIX } from './api-prefix.js';
export { GradualApiError, isGradualApiError } from './errors.js';
export type { ErrorCode, RateLimit } from './errors.js';
export type * from './generated/types.gen.js';
export { createFlagClient } from './live/index.js';
export type {
  EvaluateOptions,
  EvaluationHook,
  EvaluationValueType,
  Exposure,
  ExposureOptions,
  FlagChangeEvent,
  FlagClient,
  FlagClientEvents,
  FlagClientLogger,
  FlagClientMode,
  FlagClientOptions,
  FlagClientStatus,
  FlagErrorCode,
  FlagEvaluation,
  FlagReason,
  RulesetSource,
} from './live/index.js';
