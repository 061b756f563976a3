/** Pure parts of the Microsoft adapter: configuration defaults and HTML bodies as text. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { microsoftConfig } from '../../src/providers/microsoft/config.ts';
import { htmlToText } from '../../src/providers/microsoft/htmlText.ts';

test('configuration defaults to the real endpoints of the common tenant', () => {
  const settings = { clientId: 'id', clientSecret: 'secret', redirectUri: 'https://cal.example/callback' };
  assert.deepEqual(microsoftConfig(settings), {
    ...settings,
    tenant: 'common',
    authorizationUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    apiBaseUrl: 'https://graph.microsoft.com/v1.0',
  });
  const organization = microsoftConfig({
    ...settings,
    tenant: 'contoso.onmicrosoft.com',
    apiBaseUrl: 'http://x/v1.0/',
  });
  assert.equal(
    organization.tokenUrl,
    'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
  );
  assert.equal(organization.apiBaseUrl, 'http://x/v1.0');
});

test('HTML bodies become readable text: blocks, breaks, list items, cells, entities', () => {
  assert.equal(
    htmlToText(
      '<html><head><title>x</title><style>td{}</style></head><body>' +
        '<div class="elementToProof">Hello&nbsp;&nbsp;team,</div><div><br></div>' +
        '<table><tr><td>When</td><td>Tue &amp; Wed</td></tr><tr><th>Cost</th><td>&#x20AC;5 &lt;each&gt;</td></tr></table>' +
        '<script>alert(1)</script><a href="https://x.example">Join</a> &unknown; &#0;</body></html>',
    ),
    'Hello team,\n\nWhen Tue & Wed\nCost €5 <each>\nJoin &unknown; &#0;',
  );
  // Outlook writes one <div> per line: lines, not paragraphs.
  assert.equal(
    htmlToText('<div>one</div><div>two</div><div><br></div><div>three</div>'),
    'one\ntwo\n\nthree',
  );
  assert.equal(
    htmlToText('<html>\r\n<body>\r\n<div>Hello\r\nteam</div>\r\n</body>\r\n</html>\r\n'),
    'Hello team',
  );
  assert.equal(htmlToText(''), '');
});
