// The string formats of custom resources, judged as kube-openapi's strfmt registry judges them
// (strfmt, govalidator and Go's parsers), under the names kube looks them up by.

import { describe, expect, it } from 'vitest';
import { formatCheck } from '../../../runtime/validation/openapi-schema/formats.js';

const check = (format: string, value: string): boolean => {
  const fn = formatCheck(format);
  if (!fn) throw new Error(`${format} is not validated`);
  return fn(value);
};

describe('formats', () => {
  it('knows kube 1.33\'s formats, with or without dashes, and no others', () => {
    for (const f of ['uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'byte', 'date', 'duration', 'datetime', 'date-time', 'bsonobjectid', 'password']) {
      expect(formatCheck(f), f).toBeDefined();
    }
    for (const f of ['int32', 'int64', 'float', 'double', 'k8s-short-name', 'quantity', 'DateTime']) expect(formatCheck(f), f).toBeUndefined();
  });

  it.each([
    ['date-time', '2014-12-15T19:30:20.000Z', true],
    ['date-time', '2014-12-15t19:30:20+01:00', true],
    ['date-time', '2014-12-15T24:00:00Z', false],
    ['date-time', '2014-02-30T10:00:00Z', false],
    ['date-time', '2014-12-15T19:30:20', false],
    ['date', '2024-02-29', true],
    ['date', '2023-02-29', false],
    ['date', '24-02-29', false],
    ['duration', '1h30m', true],
    ['duration', '3 days', true],
    ['duration', '5 minutes', true],
    ['duration', 'soon', false],
    ['duration', '', false],
    ['ipv4', '10.0.0.1', true],
    ['ipv4', '010.000.000.001', true],
    ['ipv4', '::ffff:10.0.0.1', true],
    ['ipv4', '1.2.3', false],
    ['ipv6', '2001:db8::1', true],
    ['ipv6', 'fe80::1%eth0', false],
    ['ipv6', '10.0.0.1', false],
    ['cidr', '10.0.0.0/8', true],
    ['cidr', '2001:db8::/32', true],
    ['cidr', '10.0.0.0/33', false],
    ['cidr', '10.0.0.0', false],
    ['mac', '00:1a:2b:3c:4d:5e', true],
    ['mac', '00-1a-2b-3c-4d-5e', true],
    ['mac', '001a.2b3c.4d5e', true],
    ['mac', '00:1a:2b', false],
    ['hostname', 'example.com', true],
    ['hostname', 'localhost', true],
    ['hostname', 'bad_host.com', false],
    ['hostname', `${'a'.repeat(64)}.com`, false],
    ['uri', 'https://example.com/a?b=c', true],
    ['uri', '/absolute/path', true],
    ['uri', 'relative/path', false],
    ['uri', 'http://exa mple.com', false],
    ['email', 'a@example.com', true],
    ['email', 'Someone <a@example.com>', true],
    ['email', 'example.com', false],
    ['uuid', 'A987FBC9-4BED-3078-CF07-9141BA07C9F3', true],
    ['uuid', 'not-a-uuid', false],
    ['byte', 'aGVsbG8=', true],
    ['byte', 'aGVsbG8', false],
    ['byte', '', false],
    ['bsonobjectid', '507f1f77bcf86cd799439011', true],
    ['ssn', '123-45-6789', true],
    ['ssn', '123456789', false],
    ['creditcard', '4111 1111 1111 1111', true],
    ['creditcard', '4111 1111 1111 1112', false],
    ['hexcolor', '#ffffff', true],
    ['rgbcolor', 'rgb(255,255,255)', true],
    ['isbn10', '0321751043', true],
    ['isbn13', '978-0321751041', true],
    ['password', 'anything at all', true],
  ])('%s %j is %s', (format, value, want) => {
    expect(check(format, value)).toBe(want);
  });
});
