// Package chat runs conversation turns: the model's stream, its tool calls,
// their approval and execution over MCP, and the results fed back to the
// model, persisted as they happen.
//
// Design notes:
//   - One goroutine owns each run (a turn of one conversation); it has its
//     own context, so Stop cancels the stream and every running tool call
//     at once. A conversation has at most one run (ErrBusy otherwise).
//   - What the user typed is stored before anything else is tried; the
//     reply is an assistant message created with status "streaming" whose
//     text is saved at most every FlushInterval and at the end, so a crash
//     loses at most the last fraction of a second.
//   - Deltas reach the UI coalesced by a throttle (at most one chat:delta
//     per DeltaInterval, trailing edge included): each event carries the
//     text appended since the previous one, so their concatenation is the
//     message, in order, whatever the chunking.
//   - Tool calls of one reply run concurrently, at most
//     MaxToolCallsPerReply of them; each passes the checks (known, enabled,
//     selected, JSON object arguments), then the Approver, and runs with
//     exactly the arguments the user approved, on the server and the tool
//     definition that were approved (a ToolRef, never an exposed name, which
//     can move to another server's tool when names collide). Refusals and
//     failures become tool results the model can read, never a crash of the
//     turn. Results are cut to ResultLimit for the model; the audit record
//     keeps the whole result.
//   - Each call's audit record keeps the lethal-trifecta legs of its tool
//     (Tool.Legs). A call of an outbound tool, in a conversation whose
//     earlier results brought private data and outside content, goes to the
//     Approver with a Guard (guardFor), so it asks whatever the grants; the
//     legs are read from the audit (bounded by the store's query), not kept
//     in memory, so they hold across restarts and never go stale.
//   - The tools and the conversation's selection are read every round; a
//     selection names tools by server and original name (ToolKey).
//   - Past the user's tool-search threshold a request carries package
//     toolsearch's constant pair instead of the tools; a call through
//     call_tool is resolved to the real tool before any check, so approval,
//     audit and events only ever see real tools (toolsearch.go).
//   - Progress reports reach the UI paced (ProgressInterval for the whole
//     engine, newest report per call), whatever rate a server sends.
//   - The history sent to a model is rebuilt from the store each round, and
//     made valid on the way: a tool call without a result (stopped, crashed)
//     gets a "no result" tool message, an orphaned tool message is dropped.
//   - A user message's attachments are blobs in the store, named by their
//     SHA-256 (core.Services.Attach checks and stores them); the message
//     holds only their list, and each round reads their bytes back for
//     the model (llm inlines text and sends images as image parts).
//   - Chat defines the small interfaces it consumes (ToolSource, Approver,
//     Emitter) with the field names of mcpconn and approval, so the app
//     adapts the real types in a few lines and tests use fakes.
package chat
