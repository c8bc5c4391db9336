// Clicks inside rendered markdown: links open in the system browser (the
// webview never navigates), given their text so that one that says
// something else can be confirmed first; code blocks' copy buttons copy
// their code.

const external = /^(https?:|mailto:)/i;

/** Handles a click in rendered HTML; returns true when it was ours. */
export function handleMarkdownClick(e: MouseEvent, openURL: (url: string, text: string) => void): boolean {
  const target = e.target as Element | null;
  if (!target || typeof target.closest !== 'function') return false;
  const copy = target.closest('[data-copy-code]');
  if (copy) {
    e.preventDefault();
    const code = copy.closest('.code-block')?.querySelector('code')?.textContent ?? '';
    void copyText(code).then((ok) => {
      copy.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (copy.textContent = 'Copy'), 1500);
    });
    return true;
  }
  const a = target.closest('a[href]');
  if (a) {
    e.preventDefault();
    const href = a.getAttribute('href') ?? '';
    if (external.test(href)) openURL(href, a.textContent ?? '');
    return true;
  }
  return false;
}

/** Copies text to the clipboard; false when the clipboard refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
