/**
 * The server's only source of time. Production uses the wall clock; with
 * SERVICE_TEST_CLOCK=1 tests move a settable clock through POST /__test__/clock,
 * so token expiry and the scheduler are tested without sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class SettableClock implements Clock {
  private offsetMs = 0;
  private fixed: number | null = null;

  now(): Date {
    return new Date(this.fixed ?? Date.now() + this.offsetMs);
  }

  /** Moves time forward (never backward) by `seconds`. */
  advance(seconds: number): Date {
    if (this.fixed !== null) this.fixed += seconds * 1000;
    else this.offsetMs += seconds * 1000;
    return this.now();
  }

  /** Pins the clock at `at`; it stays there until moved again. */
  set(at: Date): Date {
    this.fixed = at.getTime();
    return this.now();
  }
}
