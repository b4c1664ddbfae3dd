/**
 * Acceptance scenario: a 4-step auto plan with an approval gate and a weekend
 * blackout in America/New_York, driven by a once-a-minute scheduler tick across
 * the 2026-11-01 fall-back (02:00 EDT → 01:00 EST). Expected instants are
 * computed with luxon (independently of schedule.ts) and pinned as literals.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { applyCommand, createRollout } from './state-machine.js';
import type { PlanSnapshot, RolloutAuditAction, RolloutState } from './types.js';

const ZONE = 'America/New_York';
const ny = (iso: string) => DateTime.fromISO(iso, { zone: ZONE });

const PLAN: PlanSnapshot = {
  key: 'weekday-ramp',
  rampSteps: [
    { percent: 10, holdForSeconds: 86_400 }, // 1 day
    { percent: 25, holdForSeconds: 345_600 }, // 4 days
    { percent: 50, holdForSeconds: 86_400, requiresApproval: true },
    { percent: 100, holdForSeconds: 0 },
  ],
  cadence: 'auto',
  blackoutDaysOfWeek: [0, 6], // Sunday, Saturday
  blackoutTimezone: ZONE,
};

interface Event {
  at: string;
  actions: RolloutAuditAction[];
  status: RolloutState['status'];
  percent: number;
  nextStepAt: string | null;
}

describe('acceptance: auto plan with gate and weekend blackout across the 2026-11-01 DST change (America/New_York)', () => {
  // Expected instants, from luxon in the plan's zone.
  const created = ny('2026-10-30T12:00'); // Friday noon EDT
  const firstStepDue = created; // approaching 10% from 0: due at once
  const secondStepDue = firstStepDue.plus({ seconds: 86_400 }); // Saturday noon EDT: blackout
  const mondayMidnight = ny('2026-11-02').startOf('day'); // Monday 00:00 EST (after the fall-back)
  const gateDue = mondayMidnight.plus({ seconds: 345_600 }); // Friday 2026-11-06 00:00 EST
  const approvedAt = ny('2026-11-06T09:00'); // operator resumes Friday 09:00 EST
  const finalDue = approvedAt.plus({ seconds: 86_400 }); // Saturday 09:00 EST: blackout
  const nextMondayMidnight = ny('2026-11-09').startOf('day');
  const utc = (d: DateTime) => d.toUTC().toISO();

  it('the independently computed instants are the expected ones', () => {
    expect(utc(created)).toBe('2026-10-30T16:00:00.000Z');
    expect(utc(secondStepDue)).toBe('2026-10-31T16:00:00.000Z');
    expect(secondStepDue.weekday).toBe(6); // luxon: 6 = Saturday
    expect(utc(mondayMidnight)).toBe('2026-11-02T05:00:00.000Z'); // 04:00Z would be the EDT midnight
    expect(utc(gateDue)).toBe('2026-11-06T05:00:00.000Z');
    expect(gateDue.weekday).toBe(5);
    expect(utc(finalDue)).toBe('2026-11-07T14:00:00.000Z');
    expect(utc(nextMondayMidnight)).toBe('2026-11-09T05:00:00.000Z');
  });

  it('lands on the expected percents at the expected instants, one step per tick', () => {
    const events: Event[] = [];
    const record = (at: Date, actions: RolloutAuditAction[], r: RolloutState) =>
      events.push({ at: at.toISOString(), actions, status: r.status, percent: r.percent, nextStepAt: r.nextStepAt?.toISOString() ?? null });

    let now = created.toJSDate();
    const t0 = createRollout(
      { percent: 0, planKey: PLAN.key, plan: PLAN, hasNewValue: true, newValue: true, defaultSeed: 'checkout:prod', defaultBucketField: 'userId' },
      now,
    );
    let r = t0.rollout;
    record(now, t0.actions, r);

    const end = ny('2026-11-12').toJSDate().getTime();
    const resumeAt = approvedAt.toJSDate().getTime();
    let ticks = 0;
    for (; now.getTime() <= end; now = new Date(now.getTime() + 60_000)) {
      if (now.getTime() === resumeAt) {
        expect(r).toMatchObject({ status: 'paused', pausedReason: 'approval_gate' });
        const t = applyCommand(r, { type: 'resume' }, now);
        record(now, t.actions, t.rollout);
        r = t.rollout;
      }
      const t = applyCommand(r, { type: 'tick' }, now);
      ticks++;
      if (t.changed) {
        record(now, t.actions, t.rollout);
        // The same tick again at the same instant never applies a step twice.
        expect(applyCommand(t.rollout, { type: 'tick' }, now).changed).toBe(false);
      } else {
        expect(t.rollout).toBe(r);
      }
      r = t.rollout;
    }

    expect(ticks).toBeGreaterThan(18_000);
    expect(events).toEqual([
      { at: utc(created), actions: ['rollout.created'], status: 'active', percent: 0, nextStepAt: utc(firstStepDue) },
      { at: utc(firstStepDue), actions: ['rollout.advanced'], status: 'active', percent: 10, nextStepAt: utc(secondStepDue) },
      // Saturday: blackout. Deferred to Monday 00:00 local, which is EST after the fall-back.
      { at: utc(secondStepDue), actions: [], status: 'active', percent: 10, nextStepAt: utc(mondayMidnight) },
      { at: utc(mondayMidnight), actions: ['rollout.advanced'], status: 'active', percent: 25, nextStepAt: utc(gateDue) },
      // Friday: not a blackout day, but the 50% step needs approval.
      { at: utc(gateDue), actions: ['rollout.approval_gate_reached'], status: 'paused', percent: 25, nextStepAt: null },
      { at: utc(approvedAt), actions: ['rollout.approval_resolved'], status: 'active', percent: 50, nextStepAt: utc(finalDue) },
      { at: utc(finalDue), actions: [], status: 'active', percent: 50, nextStepAt: utc(nextMondayMidnight) },
      { at: utc(nextMondayMidnight), actions: ['rollout.advanced', 'rollout.completed'], status: 'completed', percent: 100, nextStepAt: null },
    ]);
    expect(r).toMatchObject({ status: 'completed', percent: 100, rampStepIdx: 3, nextStepAt: null, pausedReason: null, pausedAtPercent: null });
  });

  it('a coarse scheduler (every 7 minutes, off the minute) lands on the same percents at its first tick after each due instant', () => {
    let now = created.toJSDate();
    let r = createRollout({ percent: 0, planKey: PLAN.key, plan: PLAN, hasNewValue: false, defaultSeed: 's', defaultBucketField: 'userId' }, now).rollout;
    const percents: Array<[string, number]> = [];
    const end = ny('2026-11-12').toJSDate().getTime();
    const resumeAt = approvedAt.toJSDate().getTime();
    let resumed = false;
    for (now = new Date(now.getTime() + 13_000); now.getTime() <= end; now = new Date(now.getTime() + 7 * 60_000)) {
      if (!resumed && now.getTime() >= resumeAt) {
        r = applyCommand(r, { type: 'resume' }, now).rollout;
        resumed = true;
        percents.push([now.toISOString(), r.percent]);
      }
      const t = applyCommand(r, { type: 'tick' }, now);
      if (t.actions.length > 0 && t.rollout.percent !== r.percent) percents.push([now.toISOString(), t.rollout.percent]);
      r = t.rollout;
    }
    const firstTickAtOrAfter = (d: DateTime) => {
      const startMs = created.toJSDate().getTime() + 13_000;
      const k = Math.ceil((d.toJSDate().getTime() - startMs) / 420_000);
      return new Date(startMs + Math.max(0, k) * 420_000);
    };
    const at10 = firstTickAtOrAfter(created);
    const at25 = firstTickAtOrAfter(mondayMidnight);
    const at50 = firstTickAtOrAfter(approvedAt);
    // After approval, the hold is measured from the actual resume instant; then Saturday is a blackout again.
    const at100 = firstTickAtOrAfter(nextMondayMidnight);
    expect(percents).toEqual([
      [at10.toISOString(), 10],
      [at25.toISOString(), 25],
      [at50.toISOString(), 50],
      [at100.toISOString(), 100],
    ]);
    expect(r.status).toBe('completed');
  });
});
