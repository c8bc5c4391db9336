// Event names and payloads (Go -> UI), generated from app.EventPayloads.
export { Events } from '../../../wailsjs/go/events';
export type { EventName, EventPayloads } from '../../../wailsjs/go/events';
