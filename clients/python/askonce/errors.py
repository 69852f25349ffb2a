"""The API's error responses as exceptions: one class per error code.

Every non-2xx response raises a subclass of AskonceError chosen by the
body's "code" (an unknown code, or a body that is not askonce's, raises
AskonceError itself):

    try:
        client.answer(job_id, "tepid")
    except askonce.InvalidError as e:
        print(e.message, e.allowed)      # the answers the question takes
    except askonce.ConflictError as e:
        print(e.job.status)              # what the job is now
"""

from __future__ import annotations

from typing import Optional

from .models import FieldError, JobView


class AskonceError(Exception):
    """A non-2xx response of the askonce API, or a transport failure
    (status 0, code "")."""

    code = ""

    def __init__(self, status: int, message: str, code: str = "", allowed: Optional[list] = None, job: Optional[JobView] = None,
                 fields: Optional[list] = None):
        super().__init__(message)
        self.status = status
        self.message = message
        if code:
            self.code = code
        self.allowed = allowed or []
        # Every bad field of an invalid answer to a question with fields
        # (FieldError: name, message, allowed).
        self.fields = fields or []
        self.job = job

    def __str__(self) -> str:
        msg = self.message
        if self.allowed and not any(a in msg for a in self.allowed):
            msg += " (allowed: " + ", ".join(self.allowed) + ")"
        return f"{self.status} {self.code}: {msg}" if self.code else msg


class InvalidError(AskonceError):
    """422 invalid: the request breaks a rule (an answer the question does
    not take: see allowed)."""

    code = "invalid"


class NotFoundError(AskonceError):
    """404 not_found: no such job for this API key's tenant."""

    code = "not_found"


class ConflictError(AskonceError):
    """409 conflict: the job's state does not allow the call (job is the
    job as it is now), or an Idempotency-Key's first request is still
    running."""

    code = "conflict"


class InternalError(AskonceError):
    """500 internal: the server failed; its log has the details."""

    code = "internal"


class BadRequestError(AskonceError):
    """400 bad_request: malformed JSON, an unknown field or a bad query."""

    code = "bad_request"


class TooLargeError(AskonceError):
    """413 too_large: the body is over the server's limit."""

    code = "too_large"


class UnsupportedMediaTypeError(AskonceError):
    """415 unsupported_media_type: the body is not JSON."""

    code = "unsupported_media_type"


class UnauthorizedError(AskonceError):
    """401 unauthorized: no API key, or one the server does not know."""

    code = "unauthorized"


class MethodNotAllowedError(AskonceError):
    """405 method_not_allowed."""

    code = "method_not_allowed"


class IdempotencyMismatchError(AskonceError):
    """422 idempotency_mismatch: an Idempotency-Key reused with another
    method, path or body."""

    code = "idempotency_mismatch"


class UnavailableError(AskonceError):
    """503 unavailable: the request was cancelled or timed out; retry it."""

    code = "unavailable"


class TooManyRequestsError(AskonceError):
    """429 too_many_requests: too many failed attempts (wrong API keys) from
    this address; retry after the response's Retry-After."""

    code = "too_many_requests"


ERRORS = {cls.code: cls for cls in AskonceError.__subclasses__()}
"""The exception class of each error code the server sends."""


def error_from_response(status: int, body: object) -> AskonceError:
    """The exception for an error response's status and decoded body."""
    if not isinstance(body, dict) or not isinstance(body.get("code"), str):
        text = body if isinstance(body, str) else ""
        return AskonceError(status, f"HTTP {status}" + (f": {text[:500]}" if text else ""))
    code = body["code"]
    job = body.get("job")
    return ERRORS.get(code, AskonceError)(
        status,
        str(body.get("error") or f"HTTP {status}"),
        code=code,
        allowed=list(body.get("allowed") or []),
        job=JobView.from_dict(job) if isinstance(job, dict) else None,
        fields=[FieldError.from_dict(f) for f in body.get("fields") or [] if isinstance(f, dict)],
    )


class UnreachableError(AskonceError):
    """No response: the server could not be reached, or the connection
    broke. status is 0."""

    code = ""
