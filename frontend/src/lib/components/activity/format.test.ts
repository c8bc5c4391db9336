import { describe, expect, it } from 'vitest';
import { dayEnd, dayStart, filtering, formatBytes, formatDuration, noControls, preview, toFilter, whoLabel } from './format';

describe('activity format', () => {
  it('turns controls into the filter Go takes, leaving out empty ones', () => {
    expect(toFilter(noControls)).toEqual({});
    expect(filtering(noControls)).toBe(false);
    const f = toFilter({ ...noControls, serverId: 'fs', who: 'yolo', status: 'failed', query: '  hosts ', from: '2025-03-01', to: '2025-03-02' });
    expect(f).toEqual({
      serverId: 'fs',
      who: 'yolo',
      status: 'failed',
      query: 'hosts',
      since: new Date(2025, 2, 1).toISOString(),
      until: new Date(2025, 2, 3).toISOString(), // the "to" day is included
    });
    expect(filtering({ ...noControls, query: '   ' })).toBe(false);
  });

  it('reads days as local days and refuses what is not one', () => {
    expect(dayStart('')).toBeUndefined();
    expect(dayStart('yesterday')).toBeUndefined();
    expect(dayEnd('2024-12-31')).toBe(new Date(2025, 0, 1).toISOString());
  });

  it('says sizes, durations and who decided in words', () => {
    expect(formatBytes(0)).toBe('—');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2048)).toBe('2.0 KiB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MiB');
    expect(formatDuration(0, 'denied')).toBe('—');
    expect(formatDuration(0, 'done')).toBe('0 ms');
    expect(formatDuration(2400, 'done')).toBe('2.4 s');
    expect(formatDuration(185_000, 'failed')).toBe('3 min 5 s');
    expect(whoLabel('always')).toBe('Always-allow grant');
    expect(whoLabel('someone-new')).toBe('someone-new');
    expect(preview('{\n  "a":   1\n}')).toBe('{ "a": 1 }');
    expect(preview('x'.repeat(200), 10)).toBe('x'.repeat(10) + '…');
  });
});
