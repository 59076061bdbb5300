"""The survey app's answer to an address with a trailing slash (/r/TOKEN/): a redirect to the
address without it, given relative to the page (`../TOKEN`), like every link the pages name.
Starlette's own redirect gives the whole URL as the app sees it, which behind a reverse proxy
serving the survey under a path prefix (https://example.org/survey/r/TOKEN/) has lost the
prefix: the rater was sent out of the survey."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from starlette.applications import Starlette
from starlette.responses import RedirectResponse
from starlette.routing import Match


def relative_slash_redirects(app: Starlette) -> Starlette:
    """`app` with its trailing-slash redirects relative to the address asked for. Only one
    trailing slash is taken away: clients resolve "../" against /r/TOKEN// differently."""
    router = app.router
    router.redirect_slashes = False
    not_found = router.default

    async def default(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        path = str(scope.get("path", ""))
        bare = path.removesuffix("/")
        if scope["type"] == "http" and bare != path and bare and not bare.endswith("/"):
            bare_scope = {**scope, "path": bare}
            if any(route.matches(bare_scope)[0] is not Match.NONE for route in router.routes):
                location = "../" + bare.rsplit("/", 1)[1]  # from /r/TOKEN/, /r/TOKEN
                query = scope.get("query_string", b"").decode("latin-1")
                location += f"?{query}" if query else ""
                await RedirectResponse(location, status_code=307)(scope, receive, send)
                return
        await not_found(scope, receive, send)

    router.default = default
    return app
