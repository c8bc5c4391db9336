export namespace app {
	
	export interface ActivityExport {
	    path: string;
	    calls: number;
	}
	export interface AddedClient {
	    client: clients.Client;
	    token: string;
	}
	export interface LogAppend {
	    source: string;
	    lines: logbuf.Line[];
	    skipped?: number;
	}
	export interface EventPayloads {
	    "server:status": mcpconn.Status;
	    "server:tools": mcpconn.ToolsEvent;
	    "log:append": LogAppend;
	    "approval:requested": approval.Request;
	    "approval:resolved": approval.Resolution;
	    "approval:policy": approval.Policy;
	    "chat:message": store.Message;
	    "chat:delta": chat.DeltaEvent;
	    "chat:toolcall": chat.ToolCallEvent;
	    "chat:status": chat.StatusEvent;
	    "chat:done": chat.DoneEvent;
	    "chat:truncated": chat.TruncatedEvent;
	    "chat:conversation": store.Conversation;
	    "chat:warning": chat.WarningEvent;
	    "task:update": store.Task;
	    "elicit:requested": elicit.Request;
	    "elicit:ended": asks.Ended;
	    "elicit:completed": elicit.Completed;
	    "sampling:requested": sampling.Request;
	    "sampling:ended": asks.Ended;
	    "resource:updated": mcpconn.ResourceUpdated;
	    "resources:changed": mcpconn.ListChanged;
	    "prompts:changed": mcpconn.ListChanged;
	    "appview:closed": core.AppViewClosed;
	    "install:progress": installer.Progress;
	    "clients:activity": clients.AuditEntry;
	}
	export interface Info {
	    version: string;
	    dataDir: string;
	    database: string;
	    logDir: string;
	    keyring: secrets.Status;
	    problems: core.Problem[];
	    notice?: string;
	}

}

export namespace approval {
	
	export interface Grant {
	    serverId: string;
	    tool: string;
	    fingerprint: string;
	    definitionHash?: string;
	    description?: string;
	    createdAt: string;
	}
	export interface Guard {
	    privateFrom: string[];
	    untrustedFrom: string[];
	    tool: string;
	    reason: string;
	}
	export interface Outcome {
	    allowed: boolean;
	    decision: Decision;
	    decidedBy: DecidedBy;
	    arguments?: unknown;
	    reason?: string;
	}
	export interface PrivateTool {
	    fingerprint: string;
	    tool: string;
	    serverId: string;
	    createdAt: string;
	}
	export interface ReadOnlyServer {
	    serverId: string;
	    fingerprint: string;
	    createdAt: string;
	}
	export interface Policy {
	    yolo: boolean;
	    grants: Grant[];
	    readOnly?: ReadOnlyServer[];
	    private?: PrivateTool[];
	}
	
	
	export interface ToolHints {
	    readOnly?: boolean;
	    destructive?: boolean;
	    idempotent?: boolean;
	    openWorld?: boolean;
	}
	export interface Request {
	    id: string;
	    conversationId: string;
	    serverId: string;
	    tool: string;
	    serverName: string;
	    title?: string;
	    description: string;
	    hints?: ToolHints;
	    fingerprint: string;
	    arguments: unknown;
	    definitionHash?: string;
	    inputSchema?: unknown;
	    changed?: boolean;
	    previousDescription?: string;
	    previousInputSchema?: unknown;
	    guard?: Guard;
	    requestedBy?: string;
	    client?: string;
	}
	export interface Resolution {
	    id: string;
	    outcome: Outcome;
	}

}

export namespace asks {
	
	export interface Ended {
	    id: string;
	    serverId: string;
	    serverName: string;
	    outcome: asks.Outcome;
	    reason?: string;
	    summary: string;
	}

}

export namespace chat {
	
