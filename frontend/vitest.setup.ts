import './src/lib/test/happydom';
import { afterEach, vi } from 'vitest';
import { cleanup } from '@testing-library/svelte';

// A test that fakes time (vi.useFakeTimers) leaves the next one real time.
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
