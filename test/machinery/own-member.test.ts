// The shared helpers every copy, merge and lookup of request data uses for member names.
import { describe, expect, it } from 'vitest';
import { getMember, hasMember, setMember } from '../../runtime/machinery/own-member.js';

describe('own members', () => {
  it('setMember makes __proto__ an own enumerable member and leaves the prototype alone', () => {
    const obj: Record<string, unknown> = {};
    setMember(obj, '__proto__', { polluted: true });
    setMember(obj, 'a', 1);
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(obj.polluted).toBeUndefined();
    expect(Object.keys(obj)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(obj)).toBe('{"__proto__":{"polluted":true},"a":1}');
    setMember(obj, '__proto__', 'again');
    expect(Object.getOwnPropertyDescriptor(obj, '__proto__')?.value).toBe('again');
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('getMember and hasMember see no inherited %s', (key) => {
    expect(getMember({}, key)).toBeUndefined();
    expect(hasMember({}, key)).toBe(false);
    const own = JSON.parse(`{"${key}":"v"}`) as object;
    expect(getMember(own, key)).toBe('v');
    expect(hasMember(own, key)).toBe(true);
  });
});