	export interface DeltaEvent {
	    conversationId: string;
	    messageId: number;
	    content?: string;
	    reasoning?: string;
	}
	export interface DoneEvent {
	    conversationId: string;
	    runId: string;
	    status: store.MessageStatus;
	    error?: string;
	}
	export interface Progress {
	    progress: number;
	    total?: number;
	    message?: string;
	}
	export interface ReplyMeta {
	    model: string;
	    providerId?: string;
	    timeToFirstTokenMs?: number;
	    tokensPerSecond?: number;
	    tokensPerSecondEstimated?: boolean;
	    usage?: llm.Usage;
	    finishReason?: string;
	    durationMs?: number;
	    round?: number;
	    note?: string;
	}
	export interface StatusEvent {
	    conversationId: string;
	    state: RunState;
	    message?: string;
	    retryInMs?: number;
	}
	export interface ToolCallEvent {
	    conversationId: string;
	    messageId: number;
	    id: string;
	    callId: string;
	    serverId: string;
	    serverName: string;
	    tool: string;
	    via?: string;
	    status: store.CallStatus;
	    progress?: Progress;
	    resultText?: string;
	    isError?: boolean;
	    error?: string;
	    durationMs?: number;
	}
	export interface ToolChoice {
	    key: string;
	    name: string;
	    server: string;
	    description: string;
	    enabled: boolean;
	    selected: boolean;
	}
	export interface ToolSelection {
	    only: string[] | null;
	    off?: string[];
	}
	export interface ToolSet {
	    selection: ToolSelection;
	    tools: ToolChoice[];
	    offered: number;
	    estimatedTokens: number;
	    toolSearch?: boolean;
	    warning?: string;
	}
	export interface TruncatedEvent {
	    conversationId: string;
	    afterSeq: number;
	}
	export interface WarningEvent {
	    conversationId: string;
	    message: string;
	}

}

export namespace clientconfig {
	
	export interface Preview {
	    app: App;
	    label: string;
	    path: string;
	    key: string;
	    server: string;
	    json: string;
	    exists: boolean;
	    replaces: boolean;
	    problem?: string;
	}
	export interface Written {
	    path: string;
	    backup?: string;
	    replaced: boolean;
	}

}

export namespace clients {
	
	export interface AuditEntry {
	    id: number;
	    clientId: string;
	    clientName: string;
	    transport: string;
	    operation: string;
	    conversationId: string;
	    allowed: boolean;
	    reason: string;
	    at: string;
	}
	export interface AuditFilter {
	    client: string;
	    operation: string;
	    conversationId: string;
	    allowed?: boolean | null;
	    since?: string;
	    until?: string;
	    query: string;
	    before: number;
	    limit: number;
	}
	export interface Client {
	    id: string;
	    name: string;
	    canStart: boolean;
	    createdAt: string;
	    lastSeenAt?: string;
	    revokedAt?: string;
	    grants: number;
	}
	export interface Grant {
	    clientId: string;
	    clientName: string;
	    clientRevoked?: boolean;
	    conversationId: string;
	    title: string;
	    access: Access;
	    owned: boolean;
	    expiresAt?: string;
	    createdAt: string;
	    expired: boolean;
	}
	export interface ToolRef {
	    serverId: string;
	    tool: string;
	}

}

export namespace core {
	
	export interface AppConnection {
	    client: clients.Client;
	    token: string;
	    preview: clientconfig.Preview;
	    rotated: boolean;
	}
	export interface AppView {
	    id: string;
	    url: string;
	    serverId: string;
	    serverName: string;
	    tool: string;
	    resourceUri: string;
	    csp: string;
	    allow: string;
	    prefersBorder: boolean;
	    externalDomains: string[];
	}
	export interface AppViewClosed {
	    viewId: string;
	    reason: string;
	}
	export interface BundleSetting {
	    key: string;
	    title: string;
	    description: string;
	    type: string;
	    required: boolean;
	    sensitive: boolean;
	    multiple: boolean;
	    default: string;
	}
	export interface BundleInfo {
	    name: string;
	    title: string;
	    version: string;
	    description: string;
	    author: string;
	    runtime: string;
	    settings: BundleSetting[];
	}
	
