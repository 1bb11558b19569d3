// The request deadlines' sweeper (runtime/server/deadlines.ts): in-flight deadlines are linked
// through their own fields, and one that leaves keeps no link to the others (a request's objects
// must not be held past its end by what it leaves behind). Fake timers: the sweeper ticks every
// 20 ms only when a test moves the clock.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { DeadlineSweeper, RequestDeadline } from '../../runtime/server/deadlines.js';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

const reason = new Error('deadline');

/** A tracked deadline `ms` from now that records when it expired. */
function deadline(sweeper: DeadlineSweeper, ms: number, expired: string[], name: string): RequestDeadline {
  const d = new RequestDeadline(Date.now() + ms);
  d.onExpire = () => expired.push(name);
  sweeper.track(d);
  return d;
}

it('expires the deadlines that passed, each once, and leaves the others tracked', () => {
  const sweeper = new DeadlineSweeper(() => reason);
  const expired: string[] = [];
  const a = deadline(sweeper, 30, expired, 'a');
  const b = deadline(sweeper, 100, expired, 'b');
  const c = deadline(sweeper, 30, expired, 'c');
  const d = deadline(sweeper, 30, expired, 'd');
  vi.advanceTimersByTime(40);
  // Neighbours in the list both due in one sweep: removing one does not skip the next.
  expect(expired.sort()).toEqual(['a', 'c', 'd']);
  expect([a, c, d].every((x) => x.expired)).toBe(true);
  expect(b.expired).toBe(false);
  vi.advanceTimersByTime(100);
  expect(expired.sort()).toEqual(['a', 'b', 'c', 'd']);
  vi.advanceTimersByTime(100);
  expect(expired).toHaveLength(4);
});

it('never expires a deadline untracked first, last or between others', () => {
  const sweeper = new DeadlineSweeper(() => reason);
  const expired: string[] = [];
  const all = ['a', 'b', 'c', 'd', 'e'].map((name) => deadline(sweeper, 50, expired, name));
  // Tracked newest first: e is the list's head, a its tail, c in the middle.
  sweeper.untrack(all[4]!);
  sweeper.untrack(all[0]!);
  sweeper.untrack(all[2]!);
  sweeper.untrack(all[2]!);
  vi.advanceTimersByTime(60);
  expect(expired.sort()).toEqual(['b', 'd']);
});

it('keeps no link from a deadline that left to those still in flight', () => {
  const sweeper = new DeadlineSweeper(() => reason);
  const expired: string[] = [];
  const [a, b, c] = ['a', 'b', 'c'].map((name) => deadline(sweeper, 1000, expired, name));
  sweeper.untrack(b!);
  expect([b!.previous, b!.next, b!.sweeper]).toEqual([undefined, undefined, undefined]);
  sweeper.untrack(a!);
  sweeper.untrack(c!);
  for (const x of [a!, c!]) expect([x.previous, x.next, x.sweeper]).toEqual([undefined, undefined, undefined]);
  vi.advanceTimersByTime(2000);
  expect(expired).toEqual([]);
});

it('tracks a deadline once however often it is handed over, and can track it again after it left', () => {
  const sweeper = new DeadlineSweeper(() => reason);
  const expired: string[] = [];
  const a = deadline(sweeper, 30, expired, 'a');
  sweeper.track(a);
  const b = deadline(sweeper, 30, expired, 'b');
  sweeper.untrack(a);
  sweeper.track(a);
  vi.advanceTimersByTime(40);
  expect(expired.sort()).toEqual(['a', 'b']);
  expect(b.expired).toBe(true);
});

it('stops ticking once a whole tick passed with nothing tracked', () => {
  const sweeper = new DeadlineSweeper(() => reason);
  const expired: string[] = [];
  const a = deadline(sweeper, 1000, expired, 'a');
  expect(vi.getTimerCount()).toBe(1);
  sweeper.untrack(a);
  vi.advanceTimersByTime(20); // the tick a track keeps
  vi.advanceTimersByTime(20);
  expect(vi.getTimerCount()).toBe(0);
});
