import type { NextFunction, Request, Response } from 'express';
import type { RequestValidationError } from '@ts-rest/express';
import type { ZodIssue } from 'zod';
import { DomainError } from '../domain/errors.js';
import { fieldsFromZod, sendError } from './errors.js';

type ValidationErrorHandler = (err: RequestValidationError, req: Pick<Request, 'id' | 'method' | 'baseUrl' | 'path'>, res: Response, next: NextFunction) => void;

/**
 * Whether a request issue is one of a plan's ramp limits that the contract's schema checks (the
 * contract's RAMP_STEPS_MIN/MAX on `rampSteps`, HOLD_SECONDS_MAX on a step's `holdForSeconds`),
 * rather than a wrong shape or type.
 */
function isRampLimit(issue: ZodIssue): boolean {
  if (issue.path[0] !== 'rampSteps') return false;
  if (issue.path.length === 1) return issue.code === 'too_small' || issue.code === 'too_big';
  return issue.path.length === 3 && issue.path[2] === 'holdForSeconds' && issue.code === 'too_big';
}

/**
 * A plan body refused by the contract only for its ramp limits (too few or too many steps, a hold
 * too long) answers `400 rollout_plan_invalid_ramp` with `fields`, as the ramp rules the server
 * checks itself do (domain/rollouts/plan-validation.ts); any other validation failure goes to
 * `handler` (`400 invalid_request`).
 */
export function rampLimitsAsInvalidRamp(handler: ValidationErrorHandler): ValidationErrorHandler {
  return (err, req, res, next) => {
    const issues = err.body?.issues ?? [];
    if (!err.pathParams && !err.query && !err.headers && issues.length > 0 && issues.every(isRampLimit)) {
      sendError(req, res, new DomainError('rollout_plan_invalid_ramp', 'The ramp steps are invalid.', { fields: fieldsFromZod(issues) }));
      return;
    }
    handler(err, req, res, next);
  };
}