	export interface EndpointStatus {
	    on: boolean;
	    port: number;
	    url: string;
	    error?: string;
	}
	export interface InstallRequest {
	    id: string;
	    package: string;
	    version: string;
	    bin: string;
	    values: Record<string, string>;
	    fetchNode: boolean;
	}
	export interface NodeInfo {
	    path: string;
	    version: string;
	    source: string;
	    hasNpm: boolean;
	}
	export interface PreviewPart {
	    uri: string;
	    mimeType?: string;
	    kind: string;
	    text?: string;
	    truncated?: boolean;
	    dataUrl?: string;
	    size: number;
	    note?: string;
	}
	export interface Problem {
	    kind: string;
	    message: string;
	    advice?: string;
	    fatal: boolean;
	}
	export interface PromptUse {
	    mode: string;
	    text?: string;
	    attachments: store.Attachment[];
	    prompt?: mcpconn.PromptResult;
	}
	export interface RegistryInstall {
	    name: string;
	    version?: string;
	    choice: number;
	    id?: string;
	    values?: Record<string, string>;
	    fetchNode?: boolean;
	    registry?: string;
	}
	export interface RegistryItem {
	    entry: mcpregistry.Entry;
	    options: mcpregistry.Option[];
	    preferred: number;
	    status: string;
	}
	export interface RegistryPage {
	    items: RegistryItem[];
	    nextCursor: string;
	    registry: string;
	    skipped: number;
	}
	export interface ResourcePreview {
	    serverId: string;
	    uri: string;
	    parts: PreviewPart[];
	}
	export interface Settings {
	    theme: Theme;
	    toolResultLimit: number;
	    maxToolRounds: number;
	    defaultSystemPrompt: string;
	    defaultProviderId: string;
	    trifectaGuard: boolean;
	    toolSearch: ToolSearchMode;
	    toolSearchMaxTools: number;
	    toolSearchMaxKB: number;
	    npmRegistry: string;
	    mcpRegistry: string;
	}

}

export namespace elicit {
	
	export interface Answer {
	    action: elicit.Action;
	    content?: Record<string, unknown>;
	}
	export interface Completed {
	    serverId: string;
	    serverName: string;
	    elicitationId: string;
	    message: string;
	    host: string;
	}
	export interface Option {
	    value: string;
	    label: string;
	}
	export interface Field {
	    name: string;
	    title?: string;
	    description?: string;
	    type: elicit.FieldType;
	    required: boolean;
	    format?: string;
	    minLength?: number;
	    maxLength?: number;
	    minimum?: number;
	    maximum?: number;
	    minItems?: number;
	    maxItems?: number;
	    options?: Option[];
	    default?: string | number | boolean | string[] | undefined;
	}
	export interface Form {
	    fields: Field[];
	}
	
	export interface Request {
	    id: string;
	    serverId: string;
	    serverName: string;
	    requestedAt: string;
	    expiresAt: string;
	    mode: elicit.Mode;
	    message: string;
	    form?: Form;
	    formProblem?: string;
	    schema?: string;
	    url?: string;
	    host?: string;
	    elicitationId?: string;
	    waiting?: boolean;
	}

}

export namespace installer {
	
	export interface Progress {
	    id: string;
	    step: string;
	    detail?: string;
	    fetched?: number;
	}

}

export namespace llm {
	
	export interface Model {
	    id: string;
	    ownedBy?: string;
	}
	export interface Preset {
	    id: string;
	    name: string;
	    baseUrl: string;
	    keyEnv: string;
	    needsKey: boolean;
	    local: boolean;
	}
	export interface LocalServer {
	    preset: Preset;
	    models?: Model[];
	}
	
	
	export interface ToolCall {
	    id: string;
	    name: string;
	    arguments: string;
	}
	export interface ToolLimits {
	    Provider: string;
	    MaxTools: number;
	    MaxNameLength: number;
	    Documented: boolean;
	}
	export interface Usage {
	    promptTokens: number;
	    completionTokens: number;
	    totalTokens: number;
	    reasoningTokens: number;
	}

}

export namespace logbuf {
	
	export interface Line {
	    seq: number;
	    time: string;
	    level: Level;
	    text: string;
	    restored?: boolean;
	}

}

export namespace mcpconn {
	
