// The named formats added for EndpointSlice-style fields: IPv4/IPv6 addresses, their canonical
// form (as Go's net.IP.String prints it) and IANA service names (validation.IsValidPortName).

import { describe, expect, it } from 'vitest';
import { FORMAT_CHECKS } from '../../runtime/machinery/formats.js';

const check = (format: string, value: string): string[] => (FORMAT_CHECKS[format] as (v: string) => string[])(value);

describe('IP and service-name formats', () => {
  it.each([
    ['ipv4', '10.0.0.1', []],
    ['ipv4', '2001:db8::1', ['must be a valid IPv4 address']],
    ['ipv6', '2001:db8::1', []],
    ['ipv6', '10.0.0.1', ['must be a valid IPv6 address']],
    ['ipv6', '::ffff:10.0.0.1', ['must be a valid IPv6 address']],
    ['canonicalIPv4', '10.0.0.1', []],
    ['canonicalIPv4', '010.000.0.1', ['must be in canonical form ("10.0.0.1")']],
    ['canonicalIPv6', '2001:db8::1', []],
    ['canonicalIPv6', '2001:DB8::1', ['must be in canonical form ("2001:db8::1")']],
    ['canonicalIPv6', '2001:db8:0:0:0:0:0:1', ['must be in canonical form ("2001:db8::1")']],
    ['canonicalIPv6', '1:0:0:1:0:0:0:1', ['must be in canonical form ("1:0:0:1::1")']],
    ['canonicalIPv6', 'fe80::', []],
    ['ianaServiceName', 'http', []],
    ['ianaServiceName', 'h2c-1', []],
    ['ianaServiceName', '80', ['must contain at least one letter (a-z)']],
    ['ianaServiceName', '-a--b', ['must not contain consecutive hyphens', 'must not begin or end with a hyphen']],
    ['ianaServiceName', 'a-very-long-service', ['must be no more than 15 characters']],
    ['ianaServiceName', 'HTTP', ['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must contain at least one letter (a-z)']],
  ])('%s %j', (format, value, messages) => {
    expect(check(format, value)).toEqual(messages);
  });
});
