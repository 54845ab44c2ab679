// A real authorization server for mcp-raw's protected-resource tests: panva's
// oidc-provider (an OpenID Certified OAuth 2.0 / OpenID Connect server, npm
// `oidc-provider`), configured here and nothing else. It listens on 127.0.0.1 and prints
// "listening on http://127.0.0.1:PORT" (the issuer) on stderr; given a PEM certificate
// and key, it serves HTTPS and the issuer is https://127.0.0.1:PORT.
//
// What it is set up for (each piece is a feature of oidc-provider, not code of ours):
// - client_credentials (RFC 6749 §4.4) for the test clients below;
// - resource indicators (RFC 8707): a token requested with `resource=R` has `aud` R;
//   its format follows the client: JWT access tokens (RFC 9068, `typ: at+jwt`,
//   ES256-signed with a key generated at start, published at jwks_uri) or opaque ones;
// - token introspection (RFC 7662), for the resource server's own client;
// - dynamic client registration (RFC 7591), for clients that register themselves.
//
//   node interop/ts/oidc_provider.mjs [PORT [CERT KEY]]     (0 or absent: a free port)
import Provider from 'oidc-provider';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync } from 'node:fs';

const port = Number(process.argv[2] ?? 0);
const [certFile, keyFile] = process.argv.slice(3, 5);
const scheme = certFile ? 'https' : 'http';
const secret = 'interop-secret-not-for-production';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signing = { ...privateKey.export({ format: 'jwk' }), kid: 'interop-es256', alg: 'ES256', use: 'sig' };

// client id -> [token format, access token lifetime in seconds]
const formats = {
  'jwt-client': ['jwt', 300],
  'short-client': ['jwt', 1],
  'opaque-client': ['opaque', 300],
};
const testClient = (client_id) => ({
  client_id,
  client_secret: secret,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  token_endpoint_auth_method: 'client_secret_basic',
  id_token_signed_response_alg: 'ES256',
  scope: 'mcp:tools mcp:other',
});

const configuration = {
  clients: [
    ...Object.keys(formats).map(testClient),
    // The resource server: it only introspects.
    {
      client_id: 'resource-server',
      client_secret: secret,
      grant_types: [],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [signing] },
  scopes: ['openid', 'offline_access', 'mcp:tools', 'mcp:other'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resourceIndicator, client) => {
        const [format, ttl] = formats[client.clientId] ?? ['jwt', 300];
        return {
          scope: 'mcp:tools mcp:other',
          audience: resourceIndicator,
          accessTokenTTL: ttl,
          accessTokenFormat: format,
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
};

// The issuer names the port, known once bound: bind first, then hand the requests
// to a provider built for that address.
const server = certFile
  ? createTlsServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) })
  : createServer();
server.listen(port, '127.0.0.1', () => {
  const issuer = `${scheme}://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, configuration);
  provider.on('server_error', (ctx, err) => console.error('server_error', err));
  server.on('request', provider.callback());
  console.error(`oidc-provider listening on ${issuer}`);
});
