/**
 * A web host of MCP Apps views for page tests: the extension's own host bridge (AppBridge) runs
 * here in Node and talks to the view in Chromium over postMessage, relayed through the host page.
 * The view is loaded from another origin than the host page (as the extension requires of web
 * hosts), in a sandboxed iframe, under the CSP the extension says a host builds from the view's
 * `_meta.ui.csp`; every request the page makes is recorded, so a test can see that nothing else
 * was loaded. The host grows the iframe to the size the view reports.
 */
import type { CallToolRequest, CallToolResult, Transport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  type McpUiHostCapabilities,
  type McpUiResourceCsp,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Browser, FrameLocator, Page } from 'playwright-core';

const hostOrigin = 'https://host.test';
const viewOrigin = 'https://views.test';

/** The CSP of the extension's specification (Security: CSP construction from metadata). */
export function viewCsp(csp: McpUiResourceCsp | undefined): string {
  const resources = (csp?.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `connect-src 'self' ${(csp?.connectDomains ?? []).join(' ')}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `frame-src ${(csp?.frameDomains ?? []).join(' ') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp?.baseUriDomains ?? []).join(' ') || "'self'"}`,
  ].join('; ');
}

const hostPage = `<!doctype html>
<html><head><title>Host</title><style>body{margin:0;padding:16px;font-family:sans-serif}iframe{width:100%;border:1px solid #ccc;border-radius:8px}</style></head>
<body><iframe id="view" title="Calendar view" sandbox="allow-scripts" src="${viewOrigin}/view"></iframe>
<script>
  const frame = document.getElementById('view');
  window.addEventListener('message', (event) => {
    if (event.source === frame.contentWindow) toHost(event.data);
  });
  window.toView = (message) => frame.contentWindow.postMessage(message, '*');
  window.sizeView = (height) => { frame.style.height = height + 'px'; };
</script></body></html>`;

interface HostWindow {
  toView(message: unknown): void;
  sizeView(height: number): void;
}

/** The bridge's side of the postMessage channel, through the host page. */
class HostPageTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly page: Page;
  constructor(page: Page) {
    this.page = page;
  }
  async start() {}
  async send(message: JSONRPCMessage) {
    await this.page.evaluate((m) => (globalThis as unknown as HostWindow).toView(m), message);
  }
  async close() {
    this.onclose?.();
  }
}

export interface ShownView {
  page: Page;
  view: FrameLocator;
  /** Every URL the page asked for (the host page and the view's document, if nothing else). */
  requests: string[];
  /** The tools/call requests the view made, as the host received them. */
  calls: CallToolRequest['params'][];
  /** The host's side, to tell the view more (host-context-changed). */
  bridge: AppBridge;
}

export interface ViewShown {
  html: string;
  csp: McpUiResourceCsp | undefined;
  /** The tool call the view shows: its arguments and result. */
  input: Record<string, unknown>;
  result: CallToolResult;
  /** Answers the view's tools/call (the host's own step: ask the person, then call the server). */
  callTool?: (params: CallToolRequest['params']) => Promise<CallToolResult>;
  width?: number;
}

export async function showView(browser: Browser, shown: ViewShown): Promise<ShownView> {
  const page = await browser.newPage({ viewport: { width: shown.width ?? 720, height: 600 } });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.route(`${hostOrigin}/`, (route) => route.fulfill({ contentType: 'text/html', body: hostPage }));
  await page.route(`${viewOrigin}/view`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      headers: { 'content-security-policy': viewCsp(shown.csp) },
      body: shown.html,
    }),
  );

  const capabilities: McpUiHostCapabilities = shown.callTool === undefined ? {} : { serverTools: {} };
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, capabilities, {
    hostContext: { theme: 'light', locale: 'en-GB', displayMode: 'inline', platform: 'web' },
  });
  const calls: CallToolRequest['params'][] = [];
  if (shown.callTool !== undefined) {
    const callTool = shown.callTool;
    bridge.oncalltool = async (params) => {
      calls.push(params);
      return callTool(params);
    };
  }
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined)
      void page.evaluate((h) => (globalThis as unknown as HostWindow).sizeView(h), height).catch(() => {});
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  const transport = new HostPageTransport(page);
  await page.exposeBinding('toHost', (_source, message: JSONRPCMessage) => transport.onmessage?.(message));
  await bridge.connect(transport);
  await page.goto(`${hostOrigin}/`);
  await initialized;
  await bridge.sendToolInput({ arguments: shown.input });
  await bridge.sendToolResult(shown.result);
  return { page, view: page.frameLocator('iframe'), requests, calls, bridge };
}
