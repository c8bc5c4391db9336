// The host side of the MCP Apps SDK (@modelcontextprotocol/ext-apps's
// app-bridge, with the MCP client's Protocol and zod), in a chunk of its own:
// the app loads it when the first view opens (loadBridge in bridge.ts).
//
// zod must not probe for eval: the app's CSP forbids it, and Chromium reports
// even a caught `new Function`. jitless is set before any schema is built,
// which is why it is imported first.
import './jitless';
export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