	export interface Completion {
	    values: string[];
	    total?: number;
	    hasMore?: boolean;
	}
	export interface CompletionRef {
	    type: string;
	    name?: string;
	    uri?: string;
	}
	export interface Content {
	    type: string;
	    text?: string;
	    mimeType?: string;
	    data?: string;
	    uri?: string;
	    name?: string;
	    title?: string;
	    description?: string;
	    size?: number;
	    blob?: string;
	    annotations?: unknown;
	}
	export interface Icon {
	    src: string;
	    mimeType?: string;
	    sizes?: string[];
	    theme?: string;
	}
	export interface ListChanged {
	    serverId: string;
	}
	export interface Offers {
	    resources?: boolean;
	    subscribe?: boolean;
	    prompts?: boolean;
	    completions?: boolean;
	}
	export interface PromptArgument {
	    name: string;
	    title?: string;
	    description?: string;
	    required?: boolean;
	}
	export interface Prompt {
	    name: string;
	    title?: string;
	    description?: string;
	    arguments: PromptArgument[];
	}
	
	export interface PromptList {
	    serverId: string;
	    prompts: Prompt[];
	    notes?: string[];
	}
	export interface PromptMessage {
	    role: string;
	    content: Content;
	}
	export interface PromptResult {
	    serverId: string;
	    name: string;
	    description?: string;
	    messages: PromptMessage[];
	}
	export interface Resource {
	    uri: string;
	    name: string;
	    title?: string;
	    description?: string;
	    mimeType?: string;
	    size?: number;
	}
	export interface ResourceContent {
	    uri: string;
	    mimeType?: string;
	    text?: string;
	    blob?: string;
	    binary?: boolean;
	}
	export interface ResourceContents {
	    serverId: string;
	    uri: string;
	    contents: ResourceContent[];
	}
	export interface ResourceTemplate {
	    uriTemplate: string;
	    name: string;
	    title?: string;
	    description?: string;
	    mimeType?: string;
	    variables: string[];
	}
	export interface ResourceList {
	    serverId: string;
	    resources: Resource[];
	    templates: ResourceTemplate[];
	    subscribed: string[];
	    notes?: string[];
	}
	
	export interface ResourceUpdated {
	    serverId: string;
	    uri: string;
	}
	export interface TaskInputRequest {
	    method: string;
	    params?: unknown;
	}
	export interface TaskError {
	    code: number;
	    message: string;
	}
	export interface Task {
	    serverId: string;
	    taskId: string;
	    status: TaskStatus;
	    statusMessage?: string;
	    createdAt: string;
	    lastUpdatedAt: string;
	    ttlMs?: number;
	    pollIntervalMs?: number;
	    result?: Result;
	    error?: TaskError;
	    inputRequests?: Record<string, TaskInputRequest>;
	}
	export interface Result {
	    content: Content[];
	    structuredContent?: unknown;
	    structuredWarning?: string;
	    isError?: boolean;
	    meta?: Record<string, unknown>;
	    task?: Task;
	}
	export interface Status {
	    serverId: string;
	    state: State;
	    reason?: string;
	    toolCount: number;
	    lastStderr?: string[];
	    connectedAt?: string;
	    protocolVersion?: string;
	    attempt?: number;
	    warning?: string;
	    logging?: boolean;
	    offers?: Offers;
	}
	
	
	
	export interface ToolUI {
	    resourceUri: string;
	    visibility?: string[];
	}
	export interface Tool {
	    name: string;
	    serverId: string;
	    serverName: string;
	    originalName: string;
	    title?: string;
	    description: string;
	    inputSchema: unknown;
	    schema?: unknown;
	    annotations?: Record<string, unknown>;
	    icons?: Icon[];
	    outputSchema?: unknown;
	    enabled: boolean;
	    appOnly?: boolean;
	    ui?: ToolUI;
	    visibility?: string[];
	    fingerprint?: string;
	    definitionHash?: string;
	    local?: boolean;
	}
	
	export interface ToolsEvent {
	    serverId: string;
	    tools: Tool[];
	}

}

export namespace mcpregistry {
	
