/**
 * How long a test may wait for something before it is taken to hang: a guard against a test that
 * would otherwise never end, never a bound on speed. A wait that succeeds ends as soon as its
 * condition holds, so the guard costs nothing on a quick machine and does not fail a slow or busy
 * one (docs/development.md, "Tests").
 */
export const HANG_GUARD_MS = 600_000;
