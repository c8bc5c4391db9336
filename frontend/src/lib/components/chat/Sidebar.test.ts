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

  it('is one Tab stop; Up, Down, Home and End move across the groups; Enter opens', async () => {
    const { be } = await setup();
    await fireEvent.click(within(row('Holiday')).getByTestId('conversation-pin'));
    await settle();
    expect(groups()).toEqual([
      ['Pinned', ['c2']],
      ['Today', ['c1']],
    ]);
    const opens = () => screen.getAllByTestId('conversation-open');
    const stops = () => opens().filter((b) => b.tabIndex === 0).map((b) => b.closest<HTMLElement>('[data-testid=conversation]')!.dataset.id);
    const rowButtons = (title: string) => within(row(title)).getAllByRole('button');
    // No chat open: the first row holds the stop, with its buttons; the other row's are out.
    expect(stops()).toEqual(['c2']);
    expect(rowButtons('Budget').every((b) => b.tabIndex === -1)).toBe(true);
    expect(rowButtons('Holiday').every((b) => b.tabIndex === 0)).toBe(true);

    const key = async (k: string) => {
      const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true });
      document.activeElement!.dispatchEvent(e);
      await settle();
      return e.defaultPrevented;
    };
    const at = () => document.activeElement?.closest<HTMLElement>('[data-testid=conversation]')?.dataset.id;
    opens()[0].focus();
    expect(await key('ArrowDown')).toBe(true); // past the "Today" heading
    expect(at()).toBe('c1');
    expect(stops()).toEqual(['c1']);
    expect(await key('ArrowDown')).toBe(true); // the end: stays
    expect(at()).toBe('c1');
    expect(await key('Home')).toBe(true);
    expect(at()).toBe('c2');
    expect(await key('End')).toBe(true);
    expect(at()).toBe('c1');
    expect(await key('ArrowUp')).toBe(true);
    expect(at()).toBe('c2');
    expect(await key('ArrowLeft')).toBe(false); // not the list's
    // Ctrl+Alt+Down is the next-chat shortcut, not a move in the list.
    const chord = new KeyboardEvent('keydown', { key: 'ArrowDown', ctrlKey: true, altKey: true, bubbles: true, cancelable: true });
    document.activeElement!.dispatchEvent(chord);
    expect(chord.defaultPrevented).toBe(false);
    expect(at()).toBe('c2');

    // Opening a chat gives it the stop; F2 still renames the focused row.
    await fireEvent.click(within(row('Budget')).getByTestId('conversation-open'));
    await settle();
    expect(be.callsOf('getMessages').at(-1)?.[0]).toBe('c1');
    expect(stops()).toEqual(['c1']);
    within(row('Budget')).getByTestId('conversation-open').focus();
    expect(await key('F2')).toBe(true);
    expect(document.activeElement).toBe(screen.getByTestId('conversation-rename-input'));
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
