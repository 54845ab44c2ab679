"""The official Python SDK client's OAuth (`mcp.client.auth.OAuthClientProvider`), end to end.

    python oauth_client.py https://127.0.0.1:PORT/mcp

The server answers 401; the SDK discovers the protected-resource metadata (RFC 9728), the
authorization server's metadata (RFC 8414), registers itself (RFC 7591), sends the user to
the authorization endpoint with a PKCE challenge (RFC 7636, S256) and a state, exchanges the
code at the token endpoint, and retries with `Authorization: Bearer` (MCP 2025-11-25,
basic/authorization). Nobody is at a browser here: the redirect handler requests the
authorization URL itself, with the same proxy and trust settings as the SDK (httpx2 reads
HTTPS_PROXY and SSL_CERT_FILE), and hands the redirect's code and state to the callback
handler. `mcp-raw auth-server` approves without asking, so that one request is the whole
"login". Then the checks: tools/list, add 2+40 = 42; and again in the handshake era with
the same token.

Exits 0 when every check passes; otherwise prints the failure and exits 1.
"""

import asyncio
import sys
import urllib.parse

import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

# Never visited: a loopback redirect URI (RFC 8252 §7.3) the redirect handler reads off
# the authorization server's 302 instead of running a listener for it.
REDIRECT_URI = "http://127.0.0.1:9/callback"
TIMEOUT_S = 10.0


class MemoryStorage:
    """TokenStorage: this run's registration and tokens, in memory only."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class Browser:
    """The user's side of the authorization-code grant: follow the authorization URL and
    catch the redirect back to REDIRECT_URI (RFC 6749 §4.1.2)."""

    def __init__(self) -> None:
        self.result: AuthorizationCodeResult | None = None

    async def redirect(self, authorization_url: str) -> None:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorization_url).query))
        # OAuth 2.1 §4.1.1: PKCE with S256; the state ties the redirect to this request
        # (RFC 6749 §10.12, cross-site request forgery).
        for key, want in [("response_type", "code"), ("code_challenge_method", "S256")]:
            if query.get(key) != want:
                raise RuntimeError(f"authorization URL has {key}={query.get(key)!r}, want {want!r}")
        if not query.get("code_challenge") or not query.get("state"):
            raise RuntimeError(f"authorization URL lacks code_challenge or state: {authorization_url}")
        print(f"authorize: {urllib.parse.urlsplit(authorization_url)._replace(query='').geturl()}"
              f" (client_id {query.get('client_id')}, scope {query.get('scope')!r}, resource {query.get('resource')!r})")
        # A client of its own (trust_env: HTTPS_PROXY and SSL_CERT_FILE, as the SDK's), the
        # redirect not followed: its Location is the answer.
        async with httpx2.AsyncClient(timeout=TIMEOUT_S, follow_redirects=False) as http:
            response = await http.get(authorization_url)
        location = response.headers.get("location", "")
        if response.status_code not in (302, 303) or not location.startswith(REDIRECT_URI + "?"):
            raise RuntimeError(f"authorize answered {response.status_code}, Location {location!r}: {response.text!r}")
        back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        if "error" in back or "code" not in back:
            raise RuntimeError(f"authorization refused: {back}")
        print(f"redirected back with a code and state{' and iss' if 'iss' in back else ''} ({response.status_code})")
        self.result = AuthorizationCodeResult(code=back["code"], state=back.get("state"), iss=back.get("iss"))

    async def callback(self) -> AuthorizationCodeResult:
        if self.result is None:
            raise RuntimeError("no redirect came back")
        return self.result


async def run(url: str) -> None:
    browser = Browser()
    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="mcp-raw interop (Python SDK)",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )
    # Twice, as client.py does: "auto" (2026-07-28 if the server offers it, as mcp-raw
    # does) walks the flow; "legacy" (the initialize handshake, a session, its DELETE)
    # reuses the token the provider holds, so both eras carry the same bearer.
    for mode in ("auto", "legacy"):
        async with httpx2.AsyncClient(auth=provider, timeout=TIMEOUT_S) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode, read_timeout_seconds=TIMEOUT_S) as client:
                print(f"-- mode {mode}: connected to {client.server_info.name if client.server_info else '?'},"
                      f" protocol {client.protocol_version}")
                if storage.client_info is None or storage.tokens is None:
                    raise RuntimeError("connected without registering or without a token")
                print(f"registered as {storage.client_info.client_id}; token type {storage.tokens.token_type},"
                      f" scope {storage.tokens.scope!r}")
                names = sorted(t.name for t in (await client.list_tools()).tools)
                if names != ["add", "echo", "get_current_time"]:
                    raise RuntimeError(f"tools/list names: {names}")
                print(f"tools/list: {', '.join(names)}")
                total = await client.call_tool("add", {"a": 2, "b": 40})
                text = [c.text for c in total.content if c.type == "text"]
                if total.is_error or text != ["42"]:
                    raise RuntimeError(f"add 2+40: {total!r}")
                print("add 2+40: 42")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: oauth_client.py URL", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(sys.argv[1]))
    except Exception as e:
        # An SDK error may arrive wrapped in an ExceptionGroup by anyio's task groups.
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        print(f"py-oauth: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print("py-oauth: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
