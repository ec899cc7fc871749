"""The annotation web app: Starlette, Jinja2 templates, a Chinese UI, no JavaScript.

Flow: the start page asks for a name or token; ``/pair`` shows the annotator's first unfinished
pair, as stage 1 (which poem is human, confidence) or, once that is saved, as the reveal with
stage 2 (ratings of the generated poem). Every POST saves one answer and redirects back to
``/pair`` (post/redirect/get), so reloading never resubmits and stopping at any point loses
nothing. The sequence lives in the database, so a returning name resumes where it stopped.

Security: model text is untrusted. Templates autoescape it (a ``<script>`` in a poem is shown as
text) and the Content-Security-Policy allows no script at all. Every form carries a per-session
CSRF token (kept in the signed, HttpOnly, SameSite=Strict session cookie) that is compared with
the hidden form field, and every POST must come from the app's own origin (Origin, else Referer).
The Host header must name the server (Starlette's ``TrustedHostMiddleware``): a page that rebinds
its own DNS name to 127.0.0.1 sends its own name as Host and as Origin, which the origin check
alone would take for the app's.
"""

from __future__ import annotations

import hmac
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from poetone.human_eval.db import Database, StudyError

HERE = Path(__file__).resolve().parent
SESSION_COOKIE = "poetone_human_eval"
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; font-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}
CONFIDENCE = ((1, "纯属猜测"), (2, "不太确定"), (3, "一般"), (4, "比较确定"), (5, "非常确定"))
SCALE = ((1, "很差"), (2, "较差"), (3, "一般"), (4, "较好"), (5, "很好"))
#: Host names every server answers to, whatever address it is bound to.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
SIDE_LABEL = {"left": "甲", "right": "乙"}
FIELD_LABEL = {"confidence": "把握程度", "faithfulness": "主题契合度", "artistry": "艺术性", "overall": "整体质量"}
RATING_QUESTIONS = (
    ("faithfulness", "主题契合度", "是否切合词牌与主题"),
    ("artistry", "艺术性", "意象、语言与意境"),
    ("overall", "整体质量", "作为一首宋词的总体水平"),
)


_SENTENCE = re.compile(r"[^。？！；?!;]*[。？！；?!;]|[^。？！；?!;]+$")


def verse_layout(text: str) -> list[list[str]]:
    """The poem as stanzas of sentences, one sentence a line: how a ci is read, and the same
    layout for both poems of a pair so that layout never gives the author away."""
    stanzas = [stanza.strip() for stanza in text.split("\n") if stanza.strip()]
    return [[s for s in _SENTENCE.findall(stanza) if s.strip()] for stanza in stanzas]


