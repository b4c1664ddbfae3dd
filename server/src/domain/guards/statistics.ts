/**
 * The always-valid tests a guarded ramp step runs on its two arms (docs/guards.md): each gives an
 * e-value, a number whose chance of ever reaching 1/α while the candidate is no worse than the
 * control (beyond the margin) is at most α, however often it is looked at (Ville's inequality). A
 * step rolls back when a metric's e-value reaches 1/α. Pure arithmetic, no dependencies.
 *
 * - Count metrics (errors, crashes: events per exposed unit): a rate-ratio mixture test on the
 *   counting process, stratified by interval. Given the events of one interval, the treatment's
 *   share of them is binomial with π(r) = r·n_T / (r·n_T + n_C), r the ratio of the arms' rates;
 *   the test multiplies the intervals' likelihood ratios of r against r₀ and mixes over a grid of
 *   worse ratios. Each interval stands alone, so a change of allocation or of the base rate between
 *   intervals (a ramp, a daily cycle) cannot bias it (Lindon & Malek, NeurIPS 2022).
 * - Mean metrics (latency, a tracked value): the normal-mixture sequential probability ratio test
 *   on the difference of the arms' means, with its confidence sequence (Johari et al. 2015;
 *   Howard et al. 2021); the mixing variance is tuned to a planned sample size.
 * - Sample-ratio mismatch: a Beta-binomial Bayes factor against the 1:1 split the arms must have.
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 coefficients: about 15 significant digits). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** ln B(a, b), the Beta function. */
export const lnBeta = (a: number, b: number): number => lnGamma(a) + lnGamma(b) - lnGamma(a + b);

/** ln(e^a + e^b) without overflow. */
function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const m = Math.max(a, b);
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

// ---------------------------------------------------------------- count metrics

/** One interval of a count metric: exposed units and events per arm. */
export interface CountInterval {
  treatmentUnits: number;
  treatmentEvents: number;
  controlUnits: number;
  controlEvents: number;
}

/**
 * The worse rate ratios the count test mixes over, as multiples of r₀ (equal weights). Wide enough
 * to catch a doubling within a thousand exposures at a 1 % base rate, fine enough to catch +50 %.
 */
export const RATE_RATIO_GRID: readonly number[] = [1.1, 1.25, 1.5, 2, 3, 5];

/**
 * The running state of a count test: Σ over intervals of the log-likelihood ratio, per ratio of
 * the grid. `worse` says which way is a regression: `higher` (errors: the candidate's rate above
 * r₀ times the control's) or `lower` (conversions: below 1/r₀ times).
 */
export interface CountTest {
  readonly r0: number;
  readonly worse: 'higher' | 'lower';
  readonly logLikelihood: readonly number[];
  readonly intervals: number;
}

/** A count test before any data; `margin` ≥ 0 is the relative change tolerated (0.1: 10 % worse). */
export function countTest(margin: number, worse: 'higher' | 'lower'): CountTest {
  return { r0: 1 + margin, worse, logLikelihood: RATE_RATIO_GRID.map(() => 0), intervals: 0 };
}

/** The treatment's share of an interval's events under rate ratio r (r = treatment rate / control rate). */
const share = (r: number, nT: number, nC: number) => (r * nT) / (r * nT + nC);

/** The test with one more interval. Intervals where an arm had no units, or no events happened, change nothing. */
export function addInterval(test: CountTest, i: CountInterval): CountTest {
  const { treatmentUnits: nT, controlUnits: nC, treatmentEvents: kT, controlEvents: kC } = i;
  if (nT <= 0 || nC <= 0 || kT + kC === 0) return { ...test, intervals: test.intervals + 1 };
  // A regression for `lower` is the control's rate above the candidate's: swap the arms.
  const [aN, aK, bN, bK] = test.worse === 'higher' ? [nT, kT, nC, kC] : [nC, kC, nT, kT];
  const p0 = share(test.r0, aN, bN);
  const logLikelihood = test.logLikelihood.map((sum, j) => {
    const p = share(test.r0 * RATE_RATIO_GRID[j]!, aN, bN);
    return sum + aK * Math.log(p / p0) + bK * Math.log((1 - p) / (1 - p0));
  });
  return { ...test, logLikelihood, intervals: test.intervals + 1 };
}

