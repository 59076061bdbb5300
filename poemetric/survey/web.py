"""`poemetric survey serve`: the survey as a small Starlette app (run by uvicorn).

Raters open a private link /r/TOKEN: one page per poem with the generation prompt, the poem and
the Appendix C questions; each answer is saved as it is given (POST .../save, JavaScript) and
the whole page again on "Save and next" (works without JavaScript); the form is
autocomplete=off, so Back / Forward shows the answers saved last, not the browser's copy of an
earlier visit that "Save and next" would store over later ones. Every answer sent carries the
time it was last edited in the browser, and one older than the stored answer is not stored (a
tab drawn before the answer changed in another; saves arriving out of order), nor one imported
(`survey import`, `ghostwriting import-lines`) after the page was drawn: `edits.py`.
/admin/TOKEN shows progress and the agreement so far. Safety: unguessable links (tokens.py), a
CSRF token and an Origin check on every POST, server-side validation of every field against the
task's questions (posted.py), a body size limit (guard.py), Jinja autoescaping, a strict
Content-Security-Policy, no-referrer (the token is in the URL), and answers written in one SQLite
transaction per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import IntegerConvertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from poemetric.reliability import STATISTICS, AgreementReport
from poemetric.store import RunStore
from poemetric.survey import db, edits, tasks, tokens
from poemetric.survey.agreement import current_agreement, raters_counted
from poemetric.survey.guard import MAX_BODY_BYTES, Guard
from poemetric.survey.oversize import CUT_SCOPE_KEY, cut_message, too_large_page
from poemetric.survey.posted import parse_answer, parse_edit_time, read_form
from poemetric.survey.render import STATIC, render
from poemetric.survey.slashes import relative_slash_redirects
from poemetric.survey.tasks import MAX_TEXT_CHARS, Page, TextTooLong
from poemetric.survey.tokens import Rater

#: Prefix of the form's fields holding each answer's edit time (`edits.py`).
EDITED = "edited:"
#: The form's field holding the newest import the page shows (`edits.seen`).
SEEN = "imported"
SAVE_FIELDS = {"csrf", "field", "value", "edited", SEEN}
STALE = "not saved: a newer answer (from another window, or imported) is kept; reload the page to see it"
STATIC_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
ADMIN_LABELS = {
    "pao": "PAo", "adjacent": "adjacent", "alpha_nominal": "α nominal",
    "alpha_ordinal": "α ordinal", "alpha_interval": "α interval", "gwet_ac1": "AC1",
    "gwet_ac2_linear": "AC2 lin.", "gwet_ac2_quadratic": "AC2 quad.", "qwk": "QWK",
    "spearman": "Spearman", "kendall": "Kendall",
}  # fmt: skip


@dataclass(frozen=True)
class Drawn:
    """A rater's answers on one poem as a page shows them, with what its form sends back:
    their edit times and the newest import shown (`edits.py`)."""

    seen: str
    stored: dict[str, db.Answer]
    edited: dict[str, int]


def root(request: Request) -> str:
    """The site's root relative to the page requested ("../../" from /r/TOKEN/1): every link,
    form and static file the pages name is relative, so the survey also works behind a reverse
    proxy that serves it under a path prefix (https://example.org/survey/r/TOKEN)."""
    return "../" * (request.url.path.count("/") - 1) or "./"


class SurveyApp:
    """Routes of one survey of one run; opens the run store per request."""

    def __init__(self, run_dir: Path, survey_id: str) -> None:
        self.run_dir, self.survey_id = Path(run_dir), survey_id
        with self._store() as store:
            self.survey = db.load_survey(store, survey_id)
            ids = db.raters(store, survey_id)
        self.links = tokens.ServedLinks(self.run_dir, survey_id, ids)
        self.instrument = self.survey.task.instrument

    def _store(self) -> RunStore:
        return RunStore(self.run_dir, create=False)

    # -- helpers ------------------------------------------------------------------------------
    def _page(
        self, request: Request, template: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        html = render(template, instrument=self.instrument, root=root(request), **context)
        return HTMLResponse(html, status_code=status)

    def _not_found(self, request: Request) -> HTMLResponse:
        return self._page(
            request,
            "message.html",
            404,
            heading="Link not found",
            message="This link is not valid. Please open the private link you were sent.",
        )

    def _rater(self, request: Request) -> Rater | None:
        return self.links.rater(str(request.path_params.get("token", "")))

    def _context(self, store: RunStore, rater: Rater, request: Request) -> dict[str, Any]:
        pages = db.pages(store, self.survey_id, rater.rater)
        done = db.completed_positions(store, self.survey_id, rater.rater)
        return {
            "pages": pages,
            "page_list": [{"position": p.position, "done": p.position in done} for p in pages],
            "completed": len(done),
            "total": len(pages),
            "base": f"{root(request)}r/{rater.token}",
            "next_position": next((p.position for p in pages if p.position not in done), None),
            "current_position": None,
        }

    # -- rater pages ----------------------------------------------------------------------------
    async def welcome(self, request: Request) -> Response:
        return self._overview(request, "welcome.html")

    async def done(self, request: Request) -> Response:
        return self._overview(request, "done.html")

    def _overview(self, request: Request, template: str) -> HTMLResponse:
        """A page about the rater's whole survey (start / thank-you), with their progress."""
        rater = self._rater(request)
        if rater is None:
            return self._not_found(request)
        with self._store() as store:
            context = self._context(store, rater, request)
        return self._page(request, template, **context)

    def _find(self, context: dict[str, Any], request: Request) -> Page | None:
        position = request.path_params["position"]
        return next((p for p in context["pages"] if p.position == position), None)

    async def page(self, request: Request) -> Response:
        rater = self._rater(request)
        if rater is None:
            return self._not_found(request)
        with self._store() as store:
            context = self._context(store, rater, request)
            page = self._find(context, request)
            if page is None:
                return self._not_found(request)
            if request.method == "POST":
                return await self._submit(request, store, rater, page, context)
            drawn = self._drawn(store, rater, page)
        return self._show(request, rater, page, context, drawn, {})

    def _drawn(self, store: RunStore, rater: Rater, page: Page) -> Drawn:
        """What a page of this poem drawn now shows, read at one moment of the store: a save
        between the reads of the answers and of their edit times drew the older answer with the
        newer one's time, and the page sent back unchanged stored it over the newer answer."""
        with store.snapshot():
            seen = db.imports_seen(store, self.survey, rater.rater, page.generation_id)
            stored = db.answers(store, self.survey, rater.rater).get(page.generation_id, {})
            edited = db.edit_times(store, self.survey_id, rater.rater, page.generation_id)
        return Drawn(seen, stored, edited)

    def _show(
        self,
        request: Request,
        rater: Rater,
        page: Page,
        context: dict[str, Any],
        drawn: Drawn,
        errors: dict[str, str],
        status: int = 200,
        typed: dict[str, str] | None = None,
    ) -> HTMLResponse:
        """The page of a poem; `typed`: comments refused (too long) shown as typed instead."""
        scores = {k: s for k, (s, _) in drawn.stored.items() if s is not None}
        texts = {k: t for k, (_, t) in drawn.stored.items() if t is not None} | (typed or {})
        questions = self.survey.task.questions(page)
        kept = {k: note for k, note in tasks.stored_over_limit(questions, drawn.stored).items()
                if k not in (typed or {}) and k not in errors}  # fmt: skip
        return self._page(
            request,
            "page.html",
            status,
            **{**context, "current_position": page.position},
            page=page,
            task=self.survey.task,
            questions=questions,
            scores=scores,
            texts=texts,
            edited=drawn.edited,
            seen=drawn.seen,
            errors=errors,
            csrf=rater.csrf,
            max_text=MAX_TEXT_CHARS,
            max_body=MAX_BODY_BYTES,
            typed=typed or {},
            stored_long=kept,
        )

    async def _submit(
        self, request: Request, store: RunStore, rater: Rater, page: Page, context: dict[str, Any]
    ) -> Response:
        questions = {q.key: q for q in self.survey.task.questions(page)}
        # A page of a long poem (line task) has two questions per line, each with its edit time.
        form = await read_form(request, rater.csrf, max_fields=max(64, 2 * len(questions) + 3))
        if isinstance(form, Response):
            return form
        values: dict[str, db.Answer] = {}
        edited: dict[str, int | None] = {}
        too_long: dict[str, tuple[str, str]] = {}  # question -> (the text typed, why refused)
        stored = db.answers(store, self.survey, rater.rater).get(page.generation_id, {})
        try:
            seen = edits.parse_seen(str(form.get(SEEN, "")))
            for key, raw in form.multi_items():
                if key in ("csrf", "action", SEEN):
                    continue
                if key.startswith(EDITED):
                    key = key.removeprefix(EDITED)
                    edited[key] = parse_edit_time(questions, key, str(raw))
                    continue
                try:
                    values[key] = parse_answer(questions, key, str(raw))
                except TextTooLong as exc:  # kept on the page drawn again, with its error
                    if tasks.unchanged(stored.get(key, (None, None))[1], str(raw)):
                        continue  # stored over the limit before there was one: kept as it is
                    text = str(raw).replace("\r\n", "\n")
                    sent = request.scope.get(CUT_SCOPE_KEY, {}).get(key)
                    too_long[key] = (
                        text,
                        str(exc) if sent is None else cut_message(questions[key].label, text, sent),
                    )
        except ValueError as exc:  # an AnswerError, or the import time
            return self._page(
                request, "message.html", 400, heading="Answer refused", message=str(exc)
            )
        required = [k for k, q in questions.items() if q.required]
        complete, _ = db.save_edits(
            store, self.survey, rater.rater, page, values, edited, required=required, seen=seen
        )
        base = context["base"]
        if form.get("action") == "previous" and not too_long:
            return RedirectResponse(f"{base}/{max(page.position - 1, 1)}", status_code=303)
        if not complete or too_long:
            # A comment too long was not stored: the page comes back with it as typed (going on
            # lost it), its error beside it, the other answers saved.
            drawn = self._drawn(store, rater, page)
            errors = {
                k: questions[k].missing
                for k in required
                if drawn.stored.get(k, (None, None))[0] is None
            } | {k: message for k, (_, message) in too_long.items()}
            typed = {k: text for k, (text, _) in too_long.items()}
            context = self._context(store, rater, request)
            return self._show(request, rater, page, context, drawn, errors, 422, typed)
        done = db.completed_positions(store, self.survey_id, rater.rater)
        later = [p.position for p in context["pages"] if p.position not in done]
        # "Save and finish" on the last page goes to the thank-you page, which lists the poems
        # not finished yet: it opened the first of them with no word of why.
        last = page.position == context["total"]
        following = [p for p in later if p > page.position] or ([] if last else later)
        target = f"{base}/{following[0]}" if following else f"{base}/done"
        return RedirectResponse(target, status_code=303)

    async def save(self, request: Request) -> Response:
        """Save one answer (the page's JavaScript calls this on every change)."""
        rater = self._rater(request)
        if rater is None:
            return JSONResponse({"error": "not found"}, status_code=404)
        with self._store() as store:
            context = self._context(store, rater, request)
            page = self._find(context, request)
            if page is None:
                return JSONResponse({"error": "not found"}, status_code=404)
            if request.scope.get(CUT_SCOPE_KEY):  # the page's script sends no such value
                return JSONResponse({"error": "request too large"}, status_code=413)
            form = await read_form(request, rater.csrf)
            if isinstance(form, Response):
                return form
            if not {"csrf", "field", "value"} <= set(form.keys()) <= SAVE_FIELDS:
                return JSONResponse(
                    {"error": "send csrf, field, value and optionally edited, imported"}, 400
                )
            questions = {q.key: q for q in self.survey.task.questions(page)}
            key = str(form["field"])
            try:
                value = parse_answer(questions, key, str(form["value"]))
                edited = parse_edit_time(questions, key, str(form.get("edited", "")))
                seen = edits.parse_seen(str(form.get(SEEN, "")))
            except ValueError as exc:  # an AnswerError, or the import time
                return JSONResponse({"error": str(exc)}, status_code=400)
            required = [k for k, q in questions.items() if q.required]
            complete, refused = db.save_edits(
                store, self.survey, rater.rater, page, {key: value}, {key: edited},
                required=required, seen=seen,
            )  # fmt: skip
            completed = len(db.completed_positions(store, self.survey_id, rater.rater))
        if refused:
            return JSONResponse({"error": STALE, "stale": key}, status_code=409)
        return JSONResponse(
            {"saved": key, "page_complete": complete, "completed": completed,
             "total": context["total"]}
        )  # fmt: skip

    # -- admin and static -----------------------------------------------------------------------
    async def admin_page(self, request: Request) -> Response:
        if not self.links.is_admin(str(request.path_params.get("token", ""))):
            return self._not_found(request)
        progress, agreement = await run_in_threadpool(self._admin_figures)
        rows = (
            [] if agreement is None else [*agreement.items.items(), ("overall", agreement.overall)]
        )
        return self._page(
            request,
            "admin.html",
            survey_id=self.survey_id,
            progress=progress,
            task=self.survey.task,
            agreement=agreement,
            agreement_rows=rows,
            raters_note=raters_counted(progress) if self.survey.task.attention_checks else "",
            statistics=STATISTICS,
            labels=ADMIN_LABELS,
        )

    def _admin_figures(self) -> tuple[list[db.RaterProgress], AgreementReport | None]:
        """The admin page's progress and agreement: in a worker thread, as the bootstrap takes
        a second or more for a large survey and raters' requests must not wait for it."""
        with self._store() as store:
            return db.progress(store, self.survey_id), current_agreement(store, self.survey)

    async def static(self, request: Request) -> Response:
        name = str(request.path_params["name"])
        path = STATIC / name
        if name not in {p.name for p in STATIC.iterdir()} or path.suffix not in STATIC_TYPES:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(path.read_bytes(), media_type=STATIC_TYPES[path.suffix])

    async def home(self, request: Request) -> Response:
        return self._not_found(request)


class PositionConvertor(IntegerConvertor):
    """A poem's number in an address: at most 9 digits. Starlette's `int` took any number of
    them, and one past Python's limit on integer strings (4,300 digits) raised in the router: a
    500 and a traceback in the server's log, where an address that is no poem is a 404."""

    regex = "[0-9]{1,9}"


register_url_convertor("position", PositionConvertor())


def create_app(run_dir: str | Path, survey_id: str, *, max_body: int = MAX_BODY_BYTES) -> Any:
    """The ASGI app serving one survey of one run."""
    survey = SurveyApp(Path(run_dir), survey_id)
    routes = [
        Route("/", survey.home),
        Route("/static/{name}", survey.static),
        Route("/admin/{token}", survey.admin_page),
        Route("/r/{token}", survey.welcome),
        Route("/r/{token}/done", survey.done),
        Route("/r/{token}/{position:position}", survey.page, methods=["GET", "POST"]),
        Route("/r/{token}/{position:position}/save", survey.save, methods=["POST"]),
    ]
    return Guard(
        relative_slash_redirects(Starlette(routes=routes)),
        max_body=max_body,
        too_large=partial(too_large_page, survey.instrument),
    )
