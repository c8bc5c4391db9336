import { describe, expect, it } from 'vitest';
import { claimsReadOnly, hintBadges, hintsOf } from './hints';

describe('hints', () => {
  it('reads the four hints from annotations, ignoring what is not a boolean', () => {
    expect(hintsOf(undefined)).toBeUndefined();
    expect(hintsOf({ title: 'x' })).toBeUndefined();
    expect(hintsOf({ readOnlyHint: 'yes', openWorldHint: false })).toEqual({ readOnly: undefined, destructive: undefined, idempotent: undefined, openWorld: false });
  });

  it('a read-only claim is readOnly without destructive', () => {
    expect(claimsReadOnly({ readOnly: true })).toBe(true);
    expect(claimsReadOnly({ readOnly: true, destructive: false })).toBe(true);
    expect(claimsReadOnly({ readOnly: true, destructive: true })).toBe(false);
    expect(claimsReadOnly({ readOnly: false })).toBe(false);
    expect(claimsReadOnly(undefined)).toBe(false);
  });

  it('badges say what the server said, and only that', () => {
    const keys = (h: Parameters<typeof hintBadges>[0]) => hintBadges(h).map((b) => `${b.key}:${b.tone}`);
    expect(keys(undefined)).toEqual([]);
    expect(keys({ readOnly: true, destructive: false, idempotent: true, openWorld: false })).toEqual(['read-only:ok', 'idempotent:plain', 'closed-world:plain']);
    expect(keys({ readOnly: false, destructive: true, openWorld: true })).toEqual(['destructive:danger', 'open-world:warn']);
    expect(keys({ readOnly: false, destructive: false })).toEqual(['non-destructive:plain']);
    // A contradiction reads as destructive.
    expect(keys({ readOnly: true, destructive: true })).toEqual(['read-only:plain', 'destructive:danger']);
    expect(hintBadges({ readOnly: true })[0].title).toContain("server's claim");
  });
});
