// A HAR made by a browser: headless Chromium (the system's, driven by Playwright's
// recordHar) opens a page on the server's origin and calls the MCP endpoint with
// fetch — initialize, notifications/initialized, tools/call echo — then closes,
// which writes the HAR. Usage: node chromium_har.js CHROMIUM URL OUT.har
const { chromium } = require('playwright-core');
const [exe, url, out] = process.argv.slice(2);
(async () => {
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox'] });
  const context = await browser.newContext({ recordHar: { path: out, content: 'embed' } });
  const page = await context.newPage();
  const origin = new URL(url).origin;
  await page.goto(origin + '/', { waitUntil: 'load' }).catch(() => {});
  const said = await page.evaluate(async (url) => {
    const post = async (body, session) => {
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      if (session) { headers['Mcp-Session-Id'] = session; headers['MCP-Protocol-Version'] = '2025-11-25'; }
      const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: r.status, session: r.headers.get('mcp-session-id'), text: await r.text() };
    };
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'chromium', version: '1' } } });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
    const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'from chromium' } } }, init.session);
    return [init.status, call.status, call.text];
  }, url);
  console.log(JSON.stringify(said));
  await context.close();
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
