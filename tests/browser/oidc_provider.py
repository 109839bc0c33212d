"""A minimal OpenID Connect provider on 127.0.0.1 for the console's `st.login` tests.

It speaks the authorization-code flow as a real identity provider does, with nothing
faked on the client's side: discovery document, an authorize page where the person types
their e-mail (as an organisation's sign-in page asks for it), a token endpoint that checks
the client's secret and the code, and an RS256-signed ID token carrying the request's nonce,
verified by Streamlit's Authlib client against the provider's JWKS.
"""

from __future__ import annotations

import base64
import html
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

from joserfc import jwt
from joserfc.jwk import RSAKey


class Provider:
    def __init__(self, client_id: str, client_secret: str) -> None:
        self.client_id, self.client_secret = client_id, client_secret
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.codes: dict[str, dict] = {}  # code -> {email, nonce, redirect_uri}
        self.tokens_issued = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Provider:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def metadata_url(self) -> str:
        return self.url + "/.well-known/openid-configuration"

    def metadata(self) -> dict:
        return {"issuer": self.url, "authorization_endpoint": self.url + "/authorize",
                "token_endpoint": self.url + "/token", "jwks_uri": self.url + "/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                "scopes_supported": ["openid", "email", "profile"]}

    def id_token(self, email: str, nonce: str | None) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "sub": email, "aud": self.client_id, "iat": now, "exp": now + 600,
                  "email": email, "email_verified": True, "name": email.split("@")[0]}
        if nonce:
            claims["nonce"] = nonce
        return jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _send(self, code: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, code: int, obj: dict) -> None:
                self._send(code, json.dumps(obj).encode(), "application/json")

            def do_GET(self) -> None:
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/.well-known/openid-configuration":
                    return self._json(200, provider.metadata())
                if url.path == "/jwks":
                    return self._json(200, {"keys": [provider.key.as_dict(private=False)]})
                if url.path == "/authorize":
                    if query.get("client_id") != provider.client_id or query.get("response_type") != "code":
                        return self._send(400, b"unknown client", "text/plain")
                    hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                                     for k, v in query.items())
                    page = ("<html><body><h1>Example organisation</h1><form method='get' action='/approve'>"
                            f"{hidden}<label>E-mail <input name='email' aria-label='E-mail'></label>"
                            "<button type='submit'>Continue</button></form></body></html>")
                    return self._send(200, page.encode(), "text/html")
                if url.path == "/approve":
                    code = secrets.token_urlsafe(16)
                    provider.codes[code] = {"email": query.get("email", ""), "nonce": query.get("nonce"),
                                            "redirect_uri": query.get("redirect_uri")}
                    target = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
                    return self._send(302, b"", "text/plain", {"Location": target})
                return self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:
                if urlparse(self.path).path != "/token":
                    return self._send(404, b"not found", "text/plain")
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0)))
                                                     .decode()).items()}
                client_id, secret = form.get("client_id"), form.get("client_secret")
                auth = self.headers.get("Authorization", "")
                if auth.startswith("Basic "):
                    client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
                if client_id != provider.client_id or secret != provider.client_secret:
                    return self._json(401, {"error": "invalid_client"})
                grant = provider.codes.pop(form.get("code", ""), None)
                if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
                    return self._json(400, {"error": "invalid_grant"})
                provider.tokens_issued += 1
                return self._json(200, {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer",
                                        "expires_in": 600, "id_token": provider.id_token(grant["email"], grant["nonce"])})

        return Handler
