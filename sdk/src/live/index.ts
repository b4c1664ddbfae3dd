export { createFlagClient } from './flag-client.js';
export type {
  EvaluateOptions,
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
  EvaluationValueType,
  RulesetSource,
} from './flag-client.js';
export { FlagClientError, isFlagClientError } from './errors.js';
export type { FlagClientErrorCode, FlagClientErrorSource } from './errors.js';
