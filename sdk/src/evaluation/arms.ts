/**
 * The arms of a guarded ramp step (docs/guards.md), from the context's bucket and the rollout's
 * percent, without drawing anyone again: the bucket does not depend on the percent.
 *
 * - At a percent p ≤ 50: treatment is buckets [0, p), the contexts admitted (`rollout-new`);
 *   control is the mirror band [100 − p, 100), contexts served the base value that a ramp admits
 *   last. The arms are the same size (1:1).
 * - Above 50: treatment [0, 50) against control [p, 100); the band [50, p) is in neither.
 * - At 0 % or 100 %, there is no comparison: no arm.
 *
 * Both arms only grow as the percent rises, so nobody ever changes arm, and a resume after a
 * rollback brings back the same cohorts. Target-ID matches and contexts without a bucket are in
 * no arm (the caller does not ask for them).
 */
export type GuardArm = 'treatment' | 'control';

export function armOf(bucket: number, percent: number): GuardArm | null {
  if (!(percent > 0 && percent < 100)) return null;
  if (percent <= 50) {
    if (bucket < percent) return 'treatment';
    return bucket >= 100 - percent ? 'control' : null;
  }
  if (bucket < 50) return 'treatment';
  return bucket >= percent ? 'control' : null;
}

/** The treatment's expected share of the units in the two arms at `percent` (0.5 up to 50 %). */
export function treatmentShare(percent: number): number {
  if (!(percent > 0 && percent < 100)) return NaN;
  return percent <= 50 ? 0.5 : 50 / (50 + (100 - percent));
}