	export interface Arg {
	    flag?: string;
	    text: string;
	    vars?: Record<string, string>;
	    required?: boolean;
	    secret?: boolean;
	    repeated?: boolean;
	}
	export interface Input {
	    description?: string;
	    isRequired?: boolean;
	    format?: string;
	    value?: string;
	    isSecret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    variables?: Record<string, Input>;
	}
	export interface Argument {
	    description?: string;
	    isRequired?: boolean;
	    format?: string;
	    value?: string;
	    isSecret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    variables?: Record<string, Input>;
	    type: string;
	    name?: string;
	    valueHint?: string;
	    isRepeated?: boolean;
	}
	export interface Official {
	    status?: string;
	    statusMessage?: string;
	    publishedAt?: string;
	    updatedAt?: string;
	    isLatest?: boolean;
	}
	export interface EntryMeta {
	    "io.modelcontextprotocol.registry/official"?: Official;
	}
	export interface KeyValueInput {
	    description?: string;
	    isRequired?: boolean;
	    format?: string;
	    value?: string;
	    isSecret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    variables?: Record<string, Input>;
	    name: string;
	}
	export interface Transport {
	    type: string;
	    url?: string;
	    headers?: KeyValueInput[];
	    variables?: Record<string, Input>;
	}
	export interface ServerPackage {
	    registryType: string;
	    registryBaseUrl?: string;
	    identifier: string;
	    version?: string;
	    fileSha256?: string;
	    runtimeHint?: string;
	    transport: Transport;
	    runtimeArguments?: Argument[];
	    packageArguments?: Argument[];
	    environmentVariables?: KeyValueInput[];
	}
	export interface Icon {
	    src: string;
	    mimeType?: string;
	    sizes?: string[];
	    theme?: string;
	}
	export interface Repository {
	    url?: string;
	    source?: string;
	    subfolder?: string;
	}
	export interface Server {
	    name: string;
	    title?: string;
	    description: string;
	    version: string;
	    websiteUrl?: string;
	    repository?: Repository;
	    icons?: Icon[];
	    packages?: ServerPackage[];
	    remotes?: Transport[];
	}
	export interface Entry {
	    server: Server;
	    _meta: EntryMeta;
	}
	
	export interface Field {
	    key: string;
	    label: string;
	    description?: string;
	    required?: boolean;
	    secret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    format?: string;
	    repeated?: boolean;
	}
	
	
	
	export interface NamedValue {
	    name: string;
	    text: string;
	    vars?: Record<string, string>;
	    required?: boolean;
	    secret?: boolean;
	}
	
	export interface Option {
	    kind?: string;
	    label: string;
	    unsupported?: string;
	}
	export interface Plan {
	    kind: string;
	    id: string;
	    name: string;
	    package?: string;
	    version?: string;
	    registry?: string;
	    url?: string;
	    sha256?: string;
	    config: serverconf.Config;
	    args?: Arg[];
	    env?: NamedValue[];
	    headers?: NamedValue[];
	    urlVars?: Record<string, string>;
	    fields?: Field[];
	    notes?: string[];
	}
	
	
	

}

export namespace providers {
	
	export interface Input {
	    id: string;
	    name: string;
	    preset: string;
	    baseUrl: string;
	    defaultModel: string;
	    apiKey: string;
	    clearKey?: boolean;
	}
	export interface TestResult {
	    ok: boolean;
	    message: string;
	    models?: string[];
	}
	export interface View {
	    id: string;
	    name: string;
	    preset: string;
	    baseUrl: string;
	    defaultModel: string;
	    hasKey: boolean;
	    keyFromEnv: string;
	}

}

export namespace sampling {
	
	export interface Decision {
	    approve: boolean;
	    systemPrompt?: string | null;
	    texts?: string[];
	    providerId?: string;
	    model?: string;
	}
	export interface Part {
	    type: string;
	    text?: string;
	    mimeType?: string;
	    data?: string;
	    toolUseId?: string;
	    name?: string;
	    input?: Record<string, unknown>;
	    isError?: boolean;
	}
	export interface Message {
	    role: string;
	    parts: Part[];
	}
	
