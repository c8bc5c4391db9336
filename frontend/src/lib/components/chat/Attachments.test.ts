import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Composer from './Composer.svelte';
import MessageBubble from './MessageBubble.svelte';
import ChatView from './ChatView.svelte';
import { fakeMessage } from '../../backend/fake';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();
const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], 'dot.png', { type: 'image/png' });

async function composer() {
  const t = await startedStores((be) => {
    be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1) }];
  });
  await t.s.chat.open('c1');
  render(Composer, { context: t.context });
  await settle();
  return t;
}

/** Waits until the files are read and stored. */
async function read(t: Awaited<ReturnType<typeof composer>>) {
  for (let i = 0; i < 20 && t.s.attachments.busy; i++) await settle();
  await settle();
}

describe('Composer attachments', () => {
  it('attaches picked files as chips, sends them with the text, and clears them', async () => {
    const t = await composer();
    const input = screen.getByTestId('attach-input') as HTMLInputElement;
    await fireEvent.change(input, { target: { files: [png(), new File(['# notes'], 'notes.md', { type: 'text/markdown' })] } });
    await read(t);
    const chips = screen.getAllByTestId('attachment-chip');
    expect(chips.map((c) => [c.dataset.name, c.dataset.kind])).toEqual([
      ['dot.png', 'image'],
      ['notes.md', 'text'],
    ]);
    // The image shows as a thumbnail, from Go's data URL.
    expect((screen.getByTestId('attachment-thumb') as HTMLImageElement).src).toMatch(/^data:image\/png;base64,/);

    await fireEvent.input(screen.getByTestId('composer-input'), { target: { value: 'what is this?' } });
    await fireEvent.click(screen.getByTestId('send'));
    await settle();
    const [call] = t.be.callsOf('send');
    expect(call[0]).toBe('c1');
    expect(call[1]).toBe('what is this?');
    expect((call[2] as { name: string }[]).map((a) => a.name)).toEqual(['dot.png', 'notes.md']);
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
  });

  it('sends attachments without text; a removed chip is not sent', async () => {
    const t = await composer();
    await fireEvent.change(screen.getByTestId('attach-input'), { target: { files: [png(), new File(['x'], 'x.txt', { type: 'text/plain' })] } });
    await read(t);
    await fireEvent.click(screen.getByRole('button', { name: 'Remove x.txt' }));
    expect(screen.getAllByTestId('attachment-chip')).toHaveLength(1);
    const send = screen.getByTestId('send') as HTMLButtonElement;
    expect(send.disabled).toBe(false);
    await fireEvent.click(send);
    await settle();
    expect(t.be.callsOf('send').map((c) => [c[1], (c[2] as { name: string }[]).map((a) => a.name)])).toEqual([['', ['dot.png']]]);
  });

  it('keeps the text and the chips when sending fails', async () => {
    const t = await composer();
    t.be.failures.send = 'a reply is still being written in this conversation';
    await fireEvent.change(screen.getByTestId('attach-input'), { target: { files: [png()] } });
    await read(t);
    const box = screen.getByTestId('composer-input') as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: 'look' } });
    await fireEvent.click(screen.getByTestId('send'));
    await settle();
    expect(box.value).toBe('look');
    expect(screen.getAllByTestId('attachment-chip')).toHaveLength(1);
  });

  it('attaches a pasted image, and lets pasted text go in as usual', async () => {
    const t = await composer();
    const box = screen.getByTestId('composer-input');
    const image = png();
    await fireEvent.paste(box, { clipboardData: { files: [image], items: [], types: ['Files'], getData: () => '' } });
    await read(t);
    expect(t.be.callsOf('addAttachment')).toEqual([['dot.png', 'image/png', 12]]);
    expect(screen.getAllByTestId('attachment-chip')).toHaveLength(1);

    const text = await fireEvent.paste(box, { clipboardData: { files: [], items: [], types: ['text/plain'], getData: () => 'hello' } });
    expect(text).toBe(true); // not prevented: the browser pastes the text
    expect(t.be.callsOf('addAttachment')).toHaveLength(1);
  });

  it('says inline why a file was refused; the message being written stays', async () => {
    const t = await composer();
    const box = screen.getByTestId('composer-input') as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: 'draft I am writing' } });
    const huge = new File([new Uint8Array((5 << 20) + 10)], 'huge.png', { type: 'image/png' });
    await fireEvent.change(screen.getByTestId('attach-input'), { target: { files: [huge] } });
    await read(t);
    expect(screen.getByTestId('attachment-error').textContent).toContain('The image huge.png (5 MiB) is over 5 MiB, the most an image can be');
    expect(t.be.callsOf('addAttachment')).toEqual([]);
    expect(box.value).toBe('draft I am writing');
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
  });
});

describe('Dropping files on the chat', () => {
  it('attaches them', async () => {
    const t = await startedStores();
    render(ChatView, { context: t.context });
    await settle();
    const main = screen.getByTestId('chat-main');
    const dt = { types: ['Files'], files: [png()], dropEffect: 'none' };
    await fireEvent.dragEnter(main, { dataTransfer: dt });
    expect(screen.getByTestId('drop-hint')).toBeTruthy();
    await fireEvent.drop(main, { dataTransfer: dt });
    for (let i = 0; i < 20 && t.s.attachments.busy; i++) await settle();
    await settle();
    expect(screen.queryByTestId('drop-hint')).toBeNull();
    expect(t.s.attachments.pending.map((a) => a.name)).toEqual(['dot.png']);
  });
});

describe('MessageBubble attachments', () => {
  it("shows a user message's images as thumbnails and files with their size and a truncated mark", async () => {
    const t = await startedStores((be) => {
      be.attachmentURLs.img1 = 'data:image/png;base64,iVBORw0KGgo=';
    });
    const m = fakeMessage({
      id: 1,
      seq: 1,
      role: 'user',
      content: 'see these',
      attachments: [
        { id: 'img1', name: 'cat.png', mime: 'image/png', size: 70, kind: 'image' },
        { id: 'txt1', name: 'server.log', mime: 'text/plain', size: 200 << 10, kind: 'text', truncated: true },
      ],
    });
    render(MessageBubble, { context: t.context, props: { message: m } });
    await settle();
    const chips = screen.getAllByTestId('attachment-chip');
    expect(chips.map((c) => c.dataset.name)).toEqual(['cat.png', 'server.log']);
    expect((screen.getByTestId('attachment-thumb') as HTMLImageElement).getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(chips[1].textContent).toContain('200 KiB');
    expect(screen.getByTestId('attachment-truncated')).toBeTruthy();
    expect(screen.queryByTestId('attachment-remove')).toBeNull();
    expect(t.be.callsOf('attachmentData')).toEqual([['img1']]);
  });

  it('edits a message and removes its image before resending', async () => {
    const t = await startedStores((be) => {
      be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1) }];
      be.messages.c1 = [
        fakeMessage({ id: 1, seq: 1, role: 'user', content: 'look', attachments: [{ id: 'img1', name: 'cat.png', mime: 'image/png', size: 70, kind: 'image' }] }),
      ];
    });
    await t.s.chat.open('c1');
    render(MessageBubble, { context: t.context, props: { message: t.s.chat.messages[0] } });
    await settle();
    await fireEvent.click(screen.getByTestId('edit-message'));
    await fireEvent.click(screen.getByRole('button', { name: 'Remove cat.png' }));
    await fireEvent.click(screen.getByTestId('edit-send'));
    await settle();
    expect(t.be.callsOf('editAndResend')).toEqual([['c1', 1, 'look', []]]);
  });
});
