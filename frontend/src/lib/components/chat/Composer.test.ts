import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
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
