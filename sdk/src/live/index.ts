export { createFlagClient } from './flag-client.js';
export type {
  EvaluateOptions,
  EvaluationHook,
  EvaluationValueType,
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
} from './types.js';
export type { Exposure, ExposureOptions } from './exposures.js';
