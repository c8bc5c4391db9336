// Loads the MCP Apps SDK (sdk.ts) on first use, once; a failed load is
// tried again the next time.
export type BridgeSDK = typeof import('./sdk');

let loading: Promise<BridgeSDK> | null = null;

/** The SDK's AppBridge and PostMessageTransport, loaded on first use. */
export function loadBridge(): Promise<BridgeSDK> {
  if (!loading) {
    const p = import('./sdk');
    loading = p;
    p.catch(() => {
      if (loading === p) loading = null;
    });
  }
  return loading;
}
