/** The engine's only source of time (unix ms), so tests move time instead of sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const toSeconds = (ms: number) => Math.floor(ms / 1000);
