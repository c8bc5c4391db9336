import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import Sidebar from './Sidebar.svelte';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

async function setup() {
  const now = Date.now();
  const t = await startedStores((be) => {
    be.conversations = [
      { id: 'c1', title: 'Budget', providerId: 'p1', model: 'm1', createdAt: iso(now), updatedAt: iso(now) },
      { id: 'c2', title: 'Holiday', providerId: 'p1', model: 'm1', createdAt: iso(now - 1000), updatedAt: iso(now - 1000) },
      { id: 'c3', title: 'Old notes', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1), archived: true },
    ];
  });
  render(Sidebar, { context: t.context });
  await settle();
  return t;
}
const row = (title: string) => screen.getAllByTestId('conversation').find((r) => r.textContent?.includes(title))!;
const groups = () => screen.getAllByTestId('conversation-group').map((g) => [g.dataset.label, within(g).getAllByTestId('conversation').map((r) => r.dataset.id)]);

describe('sidebar', () => {
  it('renames with F2: Enter saves, Escape cancels and gives the focus back', async () => {
    const { be } = await setup();
    const open = within(row('Budget')).getByTestId('conversation-open');
    open.focus();
    await fireEvent.keyDown(open, { key: 'F2' });
    await settle();
    let input = screen.getByTestId('conversation-rename-input') as HTMLInputElement;
    expect(document.activeElement).toBe(input);
    await fireEvent.input(input, { target: { value: 'Nope' } });
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    input.dispatchEvent(esc);
    await settle();
    expect(esc.defaultPrevented).toBe(true); // a running reply does not stop
    expect(screen.queryByTestId('conversation-rename-input')).toBeNull();
    expect(document.activeElement?.getAttribute('data-testid')).toBe('conversation-open');
    expect(be.callsOf('renameConversation')).toEqual([]);

    await fireEvent.dblClick(within(row('Budget')).getByTestId('conversation-open'));
    await settle();
    input = screen.getByTestId('conversation-rename-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: 'Budget 2026' } });
    await fireEvent.submit(input.form!);
    await settle();
    expect(be.callsOf('renameConversation')).toEqual([['c1', 'Budget 2026']]);
    expect(row('Budget 2026')).toBeTruthy();
  });

  it('pins to a Pinned group, archives out of the list and back', async () => {
    const { be } = await setup();
    expect(groups()).toEqual([['Today', ['c1', 'c2']]]);
    await fireEvent.click(within(row('Holiday')).getByTestId('conversation-pin'));
    await settle();
    expect(be.callsOf('pinConversation')).toEqual([['c2', true]]);
    expect(groups()).toEqual([
      ['Pinned', ['c2']],
      ['Today', ['c1']],
    ]);
    await fireEvent.click(within(row('Budget')).getByTestId('conversation-archive'));
    await settle();
    expect(groups()).toEqual([['Pinned', ['c2']]]);
    expect(screen.getByTestId('show-archived').textContent).toContain('Archived (2)');
    await fireEvent.click(screen.getByTestId('show-archived'));
    await settle();
    expect(screen.getAllByTestId('conversation').map((r) => r.dataset.id)).toEqual(['c1', 'c3']);
    await fireEvent.click(within(row('Old notes')).getByTestId('conversation-unarchive'));
    await settle();
    expect(be.callsOf('archiveConversation')).toEqual([
      ['c1', true],
      ['c3', false],
    ]);
    await fireEvent.click(screen.getByTestId('archived-back'));
    await settle();
    expect(groups()).toEqual([
      ['Pinned', ['c2']],
      [new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric' }).format(1), ['c3']], // back under its own month
    ]);
  });

  it('a search hit opens its conversation scrolled to the message, marked', async () => {
    const { be, s } = await setup();
    be.searchHits = [{ conversationId: 'c2', conversationTitle: 'Holiday', role: 'user', seq: 1, messageId: 7, createdAt: iso(1), snippet: [{ text: 'beach', match: true }] }];
    be.messages = { c2: [{ ...(await import('../../backend/fake')).fakeMessage({ id: 7, seq: 1, role: 'user', content: 'beach' }) }] };
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'beach' } });
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    await fireEvent.click(screen.getByTestId('search-hit'));
    await settle();
    expect(s.chat.conversationId).toBe('c2');
    expect(s.chat.highlight).toBe(7);
  });
});
