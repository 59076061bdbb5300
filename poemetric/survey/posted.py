"""A rater's POSTed form, read and checked before anything in it is stored: the CSRF token,
no field twice, no file; each answer and edit time parsed against the page's questions."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from poemetric.survey import db, edits, tokens
from poemetric.survey.tasks import AnswerError, Question


async def read_form(request: Request, csrf: str, max_fields: int = 64) -> FormData | Response:
    """The form posted, or the response refusing it (malformed, CSRF, duplicate, file)."""
    try:
        form = await request.form(max_files=0, max_fields=max_fields)
    except Exception:  # malformed body (the parser's own errors vary by content type)
        return JSONResponse({"error": "malformed form data"}, status_code=400)
    if not tokens.same(str(form.get("csrf", "")), csrf):
        return JSONResponse({"error": "invalid or missing CSRF token"}, status_code=403)
    keys = [key for key, _ in form.multi_items()]
    if len(keys) != len(set(keys)):
        return JSONResponse({"error": "a field was sent twice"}, status_code=400)
    if any(not isinstance(value, str) for _, value in form.multi_items()):
        return JSONResponse({"error": "files are not accepted"}, status_code=400)
    return form


def parse_answer(questions: dict[str, Question], key: str, raw: str) -> db.Answer:
    if key not in questions:
        raise AnswerError(f"unknown question {key[:40]!r}")
    return questions[key].parse(raw)


def parse_edit_time(questions: dict[str, Question], key: str, raw: str) -> int | None:
    if key not in questions:
        raise AnswerError(f"unknown question {key[:40]!r}")
    try:
        return edits.parse_time(raw)
    except ValueError as exc:
        raise AnswerError(f"{questions[key].name or key}: {exc}") from None
