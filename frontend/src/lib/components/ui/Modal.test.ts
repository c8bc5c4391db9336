import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRawSnippet } from 'svelte';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Modal from './Modal.svelte';

const body = (html: string) => createRawSnippet(() => ({ render: () => `<div>${html}</div>` }));

describe('Modal', () => {
  let opener: HTMLButtonElement;
  afterEach(() => opener?.remove());

  function open(props: { onclose?: () => void; onkeydown?: (e: KeyboardEvent) => void; html?: string } = {}) {
    opener = document.createElement('button');
    document.body.append(opener);
    opener.focus();
    const r = render(Modal, { props: { title: 'Edit things', testid: 'm', children: body(props.html ?? '<p>Hello</p>'), ...props } });
    return { ...r, dialog: screen.getByTestId('m') as HTMLDialogElement };
  }

  it('opens as a modal <dialog> named by its title, focusing [data-autofocus]', () => {
    const { dialog } = open({ html: '<input data-testid="first"><button data-autofocus data-testid="auto">Go</button>' });
    expect(dialog.tagName).toBe('DIALOG');
    expect(dialog.open).toBe(true);
    expect(screen.getByRole('dialog', { name: 'Edit things' })).toBe(dialog);
    expect(document.activeElement).toBe(screen.getByTestId('auto'));
  });

  it('focuses the dialog itself when nothing asks for the focus', () => {
    const { dialog } = open({ html: '<button>Go</button>' });
    expect(document.activeElement).toBe(dialog);
  });

  it('Escape and a close request call onclose, and neither closes it by itself', async () => {
    const onclose = vi.fn();
    const { dialog } = open({ onclose });
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    dialog.dispatchEvent(esc);
    expect(esc.defaultPrevented).toBe(true); // no native close request, no page-level Escape
    const cancel = new Event('cancel', { cancelable: true });
    dialog.dispatchEvent(cancel);
    expect(cancel.defaultPrevented).toBe(true);
    expect(onclose).toHaveBeenCalledTimes(2);
    expect(dialog.open).toBe(true); // the owner removes it
    await fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(onclose).toHaveBeenCalledTimes(3);
  });

  it('onkeydown sees keys first and may keep Escape for itself', () => {
    const onclose = vi.fn();
    const onkeydown = vi.fn((e: KeyboardEvent) => e.preventDefault());
    const { dialog } = open({ onclose, onkeydown });
    dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
    expect(onkeydown).toHaveBeenCalledTimes(1);
    expect(onclose).not.toHaveBeenCalled();
  });

  it('without onclose it has no Close button and shows again if the browser closes it', () => {
    const { dialog } = open();
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    dialog.close(); // as a browser does for a close request it lets no page refuse
    expect(dialog.open).toBe(true);
  });

  it('gives the focus back to the element that had it', () => {
    const { dialog, unmount } = open();
    expect(document.activeElement).toBe(dialog);
    unmount();
    expect(document.activeElement).toBe(opener);
  });
});
