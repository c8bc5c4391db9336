import { describe, expect, it } from 'vitest';
import type { ElicitField } from '../../backend';
import { sampleForm } from '../../test/asks';
import { checkField, checkForm, initialValues, parseJSONAnswer, splitURL, timeLeft, toContent } from './form';

const field = (f: Partial<ElicitField>): ElicitField => ({ name: 'x', type: 'string', required: false, ...f });

describe('elicitation form', () => {
  it('starts from the defaults and sends typed values, empty optional fields left out', () => {
    const v = initialValues(sampleForm);
    expect(v).toEqual({ name: '', email: '', integer: '42', check: false, hero: 'hero-1', fish: ['fish-1'] });
    expect(checkForm(sampleForm, v)).toEqual({ name: 'required' });
    v.name = 'Ada';
    v.check = true;
    expect(checkForm(sampleForm, v)).toEqual({});
    expect(toContent(sampleForm, v)).toEqual({ name: 'Ada', integer: 42, check: true, hero: 'hero-1', fish: ['fish-1'] });
  });

  it.each([
    [field({ format: 'email' }), 'Ada <ada@example.com>', 'must be an email address, like name@example.com'],
    [field({ format: 'email' }), 'ada@example.com', ''],
    [field({ format: 'uri' }), 'example.com', 'must be a full address, like https://example.com'],
    [field({ format: 'uri' }), 'https://example.com/x', ''],
    [field({ format: 'date' }), '31/12/2025', 'must be a date, like 2025-12-31'],
    [field({ format: 'date' }), '2025-12-31', ''],
    [field({ format: 'date-time' }), '2025-12-31 10:00', 'must be a date and time, like 2025-12-31T23:59:00Z'],
    [field({ format: 'date-time' }), '2025-12-31T10:00:00+01:00', ''],
    [field({ minLength: 3 }), 'ab', 'at least 3 characters'],
    [field({ maxLength: 2 }), 'abc', 'at most 2 characters'],
    [field({ type: 'integer' }), '1.5', 'must be a whole number'],
    [field({ type: 'number', minimum: 0 }), '-1', 'at least 0'],
    [field({ type: 'number', maximum: 10 }), '11', 'at most 10'],
    [field({ type: 'number' }), 'twelve', 'must be a number'],
    [field({ type: 'select', options: [{ value: 'a', label: 'A' }] }), 'b', 'must be one of the choices'],
    [field({ type: 'multiselect', required: true }), [], 'required'],
    [field({ type: 'multiselect', maxItems: 1 }), ['a', 'b'], 'pick at most 1'],
    [field({ required: true }), '', 'required'],
    [field({}), '', ''],
  ])('checks %o = %o', (f, value, want) => {
    expect(checkField(f, value)).toBe(want);
  });

  it('reads a JSON answer, refusing what is not a flat object', () => {
    expect(parseJSONAnswer('{"code": "1234", "n": 2, "tags": ["a"]}')).toEqual({ content: { code: '1234', n: 2, tags: ['a'] } });
    expect(parseJSONAnswer('[1]').error).toMatch(/JSON object/);
    expect(parseJSONAnswer('{"a": {"b": 1}}').error).toBe('a: must be text, a number, true or false, or a list of text');
    expect(parseJSONAnswer('{').error).toMatch(/^not valid JSON/);
  });

  it('splits a URL around its host, and counts down', () => {
    expect(splitURL('https://login.example.com/auth?x=1')).toEqual({ before: 'https://', host: 'login.example.com', after: '/auth?x=1' });
    // As the browser will read it: a look-alike host as its punycode (Go
    // sends the Cyrillic "а" percent-encoded), a right-to-left override in
    // the query encoded, so that "?‮moc.elgoog//:sptth" cannot read as
    // "?https://google.com".
    expect(splitURL('https://%D0%B0pple.com/x')).toEqual({ before: 'https://', host: 'xn--pple-43d.com', after: '/x' });
    expect(splitURL('https://evil.com/?\u202emoc.elgoog//:sptth')).toEqual({ before: 'https://', host: 'evil.com', after: '/?%E2%80%AEmoc.elgoog//:sptth' });
    expect(splitURL('https://EVIL.com/')).toEqual({ before: 'https://', host: 'evil.com', after: '/' });
    // Not a URL: shown whole, its controls made harmless.
    expect(splitURL('https://ev%E2%80%AEil.com/\u202e')).toEqual({ before: '', host: '', after: 'https://ev%E2%80%AEil.com/%E2%80%AE' });
    expect(timeLeft(new Date(125_000).toISOString(), 0)).toBe('2:05');
    expect(timeLeft(new Date(0).toISOString(), 1)).toBe('expired');
  });
});
