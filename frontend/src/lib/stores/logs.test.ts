import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { LogLine } from '../backend';
import { manualFrames } from '../test/helpers';
import { LogStore } from './logs.svelte';

const line = (seq: number, level: LogLine['level'] = 'info', text = `line ${seq}`): LogLine => ({ seq, time: new Date(seq * 1000).toISOString(), level, text });

describe('LogStore', () => {
  it('loads recent lines, then tails new ones batched per frame', async () => {
    const be = new FakeBackend();
    be.serverLogLines = { files: [line(1), line(2)] };
    const frames = manualFrames();
    const log = new LogStore(be, 'files', { schedule: frames.schedule });
    await log.start();
    expect(be.callsOf('serverLogs')).toEqual([['files', 0, 5000]]);
    expect(log.lines.map((l) => l.seq)).toEqual([1, 2]);
    be.emit('log:append', { source: 'files', lines: [line(2), line(3)] }); // overlaps the load
    be.emit('log:append', { source: 'other', lines: [line(9)] });
    be.emit('log:append', { source: 'files', lines: [line(4)] });
    expect(frames.pending).toBe(1);
    expect(log.lines.length).toBe(2);
    frames.run();
    expect(log.lines.map((l) => l.seq)).toEqual([1, 2, 3, 4]);
  });

  it('holds lines while paused and shows them on resume', async () => {
    const be = new FakeBackend();
    const frames = manualFrames();
    const log = new LogStore(be, 'app', { schedule: frames.schedule });
    await log.start();
    expect(be.callsOf('appLogs')).toEqual([[0, 5000]]);
    log.pause();
    be.emit('log:append', { source: 'app', lines: [line(1), line(2)] });
    frames.run();
    expect(log.lines).toEqual([]);
    expect(log.held).toBe(2);
    log.resume();
    expect(log.lines.map((l) => l.seq)).toEqual([1, 2]);
    expect(log.held).toBe(0);
  });

  it('caps the lines, also under a flood', async () => {
    const be = new FakeBackend();
    const frames = manualFrames();
    const log = new LogStore(be, 'app', { schedule: frames.schedule, cap: 100 });
    await log.start();
    for (let i = 1; i <= 2000; i++) be.emit('log:append', { source: 'app', lines: [line(i)] });
    expect(frames.pending).toBe(1);
    frames.run();
    expect(log.lines.length).toBe(100);
    expect(log.lines[0].seq).toBe(1901);
    expect(log.lines[99].seq).toBe(2000);
    log.pause();
    for (let i = 2001; i <= 2300; i++) be.emit('log:append', { source: 'app', lines: [line(i)] });
    frames.run();
    expect(log.held).toBe(100);
    log.resume();
    expect(log.lines.length).toBe(100);
    expect(log.lines[99].seq).toBe(2300);
  });

  it('filters by text and level, and copies what is shown', async () => {
    const be = new FakeBackend();
    be.appLogLines = [line(1, 'error', 'Connection refused'), line(2, 'info', 'connected'), line(3, 'debug', 'ping')];
    const log = new LogStore(be, 'app');
    await log.start();
    log.setQuery('CONN');
    expect(log.visible.map((l) => l.seq)).toEqual([1, 2]);
    log.toggleLevel('info');
    expect(log.visible.map((l) => l.seq)).toEqual([1]);
    expect(log.text()).toMatch(/ERROR Connection refused$/);
    log.dispose();
    expect(be.listeners('log:append')).toBe(0);
  });
});
