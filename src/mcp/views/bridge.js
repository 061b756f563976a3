/**
 * The view's side of MCP Apps (io.modelcontextprotocol/ui, 2026-01-26): JSON-RPC 2.0 over
 * postMessage with the host's window, no SDK needed. The view asks `ui/initialize`, says
 * `ui/notifications/initialized`, then is given the tool's arguments and result; it may ask the
 * host to call a tool (`tools/call`), which the host may put to the person first. Messages from
 * any window but the host's are ignored. The view's files are one script in the page (viewPage.ts),
 * so what one declares the next uses.
 */
function startView(name, render) {
  const host = window.parent;
  const pending = new Map();
  let nextId = 1;
  const state = { input: undefined, hostCapabilities: {}, locale: navigator.language };
  const post = (message) => host.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });

  /** The host's theme and style variables (only custom properties are taken), and its locale. */
  const applyContext = (context) => {
    if (context.theme === 'light' || context.theme === 'dark')
      document.documentElement.style.colorScheme = context.theme;
    for (const [key, value] of Object.entries(context.styles?.variables ?? {}))
      if (key.startsWith('--') && typeof value === 'string')
        document.documentElement.style.setProperty(key, value);
    if (typeof context.locale === 'string') state.locale = context.locale;
  };

  const view = {
    input: () => state.input,
    locale: () => state.locale,
    /** Whether the host passes tools/call on to this server. */
    canCallTools: () => state.hostCapabilities.serverTools !== undefined,
    callTool: (toolName, args) => request('tools/call', { name: toolName, arguments: args }),
  };

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (event.source !== host || message?.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result);
      return;
    }
    switch (message.method) {
      case 'ui/notifications/tool-input':
        state.input = message.params?.arguments;
        break;
      case 'ui/notifications/tool-result':
        render(message.params, view);
        break;
      case 'ui/notifications/tool-cancelled':
        showProblem('The request was cancelled.');
        break;
      case 'ui/notifications/host-context-changed':
        applyContext(message.params ?? {});
        break;
      case 'ui/resource-teardown':
      case 'ping':
        post({ id: message.id, result: {} });
        break;
      default:
        if (message.id !== undefined)
          post({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
    }
  });

  new ResizeObserver(() => {
    const { scrollWidth: width, scrollHeight: height } = document.documentElement;
    post({ method: 'ui/notifications/size-changed', params: { width, height } });
  }).observe(document.documentElement);

  request('ui/initialize', {
    protocolVersion: '2026-01-26',
    appInfo: { name, version: '1.0.0' },
    appCapabilities: { availableDisplayModes: ['inline'] },
  }).then(
    (result) => {
      state.hostCapabilities = result?.hostCapabilities ?? {};
      applyContext(result?.hostContext ?? {});
      post({ method: 'ui/notifications/initialized', params: {} });
    },
    () => showProblem('The host did not start this view.'),
  );
}