/** ln E of a count test: the log of the grid's mean likelihood ratio. */
export function countLogE(test: CountTest): number {
  let sum = -Infinity;
  for (const l of test.logLikelihood) sum = logAddExp(sum, l);
  return sum - Math.log(test.logLikelihood.length);
}

// ---------------------------------------------------------------- mean metrics

/** One arm's sufficient statistics: units, Σx and Σx². */
export interface Moments {
  n: number;
  sum: number;
  sumSq: number;
}

export interface MeanTestResult {
  /** Candidate minus control (for `worse: 'lower'`, control minus candidate): positive is worse. */
  difference: number;
  standardError: number;
  /** ln E; 0 when the difference is on the good side of the margin or the data cannot say. */
  logE: number;
  /** The always-valid confidence sequence for `difference` at the level asked. */
  lower: number;
  upper: number;
}

const variance = (m: Moments) => (m.n > 1 ? Math.max(0, (m.sumSq - (m.sum * m.sum) / m.n) / (m.n - 1)) : NaN);

/** ρ² of the normal mixture, tuned so the test is most powerful near `plannedUnits` (both arms). */
export function mixingVariance(alpha: number, plannedUnits: number): number {
  return (-2 * Math.log(alpha) + Math.log(1 - 2 * Math.log(alpha))) / plannedUnits;
}

/**
 * The mean test on the arms' moments: difference d̂ (worse is positive), z = (d̂ − δ)/se, and
 * E = exp(Nρ²z²/(2(Nρ²+1))) / √(Nρ²+1) with N the units of both arms, counted only when d̂ > δ.
 */
export function meanTest(treatment: Moments, control: Moments, margin: number, worse: 'higher' | 'lower', alpha: number, plannedUnits: number): MeanTestResult {
  const sign = worse === 'higher' ? 1 : -1;
  const difference = sign * (treatment.sum / treatment.n - control.sum / control.n);
  const standardError = Math.sqrt(variance(treatment) / treatment.n + variance(control) / control.n);
  const n = treatment.n + control.n;
  if (!(standardError > 0) || !Number.isFinite(difference)) return { difference, standardError, logE: 0, lower: -Infinity, upper: Infinity };
  const rho2 = mixingVariance(alpha, plannedUnits);
  const z = (difference - margin) / standardError;
  const logE = difference > margin ? (n * rho2 * z * z) / (2 * (n * rho2 + 1)) - 0.5 * Math.log(n * rho2 + 1) : 0;
  const halfWidth = standardError * Math.sqrt(n) * Math.sqrt((2 * (n * rho2 + 1) * Math.log(Math.sqrt(n * rho2 + 1) / alpha)) / (n * n * rho2));
  return { difference, standardError, logE, lower: difference - halfWidth, upper: difference + halfWidth };
}

// ---------------------------------------------------------------- sample-ratio mismatch

/** Prior concentration of the SRM test's Beta prior around the expected split. */
export const SRM_PRIOR_CONCENTRATION = 100;

/**
 * ln of the Bayes factor for "the split is not the expected one" against "it is", with a
 * Beta(c·s, c·(1 − s)) prior on the treatment's share around the expected share s:
 * ln B(c·s + n_T, c·(1 − s) + n_C) − ln B(c·s, c·(1 − s)) − n_T·ln s − n_C·ln(1 − s). Its
 * reciprocal is an always-valid p-value; a mismatch is declared when it falls below the SRM α.
 */
export function srmLogBayesFactor(treatmentUnits: number, controlUnits: number, expectedShare = 0.5, concentration = SRM_PRIOR_CONCENTRATION): number {
  const a = concentration * expectedShare;
  const b = concentration * (1 - expectedShare);
  return lnBeta(a + treatmentUnits, b + controlUnits) - lnBeta(a, b) - treatmentUnits * Math.log(expectedShare) - controlUnits * Math.log(1 - expectedShare);
}
