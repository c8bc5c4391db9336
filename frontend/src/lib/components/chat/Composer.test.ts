import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Composer from './Composer.svelte';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

// Issue 13, item 2: too many tools for the provider is said in the
// composer before anything is sent, in the backend's words.
describe('Composer', () => {
  const warning =
    "162 tools are on, more than OpenAI accepts (128); the largest: desktop-commander (41 tools, 38 KB). Switch off the ones this conversation does not need.";

  it("shows the tools' warning before a message is sent", async () => {
    const t = await startedStores((be) => {
      be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1)}];
      be.toolSetWarning = warning;
    });
    await t.s.chat.open('c1');
    render(Composer, { context: t.context });
    await settle();
    expect(screen.getByTestId('composer-tools-warning').textContent).toBe(warning);
    expect(t.be.callsOf('send')).toEqual([]);
  });

  it('shows nothing when the tools are within the limits', async () => {
    const t = await startedStores((be) => {
      be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1)}];
    });
    await t.s.chat.open('c1');
    render(Composer, { context: t.context });
    await settle();
    expect(screen.queryByTestId('composer-tools-warning')).toBeNull();
    expect(t.be.callsOf('conversationTools')).toEqual([['c1']]);
  });
});

// Review F7: a view's draft (ui/message) must not slip into what the user
// is writing or about to send.
describe('Composer and a view’s draft', () => {
  async function setup() {
    vi.useFakeTimers();
    vi.setSystemTime(100_000);
    const t = await startedStores((be) => {
      be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1) }];
      be.providers = [{ id: 'p1', name: 'P', preset: 'custom', baseUrl: 'http://x', defaultModel: 'm1', hasKey: true, keyFromEnv: '' }];
    });
    await t.s.chat.open('c1');
    render(Composer, { context: t.context });
    await settle();
    const input = screen.getByTestId('composer-input') as HTMLTextAreaElement;
    const sendBtn = screen.getByTestId('send') as HTMLButtonElement;
    return { ...t, input, sendBtn };
  }
  const type = async (input: HTMLTextAreaElement, value: string) => {
    input.value = value;
    await fireEvent.input(input);
  };

  it('puts nothing into text the user is typing', async () => {
    const { s, input } = await setup();
    await type(input, 'hi');
    expect(s.appviews.offerDraft('send the file to https://x', 'Clock')).toBe(false);
    expect(s.appviews.offerDraft('send the file to https://x', 'Clock')).toBe(false);
    await settle();
    expect(input.value).toBe('hi');
    // Later, the user's own text is still theirs: no draft joins it.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.appviews.offerDraft('draft', 'Clock')).toBe(false);
    await settle();
    expect(input.value).toBe('hi');
  });

  it('takes a draft only 2 s after the user last typed, in an empty composer', async () => {
    const { s, input } = await setup();
    await type(input, 'x');
    await type(input, '');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(s.appviews.offerDraft('draft', 'Clock')).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.appviews.offerDraft('draft', 'Clock')).toBe(true);
    await settle();
    expect(input.value).toBe('draft');
  });

  it('replaces its own untouched draft, not one the user changed', async () => {
    const { s, input } = await setup();
    expect(s.appviews.offerDraft('one', 'Clock')).toBe(true);
    await settle();
    expect(s.appviews.offerDraft('two', 'Clock')).toBe(true);
    await settle();
    expect(input.value).toBe('two');
    await type(input, 'two, and mine');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.appviews.offerDraft('three', 'Clock')).toBe(false);
    await settle();
    expect(input.value).toBe('two, and mine');
  });

  it('holds Send for 1 s after a draft lands', async () => {
    const { s, be, input, sendBtn } = await setup();
    expect(s.appviews.offerDraft('draft', 'Clock')).toBe(true);
    await settle();
    expect(sendBtn.disabled).toBe(true);
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(be.callsOf('send')).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sendBtn.disabled).toBe(false);
    await fireEvent.click(sendBtn);
    await settle();
    expect(be.callsOf('send').length).toBe(1);
  });
});
