import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import App from './App.svelte';
import { FakeBackend } from './lib/backend/fake';

describe('App', () => {
  it('shows the first screen with the data directory', async () => {
    const be = new FakeBackend();
    render(App, { props: { backend: be } });
    expect(await screen.findByTestId('welcome')).toBeTruthy();
    expect(screen.getByTestId('data-dir').textContent).toBe('/tmp/switchboard');
  });

  it('shows a damaged database instead of an empty app', async () => {
    const be = new FakeBackend();
    be.info.problems = [{ kind: 'database', message: 'database file is damaged: /x/switchboard.db', advice: 'move it aside', fatal: true }];
    render(App, { props: { backend: be } });
    const fatal = await screen.findByTestId('fatal');
    expect(fatal.textContent).toContain('/x/switchboard.db');
    expect(fatal.textContent).toContain('Nothing was deleted');
    expect(screen.queryByTestId('welcome')).toBeNull();
  });

  it('warns when secrets are kept in memory only', async () => {
    const be = new FakeBackend();
    be.info.keyring = { backend: 'memory', persistent: false };
    be.info.problems = [{ kind: 'keyring', message: 'Secrets are kept in memory only', advice: 'install gnome-keyring', fatal: false }];
    render(App, { props: { backend: be } });
    expect((await screen.findByTestId('problem-keyring')).textContent).toContain('memory only');
    expect(screen.getByTestId('keyring').textContent).toContain('memory');
  });
});
