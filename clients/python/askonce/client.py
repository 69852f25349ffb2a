"""The askonce HTTP API client (standard library only)."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.client import HTTPException
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

from ._wire import to_wire
from .errors import AskonceError, UnavailableError, UnreachableError, error_from_response
from .models import Event, Forgotten, Health, HistoryEntry, JobDetail, JobList, JobView, Memory, ReportResponse

# Events after which a job is still planning: waiting need not read the job.
_PLANNING_EVENTS = {"created", "attempt"}


class Client:
    """A client of one askonce server.

    base_url is where `askonce serve` listens; api_key, when the server has
    --api-keys-file, is sent as "Authorization: Bearer <key>". timeout is
    the socket timeout of one call in seconds: keep it above the server's
    --sync-wait (30 s by default), which a create, answer or decline may
    wait for planning.

    Every POST carries an Idempotency-Key (a fresh uuid4, or the one given)
    unless idempotency is False, and a POST whose response was lost is sent
    again with the same key up to `retries` times, so the server runs it at
    most once and the retry gets the first response. Calls raise a subclass
    of AskonceError (see askonce.errors).
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8080", *, api_key: Optional[str] = None,
                 timeout: float = 60.0, idempotency: bool = True, retries: int = 2):
        u = urllib.parse.urlsplit(base_url.rstrip("/"))
        if u.scheme not in ("http", "https") or not u.netloc:
            raise ValueError(f"server URL {base_url!r}: want http(s)://host[:port]")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.idempotency = idempotency
        self.retries = retries

    # -- jobs ------------------------------------------------------------

    def create(self, goal: str, *, session_id: Optional[str] = None, profile: Optional[str] = None,
               files: Optional[list] = None, hard_cap: Optional[str] = None, mode: Optional[str] = None,
               spec_schema: Any = None, memory: Union[Memory, dict, None] = None, respond_async: bool = False,
               idempotency_key: Optional[str] = None) -> JobView:
        """Creates a job. In managed mode (the default) the result is the
        plan (status success), the one question (needs_clarification, status
        pending) or the failure. With respond_async the server answers at
        once, usually with the job still planning: follow it with wait().
        mode="gate" creates a gate-mode job for report().

        memory (an askonce.Memory or a dict with the same keys: scope
        "session", "project" or "tenant", project, ttl such as "720h",
        fresh) is where the job's question may be answered from, and where
        its answer is remembered: Memory(scope="project", project="shop")
        answers a question that any earlier job in project shop had
        answered. fresh=True always asks."""
        if memory is not None and not isinstance(memory, (Memory, dict)):
            raise TypeError(f"memory: want an askonce.Memory or a dict, got {type(memory).__name__}")
        body = {"goal": goal, "sessionId": session_id, "profile": profile, "files": files,
                "hardCap": hard_cap, "mode": mode, "specSchema": spec_schema, "memory": memory}
        return JobView.from_dict(self._post("/jobs", body, respond_async, idempotency_key))

    def get(self, job_id: str) -> JobDetail:
        """The job with its question, plan, usage and attempts."""
        return JobDetail.from_dict(self._call("GET", self._job(job_id)))

    def list(self, *, status: Optional[str] = None, session_id: Optional[str] = None,
             cursor: Optional[str] = None, limit: Optional[int] = None) -> JobList:
        """One page of the tenant's jobs, newest first; pass the page's
        next_cursor as cursor for the next one (empty on the last page)."""
        q = {"status": status, "sessionId": session_id, "cursor": cursor, "limit": limit}
        return JobList.from_dict(self._call("GET", "/jobs", query=q))

    def iter_jobs(self, *, status: Optional[str] = None, session_id: Optional[str] = None,
                  limit: Optional[int] = None) -> Iterator[JobView]:
        """Every job that matches, newest first, following the cursors
        page by page (limit is the page size)."""
        cursor = None
        while True:
            page = self.list(status=status, session_id=session_id, cursor=cursor, limit=limit)
            yield from page.jobs or []
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def answer(self, job_id: str, answer: Union[str, int, float, bool, Sequence[str], Mapping[str, Any]], *, dont_remember: bool = False,
               respond_async: bool = False, idempotency_key: Optional[str] = None) -> JobView:
        """Answers the job's question and returns the job planned with the
        answer (never a second question). The answer is a value of the
        question's type (a str, which may spell any type's value; an int
        or float for NUMBER; a bool for CONFIRM; a list of option values
        for SELECT_MANY), or, for a question with fields, a dict of such
        values by field name; the job's clarification_value reads it back
        typed. An answer the question does not take raises InvalidError
        with allowed (and, for a question with fields, fields: every bad
        field, with what it accepts); a job that is not pending,
        ConflictError. dont_remember keeps the answer out of the project
        and tenant memory (the session still has it)."""
        body = {"answer": answer, "dontRemember": True if dont_remember else None}
        return JobView.from_dict(self._post(self._job(job_id) + "/clarification", body,
                                            respond_async, idempotency_key))

    def decline(self, job_id: str, *, respond_async: bool = False, idempotency_key: Optional[str] = None) -> JobView:
        """Declines the question: its default applies, or the job is
        planned under the fallback directive."""
        return JobView.from_dict(self._post(self._job(job_id) + "/decline", {}, respond_async, idempotency_key))

    def cancel(self, job_id: str, *, idempotency_key: Optional[str] = None) -> JobView:
        """Cancels a planning or pending job."""
        return JobView.from_dict(self._post(self._job(job_id) + "/cancel", {}, False, idempotency_key))

    def report(self, job_id: str, *, question: Any = None, plan: Any = None, error: Optional[str] = None,
               title: Optional[str] = None, raw: Optional[str] = None, usage: Any = None,
               idempotency_key: Optional[str] = None) -> ReportResponse:
        """Gate mode: reports the agent's outcome (exactly one of question,
        plan or error; models or plain dicts) and returns what to do:
        action ask, wait, resume, proceed, done or fail."""
        body = {"question": question, "plan": plan, "error": error, "title": title, "raw": raw, "usage": usage}
        return ReportResponse.from_dict(self._post(self._job(job_id) + "/report", body, False, idempotency_key))

    def history(self, session_id: str) -> list:
        """The session's answered questions (HistoryEntry), oldest first."""
        path = "/sessions/" + urllib.parse.quote(session_id, safe="") + "/history"
        return [HistoryEntry.from_dict(e) for e in self._call("GET", path).get("entries") or []]

    def memory(self, *, scope: Optional[str] = None, project: Optional[str] = None) -> list:
        """GET /memory: the answers remembered in a project (scope
        "project", the default when project is given) or in the whole
        tenant (scope "tenant", the default otherwise), newest first, as
        HistoryEntry (answer, job_id, at, expires_at, uses, ...). A
        session's answers are history(session_id)."""
        if scope is None:
            scope = "project" if project else "tenant"
        body = self._call("GET", "/memory", query={"scope": scope, "project": project})
        return [HistoryEntry.from_dict(e) for e in body.get("entries") or []]

    def forget(self, question_hash: str, *, scope: Optional[str] = None, project: Optional[str] = None,
               session: Optional[str] = None) -> Forgotten:
        """DELETE /memory/{hash}: forgets the remembered answer to the
        question with this hash (an entry's question_hash) in one scope, so
        that the next job asks again. scope defaults to "project" when
        project is given, "session" when session is, else "tenant". No
        such entry raises NotFoundError."""
        if scope is None:
            scope = "project" if project else "session" if session else "tenant"
        path = "/memory/" + urllib.parse.quote(question_hash, safe="")
        q = {"scope": scope, "project": project, "session": session}
        return Forgotten.from_dict(self._call("DELETE", path, query=q))

    def health(self) -> Health:
        """GET /healthz: ok, and the server's version."""
        return Health.from_dict(self._call("GET", "/healthz", ok=(200, 503)))

    # -- events ----------------------------------------------------------

    def events(self, job_id: str, *, after: int = 0) -> list:
        """The job's events (Event) with an id above after, at most 1000."""
        body = self._call("GET", self._job(job_id) + "/events", query={"after": after or None})
        return [Event.from_dict(e) for e in body.get("events") or []]

    def stream(self, job_id: str, *, last_event_id: Optional[int] = None,
               timeout: Optional[float] = None) -> Iterator[Event]:
        """Follows the job's events live (Server-Sent Events) until the
        server ends the stream, which it does once the job is settled and
        every event was sent. A broken connection is resumed with
        Last-Event-ID, so no event is missed or repeated. timeout, in
        seconds, bounds the whole stream (TimeoutError)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        state = _StreamState(last_event_id or 0)
        while True:
            try:
                yield from self._stream_once(job_id, state, deadline)
                return
            except UnreachableError:
                _pause(state.retry, deadline)

    def wait(self, job_id: str, *, timeout: Optional[float] = None,
             on_event: Optional[Callable[[Event], None]] = None) -> JobDetail:
        """Waits until the job leaves planning (pending with its question,
        or settled) and returns it. It follows the job's event stream, so
        it returns as soon as the change is committed, and reconnects with
        Last-Event-ID when the stream breaks. on_event, when given, gets
        every event of the job in order. Raises TimeoutError after timeout
        seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        state = _StreamState(0)
        while True:
            job = self.get(job_id)
            if job.status != "planning":
                return job
            try:
                for ev in self._stream_once(job_id, state, deadline):
                    if on_event is not None:
                        on_event(ev)
                    if ev.type in _PLANNING_EVENTS:
                        continue
                    job = self.get(job_id)
                    if job.status != "planning":
                        return job
            except UnreachableError:
                _pause(state.retry, deadline)
            else:
                # The server ended the stream (its --stream-timeout) with
                # the job still planning: read it and follow on.
                _pause(0, deadline)

    def _stream_once(self, job_id: str, state: "_StreamState", deadline: Optional[float]) -> Iterator[Event]:
        headers = {"Accept": "text/event-stream"}
        if state.last_id:
            headers["Last-Event-ID"] = str(state.last_id)
        state.connects += 1
        resp = self._open("GET", self._job(job_id) + "/events", None, headers, _remaining(deadline, self.timeout))
        data: list = []
        try:
            for raw in _lines(resp, job_id, deadline):
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if data:
                        ev = Event.from_dict(json.loads("\n".join(data)))
                        data = []
                        state.last_id = max(state.last_id, ev.id)
                        yield ev
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data":
                    data.append(value)
                elif name == "retry" and value.isdigit():
                    state.retry = int(value) / 1000
                # id: and event: repeat what data carries; ":" is a keep-alive.
        finally:
            resp.close()

    # -- transport -------------------------------------------------------

    @staticmethod
    def _job(job_id: str) -> str:
        return "/jobs/" + urllib.parse.quote(job_id, safe="")

    def _post(self, path: str, body: dict, respond_async: bool, idempotency_key: Optional[str]) -> dict:
        headers = {}
        if respond_async:
            headers["Prefer"] = "respond-async"
        key = idempotency_key or (str(uuid.uuid4()) if self.idempotency else None)
        if key:
            headers["Idempotency-Key"] = key
        payload = {k: to_wire(v) for k, v in body.items() if v is not None}
        # Without a key a lost response cannot be retried safely.
        return self._call("POST", path, payload, headers, retries=self.retries if key else 0)

    def _call(self, method: str, path: str, body: Optional[dict] = None, headers: Optional[dict] = None,
              query: Optional[dict] = None, retries: Optional[int] = None, ok: tuple = ()) -> dict:
        if query:
            q = {k: str(v) for k, v in query.items() if v is not None and v != ""}
            if q:
                path += "?" + urllib.parse.urlencode(q)
        if retries is None:
            retries = self.retries
        for attempt in range(retries + 1):
            try:
                resp = self._open(method, path, body, headers or {}, self.timeout, ok)
                with resp:
                    raw = resp.read()
                return json.loads(raw) if raw else {}
            except (UnreachableError, UnavailableError):
                if attempt == retries:
                    raise
                time.sleep(min(0.2 * 2 ** attempt, 2))
        raise AssertionError("unreachable")

    def _open(self, method: str, path: str, body: Optional[dict], headers: dict, timeout: Optional[float], ok: tuple = ()):
        req = urllib.request.Request(self.base_url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode("utf-8"))
        req.add_header("Accept", headers.pop("Accept", "application/json"))
        if body is not None:
            req.add_header("Content-Type", "application/json")
        if self.api_key:
            req.add_header("Authorization", "Bearer " + self.api_key)
        for k, v in headers.items():
            req.add_header(k, v)
        try:
            return urllib.request.urlopen(req, timeout=timeout)
        except urllib.error.HTTPError as e:
            with e:
                raw = e.read()
            if e.code in ok:
                return _Body(raw)
            try:
                parsed: Any = json.loads(raw)
            except ValueError:
                parsed = raw.decode("utf-8", "replace")
            raise error_from_response(e.code, parsed) from None
        except (urllib.error.URLError, OSError, HTTPException) as e:
            reason = getattr(e, "reason", e)
            raise UnreachableError(0, f"{method} {path}: {reason} (is askonce serve running at {self.base_url}?)") from e


def _lines(resp, job_id: str, deadline: Optional[float]) -> Iterator[bytes]:
    """The lines of a response body as they arrive. It reads with read1,
    which (unlike readline) tells a chunked body that was cut short
    (IncompleteRead) from one the server ended."""
    buf = b""
    while True:
        try:
            chunk = resp.read1(65536)
        except (OSError, HTTPException) as e:
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"job {job_id}: no outcome within the timeout") from e
            raise UnreachableError(0, f"event stream of job {job_id} broke: {e!r}") from e
        if not chunk:
            if buf:
                yield buf
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            yield line + b"\n"


class _StreamState:
    def __init__(self, last_id: int):
        self.last_id = last_id
        self.retry = 1.0  # seconds; the server's retry: field replaces it
        self.connects = 0


class _Body:
    """A read error response that a call accepts as its answer."""

    def __init__(self, raw: bytes):
        self._raw = raw

    def read(self) -> bytes:
        return self._raw

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _remaining(deadline: Optional[float], cap: float) -> float:
    if deadline is None:
        return cap
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the wait's timeout passed")
    return min(left, cap)


def _pause(seconds: float, deadline: Optional[float]) -> None:
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the wait's timeout passed")
        seconds = min(seconds, left)
    time.sleep(seconds)
