import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from '../../../App.svelte';
import LinkConfirm from './LinkConfirm.svelte';
import { FakeBackend, fakeMessage } from '../../backend/fake';
import { settle } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

describe('LinkConfirm', () => {
  it('shows the real URL, its host and the text the link showed; Cancel has the focus', () => {
    const onopen = vi.fn();
    const oncancel = vi.fn();
    render(LinkConfirm, { props: { url: 'https://аpple.com/login?next=x', text: 'Apple', onopen, oncancel } });
    expect(screen.getByTestId('link-confirm-url').textContent).toBe('https://xn--pple-43d.com/login?next=x');
    expect(screen.getByTestId('link-confirm-host').textContent).toBe('xn--pple-43d.com');
    expect(screen.getByTestId('link-confirm-text').textContent).toBe('Apple');
    expect(screen.getByRole('dialog', { name: 'Open this link?' })).toBe(screen.getByTestId('link-confirm'));
    expect(document.activeElement).toBe(screen.getByTestId('link-confirm-cancel'));
    expect(onopen).not.toHaveBeenCalled();
  });

  it('Open opens; Cancel and Escape cancel', async () => {
    const onopen = vi.fn();
    const oncancel = vi.fn();
    render(LinkConfirm, { props: { url: 'https://example.com/?q=1', onopen, oncancel } });
    expect(screen.queryByTestId('link-confirm-text')).toBeNull(); // no text given: nothing to compare
    await fireEvent.keyDown(screen.getByTestId('link-confirm'), { key: 'Escape' });
    expect(oncancel).toHaveBeenCalledTimes(1);
    await fireEvent.click(screen.getByTestId('link-confirm-cancel'));
    expect(oncancel).toHaveBeenCalledTimes(2);
    expect(onopen).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('link-confirm-open'));
    expect(onopen).toHaveBeenCalledTimes(1);
  });

  it('offers to close the view that asks, only when one asks', async () => {
    const oncloseasker = vi.fn();
    const { unmount } = render(LinkConfirm, { props: { url: 'https://example.com/', asker: 'The Clock view asks to open a link.', onopen: vi.fn(), oncancel: vi.fn(), oncloseasker } });
    await fireEvent.click(screen.getByTestId('link-confirm-close-asker'));
    expect(oncloseasker).toHaveBeenCalledTimes(1);
    unmount();
    render(LinkConfirm, { props: { url: 'https://example.com/', onopen: vi.fn(), oncancel: vi.fn() } });
    expect(screen.queryByTestId('link-confirm-close-asker')).toBeNull();
  });
});

describe('links in a reply, in the app', () => {
  async function setup(content: string) {
    const be = new FakeBackend();
    be.providers = [{ id: 'p1', name: 'Cerebras', preset: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', defaultModel: 'm1', hasKey: true, keyFromEnv: '' }];
    be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(Date.now()), updatedAt: iso(Date.now())}];
    be.messages = { c1: [fakeMessage({ id: 1, seq: 1, role: 'assistant', content })] };
    render(App, { props: { backend: be } });
    const conv = await screen.findByTestId('conversation');
    await fireEvent.click(within(conv).getAllByRole('button')[0]);
    await settle();
    const a = (await screen.findByTestId('message-text')).querySelector('a')!;
    return { be, a };
  }

  it('a link whose text is another URL asks first and opens only on Open', async () => {
    const { be, a } = await setup('See [https://example.com/](https://evil.example/)');
    await fireEvent.click(a);
    await settle();
    expect(be.callsOf('openURL')).toEqual([]);
    expect(screen.getByTestId('link-confirm-url').textContent).toBe('https://evil.example/');
    await fireEvent.click(screen.getByTestId('link-confirm-open'));
    await settle();
    expect(be.callsOf('openURL')).toEqual([['https://evil.example/']]);
    expect(screen.queryByTestId('link-confirm')).toBeNull();
  });

  it('a link with a query asks first; Cancel opens nothing', async () => {
    const { be, a } = await setup('<https://example.com/?token=abc>');
    await fireEvent.click(a);
    await settle();
    await fireEvent.click(screen.getByTestId('link-confirm-cancel'));
    await settle();
    expect(be.callsOf('openURL')).toEqual([]);
    expect(screen.queryByTestId('link-confirm')).toBeNull();
  });

  it('a link that shows its own URL opens at once', async () => {
    const { be, a } = await setup('<https://example.com/docs>');
    await fireEvent.click(a);
    await settle();
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    expect(be.callsOf('openURL')).toEqual([['https://example.com/docs']]);
  });
});