	export interface Tool {
	    name: string;
	    description?: string;
	    schema?: unknown;
	}
	export interface Request {
	    id: string;
	    serverId: string;
	    serverName: string;
	    requestedAt: string;
	    expiresAt: string;
	    messages: Message[];
	    systemPrompt: string;
	    maxTokens: number;
	    allowedTokens: number;
	    temperature?: number;
	    stopSequences?: string[];
	    modelHints?: string[];
	    includeContext?: string;
	    providerId: string;
	    providerName: string;
	    model: string;
	    conversationId?: string;
	    tools?: Tool[];
	    toolChoice?: string;
	}

}

export namespace secrets {
	
	export interface Status {
	    backend: string;
	    persistent: boolean;
	    problem?: string;
	    advice?: string;
	}

}

export namespace serverconf {
	
	export interface Auth {
	    clientId?: string;
	    clientSecretRef?: string;
	    grant?: string;
	    clientAuth?: string;
	    privateKeyRef?: string;
	    scopes?: string[];
	    assertionFile?: string;
	    clientSecret?: string;
	    privateKey?: string;
	}
	export interface CommandTool {
	    name: string;
	    description?: string;
	    inputSchema?: unknown;
	    command: string[];
	    cwd?: string;
	    timeout?: number;
	    outputLimit?: number;
	    readOnly?: boolean;
	}
	export interface Install {
	    kind: InstallKind;
	    package: string;
	    version: string;
	    file?: string;
	    pinned?: boolean;
	    bin?: string;
	    values?: Record<string, string>;
	    runtime: string;
	}
	export interface Value {
	    plain?: string;
	    secretRef?: string;
	}
	export interface Config {
	    id: string;
	    name: string;
	    transport: Transport;
	    command?: string;
	    args?: string[];
	    env?: Record<string, Value>;
	    cwd?: string;
	    inheritEnv?: boolean;
	    tools?: CommandTool[];
	    url?: string;
	    headers?: Record<string, Value>;
	    enabled: boolean;
	    callTimeout?: number;
	    disabledTools?: string[];
	    auth?: Auth;
	    logLevel?: LogLevel;
	    install?: Install;
	    roots?: string[];
	}
	export interface FieldError {
	    field: string;
	    message: string;
	}
	export interface ImportNote {
	    server?: string;
	    id?: string;
	    message: string;
	}
	export interface InputPrompt {
	    id: string;
	    description?: string;
	    password?: boolean;
	}
	export interface SecretInput {
	    serverId: string;
	    field: string;
	    ref: string;
	    template?: string;
	    inputs?: InputPrompt[];
	}
	export interface ImportReport {
	    format: string;
	    added?: Config[];
	    skipped?: ImportNote[];
	    failed?: ImportNote[];
	    warnings?: ImportNote[];
	    needsInput?: SecretInput[];
	}
	
	
	

}

export namespace servers {
	
	export interface View {
	    config: serverconf.Config;
	    status: mcpconn.Status;
	    tools: mcpconn.Tool[];
	}

}

export namespace store {
	
	export interface ActivityTool {
	    tool: string;
	    calls: number;
	}
	export interface ActivityServer {
	    id: string;
	    name: string;
	    calls: number;
	}
	export interface ActivityFacets {
	    servers: ActivityServer[];
	    tools: ActivityTool[];
	    total: number;
	}
	export interface ActivityFilter {
	    serverId?: string;
	    tool?: string;
	    who?: Who;
	    status?: CallStatus;
	    since?: string;
	    until?: string;
	    query?: string;
	    cursor?: string;
	    limit?: number;
	}
	export interface ActivityRow {
	    id: string;
	    conversationId: string;
	    conversationTitle: string;
	    messageId: number;
	    serverId: string;
	    serverName: string;
	    tool: string;
	    arguments: string;
	    status: CallStatus;
	    decision: string;
	    decidedBy: string;
	    who: Who;
	    isError: boolean;
	    error: string;
	    requestedAt: string;
	    durationMs: number;
	    resultSize: number;
	    result?: unknown;
	    requestedBy?: string;
	}
	export interface ActivityPage {
	    rows: ActivityRow[];
	    next?: string;
	}
	
	
	
