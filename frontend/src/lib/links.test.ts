import { describe, expect, it } from 'vitest';
import { describeLink, linkNeedsConfirm } from './links';

describe('linkNeedsConfirm', () => {
  it.each([
    // [href, text, asks]
    ['https://example.com', undefined, false],
    ['https://example.com', 'https://example.com', false],
    ['https://example.com/', 'https://example.com', false], // the same URL, written differently
    ['https://example.com/a#b', ' https://example.com/a#b ', false],
    ['mailto:a@example.com', 'a@example.com', false],
    ['https://example.com', 'docs', true],
    ['https://evil.example/', 'https://example.com/', true],
    ['https://example.com/?q=secret', 'https://example.com/?q=secret', true],
    ['https://example.com/?', undefined, true],
    ['https://example.com/page?id=1', undefined, true],
    ['https://bank.example@evil.example/', 'https://bank.example@evil.example/', true],
    ['https://аpple.com/', 'https://аpple.com/', true], // Cyrillic а
    ['mailto:a@example.com?body=x', 'a@example.com', true],
    ['mailto:a@evil.example', 'a@example.com', true],
    ['not a url', 'not a url', true],
    // A direction override makes the rest read backwards: shown, this reads
    // https://evil.example/https://www.example.com.
    ['https://evil.example/\u202emoc.elpmaxe.www//:sptth', 'https://evil.example/\u202emoc.elpmaxe.www//:sptth', true],
    ['https://evil.example/#\u2067x', undefined, true],
  ])('%s shown as %s: asks %s', (href, text, asks) => {
    expect(linkNeedsConfirm(href, text)).toBe(asks);
  });
});

describe('describeLink', () => {
  it('shows the host the browser will reach, in ASCII', () => {
    expect(describeLink('https://аpple.com/x?y=1')).toEqual({ url: 'https://xn--pple-43d.com/x?y=1', host: 'xn--pple-43d.com' });
    expect(describeLink('https://u@evil.example:8080/')).toEqual({ url: 'https://u@evil.example:8080/', host: 'evil.example:8080' });
  });
});
