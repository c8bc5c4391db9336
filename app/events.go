package app

// Event names sent to the frontend by this package. Internal packages
// declare their own (mcpconn.EventServerStatus, approval.EventRequested,
// chat events); frontend/src/lib/backend/events.ts mirrors them all.
const (
	// EventLogAppend carries new log lines: LogAppend.
	EventLogAppend = "log:append"
)
