import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ToolSearchSection from './ToolSearchSection.svelte';
import { settle, startedStores } from '../../test/helpers';

describe('Settings → Tool search', () => {
  it('shows the stored mode and thresholds, and saves a change', async () => {
    const t = await startedStores((be) => {
      be.settings = { ...be.settings, toolSearch: 'auto', toolSearchMaxTools: 80, toolSearchMaxKB: 30 };
    });
    render(ToolSearchSection, { context: t.context });
    expect((screen.getByTestId('settings-tool-search-auto') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId('settings-tool-search-tools') as HTMLInputElement).value).toBe('80');

    await fireEvent.click(screen.getByTestId('settings-tool-search-always'));
    // The thresholds are auto's: off for always.
    expect((screen.getByTestId('settings-tool-search-kb') as HTMLInputElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('settings-tool-search-save'));
    await settle();
    const saved = t.be.callsOf('saveSettings').at(-1)?.[0] as { toolSearch: string; toolSearchMaxTools: number; toolSearchMaxKB: number; theme: string };
    expect([saved.toolSearch, saved.toolSearchMaxTools, saved.toolSearchMaxKB, saved.theme]).toEqual(['always', 80, 30, 'system']);
    expect(screen.getByTestId('settings-tool-search-saved')).toBeTruthy();
  });

  it('refuses a threshold out of range', async () => {
    const t = await startedStores();
    render(ToolSearchSection, { context: t.context });
    await fireEvent.input(screen.getByTestId('settings-tool-search-tools'), { target: { value: '0' } });
    expect((screen.getByTestId('settings-tool-search-save') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Between 1 and 10,000.')).toBeTruthy();
  });
});