	export interface Attachment {
	    id: string;
	    name: string;
	    mime: string;
	    size: number;
	    kind: AttachmentKind;
	    serverId?: string;
	    uri?: string;
	    truncated?: boolean;
	}
	export interface Conversation {
	    id: string;
	    title: string;
	    providerId: string;
	    model: string;
	    systemPrompt?: string | null;
	    tools?: chat.ToolSelection | null;
	    createdAt: string;
	    updatedAt: string;
	    pinned?: boolean;
	    archived?: boolean;
	}
	export interface Message {
	    id: number;
	    conversationId: string;
	    seq: number;
	    role: Role;
	    content: string;
	    reasoning: string;
	    toolCalls: llm.ToolCall[] | null;
	    toolCallId: string;
	    status: MessageStatus;
	    error: string;
	    meta: chat.ReplyMeta | null;
	    attachments?: Attachment[];
	    createdAt: string;
	    updatedAt: string;
	}
	export interface SnippetPart {
	    text: string;
	    match?: boolean;
	}
	export interface SearchHit {
	    messageId: number;
	    conversationId: string;
	    conversationTitle: string;
	    seq: number;
	    role: Role;
	    createdAt: string;
	    snippet: SnippetPart[];
	}
	
	export interface Task {
	    id: string;
	    serverId: string;
	    serverName: string;
	    taskId: string;
	    toolCallId: string;
	    conversationId: string;
	    tool: string;
	    status: mcpconn.TaskStatus;
	    statusMessage: string;
	    result: mcpconn.Result | null;
	    error: string;
	    pollIntervalMs: number;
	    ttlMs: number;
	    createdAt: string;
	    updatedAt: string;
	    endedAt?: string;
	}
	export interface ToolCall {
	    id: string;
	    callId: string;
	    conversationId: string;
	    messageId: number;
	    serverId: string;
	    serverName: string;
	    tool: string;
	    arguments: string;
	    status: CallStatus;
	    decision: string;
	    decidedBy: string;
	    result: mcpconn.Result | null;
	    isError: boolean;
	    error: string;
	    requestedAt: string;
	    startedAt?: string;
	    durationMs: number;
	    requestedBy?: string;
	}

}


// String unions of Go's enumerations (tools/gencontract).
export namespace approval {
	export type Decision = "allow_once" | "allow_always" | "allow_all" | "allow_read_only" | "deny" | "cancelled";
}
export namespace approval {
	export type DecidedBy = "user" | "policy" | "system" | "guard";
}
export namespace chat {
	export type RunState = "streaming" | "tools" | "retrying" | "idle" | "error";
}
export namespace chat {
	export type MetaTool = "search_tools" | "call_tool";
}
export namespace core {
	export type Theme = "system" | "light" | "dark";
}
export namespace core {
	export type ToolSearchMode = "auto" | "always" | "off";
}
export namespace logbuf {
	export type Level = "error" | "warn" | "info" | "debug";
}
export namespace asks {
	export type Outcome = "answered" | "expired" | "cancelled" | "refused";
}
export namespace elicit {
	export type Mode = "form" | "url";
}
export namespace elicit {
	export type Action = "accept" | "decline" | "cancel";
}
export namespace elicit {
	export type FieldType = "string" | "number" | "integer" | "boolean" | "select" | "multiselect";
}
export namespace mcpconn {
	export type State = "disconnected" | "connecting" | "connected" | "degraded" | "needs-auth" | "failed";
}
export namespace serverconf {
	export type Transport = "stdio" | "sse" | "http" | "command";
}
export namespace serverconf {
	export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
}
export namespace serverconf {
	export type InstallKind = "npm" | "mcpb";
}
export namespace mcpconn {
	export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
}
export namespace store {
	export type CallStatus = "pending" | "waiting_approval" | "running" | "done" | "failed" | "denied" | "cancelled";
}
export namespace store {
	export type AttachmentKind = "text" | "image";
}
export namespace store {
	export type MessageStatus = "streaming" | "done" | "stopped" | "error";
}
export namespace store {
	export type Role = "system" | "user" | "assistant" | "tool";
}
export namespace store {
	export type Who = "user" | "always" | "yolo" | "read-only" | "app-grant" | "guard" | "system" | "none";
}
export namespace clients {
	export type Access = "read" | "write";
}
export namespace clientconfig {
	export type App = "claude-desktop" | "vscode" | "cursor";
}
