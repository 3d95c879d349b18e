"""Files that come in: a source file read once as a stream (an upload or a path on disk), the
upload limit, and the refusal of an upload over it: one check for every request, the middleware
``refuse_large_uploads`` (in settings.MIDDLEWARE), so that no page or endpoint can forget it."""

from __future__ import annotations

import codecs
import hashlib
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.utils.functional import lazy

from annotation.core.errors import Refused
from annotation.core.http import is_api, refusal_json
from annotation.core.problems import problem
from scoring.problems import Problem


@dataclass(frozen=True)
class SourceFile:
    """An uploaded or read file: its name (as reported in problems) and its bytes, given as
    ``data`` or read from ``path`` (line by line, never whole)."""

    name: str
    data: bytes | None = None
    path: str | None = None

    def open(self) -> BinaryIO:
        return io.BytesIO(self.data) if self.data is not None else open(self.path, "rb")  # noqa: SIM115

    @property
    def sha256(self) -> str:
        digest = hashlib.sha256()
        with self.open() as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
        return digest.hexdigest()


def uploaded_source(upload: UploadedFile) -> SourceFile:
    """Read from the upload's temporary file, line by line (small uploads stay in memory)."""
    if hasattr(upload, "temporary_file_path"):
        return SourceFile(name=upload.name, path=upload.temporary_file_path())
    return SourceFile(name=upload.name, data=upload.read())


def upload_too_large(request: HttpRequest) -> bool:
    """Whether the request body is larger than the upload limit (known from its Content-Length
    before any of it is read: the refusal comes at once, not after the upload)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > settings.POLIS_MAX_UPLOAD_BYTES
    except ValueError:
        return False


def decoded_lines(stream: BinaryIO, name: str, problems: list[Problem]) -> Iterator[str]:
    """A CSV upload's lines as text, one at a time (a UTF-8 byte order mark skipped); at a line
    that is not UTF-8 a problem naming it, and no more lines."""
    for number, raw in enumerate(stream, start=1):
        try:
            yield (raw.removeprefix(codecs.BOM_UTF8) if number == 1 else raw).decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(problem("encoding/csv", "file", name, number, offset=error.start))
            return


def refuse_large_uploads(get_response: Callable[[HttpRequest], HttpResponse]):
    """Middleware: a request whose body is over settings.POLIS_MAX_UPLOAD_BYTES, whatever the page
    or endpoint, is answered 413 before any of it is read (JSON under /api/, else a page stating
    the limit); nothing is changed. Placed after the session and authentication middleware (the
    page shows who is logged in) and before any view or CSRF check reads the body."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not upload_too_large(request):
            return get_response(request)
        if is_api(request):
            response = refusal_json(Refused([upload_limit_problem()]), 413)
        else:
            response = TemplateResponse(request, "413.html", {"message": upload_limit_sentence()}, status=413).render()
        # The body is not read: the connection cannot be used for another request.
        response["Connection"] = "close"
        return response

    return middleware


def upload_limit_problem() -> Problem:
    """What a larger file is refused with."""
    return problem("upload_too_large", size=filesizeformat(settings.POLIS_MAX_UPLOAD_BYTES))


def upload_limit_sentence() -> str:
    """The sentence the upload pages state, and refuse a larger file with."""
    return upload_limit_problem().message


class UploadField(forms.FileField):
    """A file field stating the upload limit; static/annotation/upload_limit.js refuses a
    larger file in the browser before it is sent, ``refuse_large_uploads`` a larger request from
    its Content-Length. Every file field of the app is one."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", lazy(upload_limit_sentence, str)())
        super().__init__(**kwargs)

    def widget_attrs(self, widget):
        return {
            **super().widget_attrs(widget),
            "data-max-bytes": lazy(lambda: str(settings.POLIS_MAX_UPLOAD_BYTES), str)(),
            "data-too-large": lazy(upload_limit_sentence, str)(),
        }
