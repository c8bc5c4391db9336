import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { req } from '../test/helpers';
import { ApprovalsStore } from './approvals.svelte';

const iso = (ms: number) => new Date(ms).toISOString();


describe('ApprovalsStore', () => {
  it('reloads pending approvals and the policy on load', async () => {
    const be = new FakeBackend();
    be.pending = [req('a'), req('b')];
    be.policy = { yolo: true, grants: [{ serverId: 'files', tool: 'read_file', fingerprint: 'fp', createdAt: iso(1)}] };
    const s = new ApprovalsStore(be);
    s.start();
    await s.load();
    expect(s.pending.map((r) => r.id)).toEqual(['a', 'b']);
    expect(s.current?.id).toBe('a');
    expect(s.yolo).toBe(true);
    expect(s.policy.grants).toHaveLength(1);
  });

  it('adds requested, removes resolved, never twice', async () => {
    const be = new FakeBackend();
    const s = new ApprovalsStore(be);
    s.start();
    be.emit('approval:requested', req('a'));
    be.pending = [req('a')];
    await s.load(); // an event and the reload overlap
    be.emit('approval:requested', req('b'));
    expect(s.pending.map((r) => r.id)).toEqual(['a', 'b']);
    be.emit('approval:resolved', { id: 'a', outcome: { allowed: false, decision: 'cancelled', decidedBy: 'system' } });
    expect(s.pending.map((r) => r.id)).toEqual(['b']);
    expect(s.isPending('b')).toBe(true);
  });

  it('sends the decision for the current request', async () => {
    const be = new FakeBackend();
    be.pending = [req('a'), req('b')];
    const s = new ApprovalsStore(be);
    await s.load();
    await s.decide('allow_always');
    expect(be.callsOf('decideApproval')).toEqual([['a', 'allow_always']]);
    expect(s.current?.id).toBe('b');
  });

  it('drops a request that was decided elsewhere, keeps one that failed', async () => {
    const be = new FakeBackend();
    be.pending = [req('a'), req('b')];
    const s = new ApprovalsStore(be);
    await s.load();
    be.failures.decideApproval = 'no pending tool call with this id; it may have been decided or cancelled already';
    await s.decide('deny');
    expect(s.pending.map((r) => r.id)).toEqual(['b']);
    be.failures.decideApproval = 'database is locked';
    await s.decide('deny');
    expect(s.pending.map((r) => r.id)).toEqual(['b']);
    expect(s.error).toBe('database is locked');
  });

  it('follows the policy event, turns yolo off and revokes grants', async () => {
    const be = new FakeBackend();
    const s = new ApprovalsStore(be);
    s.start();
    be.emit('approval:policy', { yolo: true, grants: [{ serverId: 'files', tool: 'read_file', fingerprint: '', createdAt: iso(0)}] });
    expect(s.yolo).toBe(true);
    await s.setYolo(false);
    expect(be.callsOf('setYolo')).toEqual([[false]]);
    expect(s.yolo).toBe(false);
    await s.revoke('files', 'read_file');
    expect(be.callsOf('revokeGrant')).toEqual([['files', 'read_file']]);
    expect(s.policy.grants).toEqual([]);
    s.dispose();
    expect(be.listeners('approval:requested')).toBe(0);
  });
});
