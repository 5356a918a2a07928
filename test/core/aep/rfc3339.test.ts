import { describe, expect, it } from 'vitest';
import { isRfc3339DateTime } from '../../../main/core/aep/rfc3339';

describe('isRfc3339DateTime', () => {
  it.each([
    '2026-07-03T10:15:04.221Z',
    '2026-07-03t10:15:04z',
    '2024-02-29T00:00:00+05:30',
    '2026-12-31T23:59:60-08:00',
  ])('accepts %s', (text) => {
    expect(isRfc3339DateTime(text)).toBe(true);
  });

  it.each([
    '2026-07-03T10:15:04',
    '2026-07-03 10:15:04Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-07-03T24:00:00Z',
    '2026-07-03T10:60:00Z',
    '2026-07-03T10:00:00+24:00',
    '2026-07-03T10:00:00+0530',
    '1900-02-29T00:00:00Z',
  ])('rejects %s', (text) => {
    expect(isRfc3339DateTime(text)).toBe(false);
  });
});