class SecurityHeaders:
    """Adds the CSP and the other hardening headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name == "cache-control" and scope["path"].startswith("/static/"):
                        continue
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _templates() -> Jinja2Templates:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every template is HTML; model text must never become markup
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["stanzas"] = verse_layout
    return Jinja2Templates(env=env)


def _same_origin(request: Request) -> bool:
    """The POST came from a page of this server: Origin (or, without it, Referer) names our host."""
    own = request.url.netloc.lower()
    origin = request.headers.get("origin")
    if origin is not None:
        return origin != "null" and urlsplit(origin).netloc.lower() == own
    referer = request.headers.get("referer")
    return bool(referer) and urlsplit(referer).netloc.lower() == own


def trusted_hosts(bound: str | None = None, extra: Iterable[str] = ()) -> list[str]:
    """The Host names the app answers: the loopback names, the address it is bound to and the
    names given (``--allowed-host``), without ports, IPv6 literals in brackets as in a Host header."""
    hosts = list(LOOPBACK_HOSTS)
    for host in [bound or "", *extra]:
        host = host.strip().lower()
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        if host and host not in hosts:
            hosts.append(host)
    return hosts


def create_app(
    db: Database | str | Path, *, https_only: bool = False, allowed_hosts: Iterable[str] = LOOPBACK_HOSTS
) -> Starlette:
    """The app serving one study database (set up with ``Database.setup`` beforehand), answering
    only requests whose Host is one of ``allowed_hosts`` (400 otherwise; see ``trusted_hosts``)."""
    database = db if isinstance(db, Database) else Database(db, create=False)
    templates = _templates()

    def csrf_token(request: Request) -> str:
        token = request.session.get("csrf")
        if not isinstance(token, str):
            token = secrets.token_urlsafe(32)
            request.session["csrf"] = token
        return token

    def render(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context.setdefault("annotator", request.session.get("annotator"))
        context.setdefault("index", 0)
        context.setdefault("total", 0)
        context.setdefault("done", 0)
        return templates.TemplateResponse(request, name, {"csrf": csrf_token(request), **context}, status_code=status)

    async def checked_form(request: Request) -> FormData:
        """The form of a POST, after the origin and CSRF checks (403 if either fails)."""
        if not _same_origin(request):
            raise HTTPException(403, "跨站请求被拒绝：请求不是来自本站页面。")
        form = await request.form(max_files=0, max_fields=20)
        sent, expected = form.get("csrf"), request.session.get("csrf")
        if not isinstance(sent, str) or not isinstance(expected, str) or not hmac.compare_digest(sent, expected):
            raise HTTPException(403, "表单已失效或缺少校验码（CSRF）：请返回首页重试。")
        return form

    def who(request: Request) -> str | None:
        name = request.session.get("annotator")
        return name if isinstance(name, str) else None

    async def home(request: Request) -> Response:
        if who(request):
            return RedirectResponse("/pair", status_code=303)
        message = "答案均已保存。下次输入同一名字即可从中断处继续。" if request.query_params.get("paused") else None
        return render(request, "start.html", message=message, error=None)

    async def start(request: Request) -> Response:
        form = await checked_form(request)
        try:
            name = await run_in_threadpool(database.start, str(form.get("annotator") or ""))
        except StudyError as exc:
            return render(request, "start.html", status=400, message=None, error=f"无法开始：{exc}")
        request.session["annotator"] = name
        return RedirectResponse("/pair", status_code=303)

    async def show_pair(request: Request, error: str | None = None, status: int = 200) -> Response:
        name = who(request)
        if not name:
            return RedirectResponse("/", status_code=303)
        step, done, total = await run_in_threadpool(database.current, name)
        if total == 0:  # a session from another study file: start again
            request.session.pop("annotator", None)
            return RedirectResponse("/", status_code=303)
        if step is None:
            return render(request, "done.html", status=status, index=total, total=total, done=done, error=error)
        pair = await run_in_threadpool(database.pair, step.pair_id)
        human_left = step.human_side == "left"
        context = {
            "pair": pair,
            "step": step,
            "index": step.position + 1,
            "total": total,
            "done": done,
            "left": pair.canonical if human_left else pair.generated,
            "right": pair.generated if human_left else pair.canonical,
            "error": error,
        }
        if step.chosen_side is None:
            return render(request, "stage1.html", status=status, confidence_labels=CONFIDENCE, **context)
        return render(
            request,
            "stage2.html",
            status=status,
            scale=SCALE,
            questions=RATING_QUESTIONS,
            human_label=SIDE_LABEL[step.human_side],
            chosen_label=SIDE_LABEL[step.chosen_side],
            **context,
        )

    async def pair_page(request: Request) -> Response:
        return await show_pair(request)

    def score(form: FormData, field: str) -> int:
        raw = form.get(field)
        if not isinstance(raw, str) or raw not in {"1", "2", "3", "4", "5"}:
            raise StudyError(f"请为“{FIELD_LABEL[field]}”选择 1 到 5 之间的一项")
        return int(raw)

    async def answer(request: Request, stage: int) -> Response:
        form = await checked_form(request)
        name = who(request)
        if not name:
            return RedirectResponse("/", status_code=303)
        pair_id = str(form.get("pair_id") or "")
        try:
            if stage == 1:
                choice = form.get("choice")
                if choice not in SIDE_LABEL:
                    raise StudyError("请选择哪一首出自人类之手（甲或乙）")
                await run_in_threadpool(database.save_stage1, name, pair_id, str(choice), score(form, "confidence"))
            else:
                ratings = [score(form, field) for field, _, _ in RATING_QUESTIONS]
                await run_in_threadpool(database.save_stage2, name, pair_id, *ratings)
        except StudyError as exc:
            return await show_pair(request, error=str(exc), status=400)
        return RedirectResponse("/pair", status_code=303)

    async def stage1(request: Request) -> Response:
        return await answer(request, 1)

    async def stage2(request: Request) -> Response:
        return await answer(request, 2)

    async def stop(request: Request) -> Response:
        await checked_form(request)
        request.session.clear()
        return RedirectResponse("/?paused=1", status_code=303)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            detail = "页面不存在。"
        elif exc.status_code == 405:
            detail = "不支持此请求方法。"
        else:
            detail = str(exc.detail)
        return render(request, "error.html", status=exc.status_code, detail=detail)

    routes = [
        Route("/", home, methods=["GET"]),
        Route("/start", start, methods=["POST"]),
        Route("/pair", pair_page, methods=["GET"]),
        Route("/stage1", stage1, methods=["POST"]),
        Route("/stage2", stage2, methods=["POST"]),
        Route("/stop", stop, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=trusted_hosts(extra=allowed_hosts), www_redirect=False),
        Middleware(
            SessionMiddleware,
            secret_key=database.secret(),
            session_cookie=SESSION_COOKIE,
            same_site="strict",
            https_only=https_only,
            max_age=30 * 24 * 3600,
        ),
    ]
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: http_error})
    app.state.db = database
    return app


@contextmanager
def serve_in_thread(app: ASGIApp, host: str = "127.0.0.1", port: int = 0, timeout: float = 15.0) -> Iterator[str]:
    """Run ``app`` with uvicorn in a background thread and yield its base URL; used by the tests
    and the screenshot script. The socket is bound here (port 0: any free port) so the URL is
    known before the server starts and no other process can take the port in between."""
    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="human-eval-server")
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError(f"the human-eval server did not start on {host}:{bound}")
        time.sleep(0.02)
    shown = f"[{host}]" if ":" in host else host
    try:
        yield f"http://{shown}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()
