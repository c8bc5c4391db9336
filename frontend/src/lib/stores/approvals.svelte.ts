// ApprovalsStore mirrors the backend's approval state: the tool calls that
// wait for the user (shown one at a time) and the remembered policy. The
// backend owns the state; a reload asks for it again with PendingApprovals.
import { Events, errorMessage, type ApprovalRequest, type Backend, type Policy, type Unsubscribe, type UserDecision } from '../backend';

export class ApprovalsStore {
  #backend: Backend;
  #unsubs: Unsubscribe[] = [];
  #pending = $state<ApprovalRequest[]>([]);
  #policy = $state<Policy>({ yolo: false, grants: [] });
  #deciding = $state(false);
  #error = $state('');
  #policyError = $state('');

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get pending(): ApprovalRequest[] {
    return this.#pending;
  }
  /** The request shown now: the oldest. */
  get current(): ApprovalRequest | undefined {
    return this.#pending[0];
  }
  get count(): number {
    return this.#pending.length;
  }
  get policy(): Policy {
    return this.#policy;
  }
  get yolo(): boolean {
    return this.#policy.yolo;
  }
  get deciding(): boolean {
    return this.#deciding;
  }
  get error(): string {
    return this.#error;
  }
  get policyError(): string {
    return this.#policyError;
  }

  isPending(id: string): boolean {
    return this.#pending.some((r) => r.id === id);
  }

  start(): void {
    if (this.#unsubs.length) return;
    this.#unsubs = [
      this.#backend.on(Events.approvalRequested, (r) => this.#add([r])),
      this.#backend.on(Events.approvalResolved, (res) => this.#remove(res.id)),
      this.#backend.on(Events.approvalPolicy, (p) => (this.#policy = p)),
    ];
  }

  dispose(): void {
    for (const u of this.#unsubs) u();
    this.#unsubs = [];
  }

  /** Asks the backend what waits and what is remembered (so a reload shows it again). */
  async load(): Promise<void> {
    const [pending, policy] = await Promise.allSettled([this.#backend.pendingApprovals(), this.#backend.approvalPolicy()]);
    if (pending.status === 'fulfilled') this.#add(pending.value);
    else this.#error = `Could not load pending approvals: ${errorMessage(pending.reason)}`;
    if (policy.status === 'fulfilled') this.#policy = policy.value;
    else this.#policyError = `Could not load the approval policy: ${errorMessage(policy.reason)}`;
  }

  #add(rs: ApprovalRequest[]): void {
    const fresh = rs.filter((r) => !this.#pending.some((p) => p.id === r.id));
    if (fresh.length) this.#pending = [...this.#pending, ...fresh];
  }

  #remove(id: string): void {
    this.#pending = this.#pending.filter((r) => r.id !== id);
  }

  /** Sends the user's decision on the current request. */
  async decide(decision: UserDecision): Promise<void> {
    const r = this.current;
    if (!r || this.#deciding) return;
    this.#deciding = true;
    this.#error = '';
    try {
      await this.#backend.decideApproval(r.id, decision);
      this.#remove(r.id);
    } catch (e) {
      const msg = errorMessage(e);
      // Decided or cancelled elsewhere meanwhile: nothing left to ask.
      if (/no pending tool call/i.test(msg)) this.#remove(r.id);
      else this.#error = msg;
    } finally {
      this.#deciding = false;
    }
  }

  async setYolo(on: boolean): Promise<void> {
    try {
      await this.#backend.setYolo(on);
      this.#policy = { ...this.#policy, yolo: on };
      this.#policyError = '';
    } catch (e) {
      this.#policyError = `Could not turn "allow all" ${on ? 'on' : 'off'}: ${errorMessage(e)}`;
    }
  }

  /** Whether the tools server serverId says are read-only run without asking. */
  readOnly(serverId: string): boolean {
    return (this.#policy.readOnly ?? []).some((r) => r.serverId === serverId);
  }

  /** Lets a server's read-only tools run without asking (its claim), or stops that. */
  async setReadOnly(serverId: string, on: boolean): Promise<void> {
    try {
      await this.#backend.setReadOnlyServer(serverId, on);
      const rest = (this.#policy.readOnly ?? []).filter((r) => r.serverId !== serverId);
      const readOnly = on ? [...rest, { serverId, fingerprint: '', createdAt: new Date().toISOString() }] : rest;
      this.#policy = { ...this.#policy, readOnly: readOnly.length ? readOnly : undefined };
      this.#policyError = '';
    } catch (e) {
      this.#policyError = `Could not ${on ? 'allow' : 'stop allowing'} the read-only tools of ${serverId}: ${errorMessage(e)}`;
    }
  }

  /** Whether the user marked tool (the server's own name) of the server with fingerprint as reading private data. */
  isPrivate(fingerprint: string | undefined, tool: string): boolean {
    return !!fingerprint && (this.#policy.private ?? []).some((p) => p.fingerprint === fingerprint && p.tool === tool);
  }

  /**
   * Marks a tool as reading private data, or removes the mark; fingerprint
   * is the server's now (the tool's), for the policy shown until the
   * backend's own arrives.
   */
  async setPrivate(serverId: string, tool: string, fingerprint: string, on: boolean): Promise<void> {
    try {
      await this.#backend.setToolPrivate(serverId, tool, on);
      this.#markLocally(fingerprint, tool, on ? serverId : '');
      this.#policyError = '';
    } catch (e) {
      this.#policyError = `Could not ${on ? 'mark' : 'unmark'} ${tool} as private: ${errorMessage(e)}`;
    }
  }

  /** Removes a private mark as the policy lists it. */
  async unmarkPrivate(fingerprint: string, tool: string): Promise<void> {
    try {
      await this.#backend.unmarkPrivate(fingerprint, tool);
      this.#markLocally(fingerprint, tool, '');
      this.#policyError = '';
    } catch (e) {
      this.#policyError = `Could not unmark ${tool}: ${errorMessage(e)}`;
    }
  }

  #markLocally(fingerprint: string, tool: string, serverId: string): void {
    const rest = (this.#policy.private ?? []).filter((p) => !(p.fingerprint === fingerprint && p.tool === tool));
    const marks = serverId ? [...rest, { fingerprint, tool, serverId, createdAt: new Date().toISOString() }] : rest;
    this.#policy = { ...this.#policy, private: marks.length ? marks : undefined };
  }

  async revoke(serverId: string, tool: string): Promise<void> {
    try {
      await this.#backend.revokeGrant(serverId, tool);
      this.#policy = { ...this.#policy, grants: this.#policy.grants.filter((g) => !(g.serverId === serverId && g.tool === tool)) };
      this.#policyError = '';
    } catch (e) {
      this.#policyError = `Could not revoke ${tool}: ${errorMessage(e)}`;
    }
  }
}
