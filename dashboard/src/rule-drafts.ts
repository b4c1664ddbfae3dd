import type { Condition, ConditionOperator, Rule } from '@gradual/sdk';
import { formatJsonPretty, parseJsonInput } from './format';

/**
 * Rules as the rule editor holds them while someone types: every condition's values as text (or
 * picked segment keys), a rule's value as JSON text. `fromDrafts` turns them back into the API's
 * rules, with each problem keyed by the dotted path the server uses for the same field
 * (`rules.0.conditions.1.values`), so local and server messages show in the same place.
 */

export const OPERATORS: readonly ConditionOperator[] = ['in', 'not_in', 'starts_with', 'ends_with', 'contains', 'gt', 'gte', 'lt', 'lte', 'in_segment', 'not_in_segment'];

export const OPERATOR_TEXT: Record<ConditionOperator, string> = {
  in: 'is one of',
  not_in: 'is not one of',
  starts_with: 'starts with',
  ends_with: 'ends with',
  contains: 'contains',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in_segment: 'is in segment',
  not_in_segment: 'is not in segment',
};

export const isSegmentOperator = (op: ConditionOperator): boolean => op === 'in_segment' || op === 'not_in_segment';
const isNumericOperator = (op: ConditionOperator): boolean => op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte';

export interface ConditionDraft {
  attribute: string;
  operator: ConditionOperator;
  /** Values of a non-segment condition, comma-separated. */
  values: string;
  /** Segment keys of an `in_segment` / `not_in_segment` condition. */
  segments: string[];
}

export interface RuleDraft {
  description: string;
  conditions: ConditionDraft[];
  /** The rule's value as JSON text (flag and config rules only). */
  value: string;
}

export function emptyCondition(): ConditionDraft {
  return { attribute: '', operator: 'in', values: '', segments: [] };
}

export function emptyRule(withValue: boolean, withCondition: boolean): RuleDraft {
  return { description: '', conditions: withCondition ? [emptyCondition()] : [], value: withValue ? 'true' : '' };
}

export function toDraft(rule: Rule): RuleDraft {
  return {
    description: rule.description ?? '',
    conditions: rule.conditions.map((c) => ({
      attribute: c.attribute,
      operator: c.operator,
      values: isSegmentOperator(c.operator) ? '' : c.values.map(String).join(', '),
      segments: isSegmentOperator(c.operator) ? c.values.map(String) : [],
    })),
    value: formatJsonPretty(rule.value),
  };
}

/** A condition's operator changed: segment operators take keys, and their attribute defaults to the project's target-ID field. */
export function withOperator(c: ConditionDraft, operator: ConditionOperator, defaultAttribute: string): ConditionDraft {
  const next = { ...c, operator };
  if (isSegmentOperator(operator) && next.attribute.trim() === '') next.attribute = defaultAttribute;
  return next;
}

export type DraftResult = { ok: true; rules: Rule[] } | { ok: false; errors: Record<string, string> };

/**
 * The drafts as the API's rules. `withValue`: flag and config rules (each has a value, and may
 * have no condition: "always"); otherwise segment rules (no value, at least one condition).
 */
export function fromDrafts(drafts: RuleDraft[], withValue: boolean): DraftResult {
  const errors: Record<string, string> = {};
  const rules: Rule[] = drafts.map((d, i) => {
    const at = `rules.${i}`;
    if (!withValue && d.conditions.length === 0) errors[`${at}.conditions`] = 'A segment rule needs at least one condition.';
    const conditions: Condition[] = d.conditions.map((c, j) => {
      const path = `${at}.conditions.${j}`;
      const attribute = c.attribute.trim();
      if (!attribute) errors[`${path}.attribute`] = 'Enter the context attribute to test.';
      let values: (string | number)[];
      if (isSegmentOperator(c.operator)) {
        values = c.segments;
        if (values.length === 0) errors[`${path}.values`] = 'Pick at least one segment.';
      } else {
        const texts = c.values
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== '');
        if (texts.length === 0) errors[`${path}.values`] = 'Enter at least one value.';
        if (isNumericOperator(c.operator)) {
          const numbers = texts.map(Number);
          if (numbers.some((n) => !Number.isFinite(n))) errors[`${path}.values`] = 'Comparisons take numbers.';
          values = numbers;
        } else {
          values = texts;
        }
      }
      return { attribute, operator: c.operator, values };
    });
    const rule: Rule = { conditions };
    const description = d.description.trim();
    if (description) rule.description = description;
    if (withValue) {
      const parsed = parseJsonInput(d.value);
      if (parsed.ok) rule.value = parsed.value;
      else errors[`${at}.value`] = parsed.error;
    }
    return rule;
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, rules };
}

/** The segment keys a list of rules names, each once. */
export function segmentKeysOf(rules: readonly Rule[]): string[] {
  const keys = new Set<string>();
  for (const r of rules) for (const c of r.conditions) if (isSegmentOperator(c.operator)) for (const v of c.values) keys.add(String(v));
  return [...keys];
}
