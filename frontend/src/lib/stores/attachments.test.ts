import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { Attachment } from '../backend';
import { AttachmentsStore, MAX_ATTACHMENTS, fileBase64, formatBytes } from './attachments.svelte';

const file = (name: string, type: string, size: number | string) =>
  new File([typeof size === 'string' ? size : new Uint8Array(size)], name, { type });

const att = (id: string, extra: Partial<Attachment> = {}): Attachment => ({ id, name: `${id}.txt`, mime: 'text/plain', size: 3, kind: 'text', ...extra });

describe('AttachmentsStore', () => {
  it('reads files, has Go store each, and keeps what it returns', async () => {
    const be = new FakeBackend();
    const st = new AttachmentsStore(be);
    await st.addFiles([file('notes.md', 'text/markdown', '# hi'), file('dot.png', 'image/png', 70)]);
    expect(be.callsOf('addAttachment')).toEqual([
      ['notes.md', 'text/markdown', 8],
      ['dot.png', 'image/png', 96],
    ]);
    expect(st.pending.map((a) => [a.name, a.kind, a.size])).toEqual([
      ['notes.md', 'text', 4],
      ['dot.png', 'image', 70],
    ]);
    expect(st.errors).toEqual([]);
    expect(st.busy).toBe(false);
  });

  it('refuses an image over 5 MiB and a file over 32 MiB without reading them', async () => {
    const be = new FakeBackend();
    const st = new AttachmentsStore(be);
    await st.addFiles([file('huge.png', 'image/png', (5 << 20) + 1), file('dump.bin', '', (32 << 20) + 1), file('ok.txt', 'text/plain', 'ok')]);
    expect(be.callsOf('addAttachment').map((c) => c[0])).toEqual(['ok.txt']);
    expect(st.errors).toEqual([
      'The image huge.png (5 MiB) is over 5 MiB, the most an image can be (providers refuse larger ones). Shrink it and attach it again.',
      'dump.bin (32 MiB) is over 32 MiB, the most a file can be.',
    ]);
    expect(st.pending.map((a) => a.name)).toEqual(['ok.txt']);
  });

  it("says Go's reason for a refused file, as a sentence, and keeps the others", async () => {
    const be = new FakeBackend();
    const st = new AttachmentsStore(be);
    await st.addFiles([file('scan.bmp', 'image/bmp', 10), file('a.txt', 'text/plain', 'a')]);
    expect(st.errors).toEqual(['This kind of file cannot be attached: scan.bmp is a bmp image; images can be PNG, JPEG, GIF or WebP — convert it and attach it again.']);
    expect(st.pending.map((a) => a.name)).toEqual(['a.txt']);
    st.dismissErrors();
    expect(st.errors).toEqual([]);
  });

  it(`holds at most ${MAX_ATTACHMENTS}`, async () => {
    const be = new FakeBackend();
    const st = new AttachmentsStore(be);
    for (let i = 0; i < MAX_ATTACHMENTS - 1; i++) expect(st.add(att(`a${i}`))).toBe(true);
    await st.addFiles([file('x.txt', 'text/plain', 'x'), file('y.txt', 'text/plain', 'y'), file('z.txt', 'text/plain', 'z')]);
    expect(st.pending).toHaveLength(MAX_ATTACHMENTS);
    expect(st.full).toBe(true);
    expect(st.errors).toEqual([`A message can have at most ${MAX_ATTACHMENTS} attachments; 2 files were left out.`]);
    expect(be.callsOf('addAttachment').map((c) => c[0])).toEqual(['x.txt']);
    expect(st.add(att('more'))).toBe(false);
  });

  it('adds a resource, keeps one of the same twice, removes and clears', () => {
    const st = new AttachmentsStore(new FakeBackend());
    const res = att('r1', { name: 'README', serverId: 'fs', uri: 'file:///README' });
    st.add(res);
    st.add({ ...res });
    st.add(att('b'));
    expect(st.pending.map((a) => a.id)).toEqual(['r1', 'b']);
    st.remove('r1');
    expect(st.pending.map((a) => a.id)).toEqual(['b']);
    st.clear();
    expect(st.pending).toEqual([]);
  });

  it('asks Go for a data URL once per attachment', async () => {
    const be = new FakeBackend();
    be.attachmentURLs.x = 'data:image/png;base64,AAAA';
    const st = new AttachmentsStore(be);
    expect(await st.dataURL('x')).toBe('data:image/png;base64,AAAA');
    expect(await st.dataURL('x')).toBe('data:image/png;base64,AAAA');
    expect(be.callsOf('attachmentData')).toEqual([['x']]);
    await expect(st.dataURL('gone')).rejects.toThrow(/not found/);
    be.attachmentURLs.gone = 'data:text/plain;base64,eA==';
    expect(await st.dataURL('gone')).toBe('data:text/plain;base64,eA=='); // a failure is not cached
  });
});

describe('helpers', () => {
  it('encodes a file as base64 in chunks', async () => {
    const bytes = new Uint8Array(100_000).map((_, i) => i % 251);
    const b64 = await fileBase64(new Blob([bytes]));
    expect(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))).toEqual(bytes);
  });

  it('formats sizes as Go does', () => {
    expect([512, 200 << 10, (5 << 20) + (200 << 10), 1536].map(formatBytes)).toEqual(['512 bytes', '200 KiB', '5.2 MiB', '1.5 KiB']);
  });
});
