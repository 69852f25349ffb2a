"""askonce: a client of the askonce HTTP API, standard library only.

    import askonce

    c = askonce.Client("http://127.0.0.1:8080")
    job = c.create("hot frozen cheese")
    if job.needs_clarification:
        print(job.clarification_question, job.clarification_options)
        job = c.answer(job.job_id, "hot")
    print(job.status, job.plan.title)

The job views and the other bodies are the dataclasses of askonce.models,
generated from the server's OpenAPI document; errors are the exceptions of
askonce.errors, one per error code.
"""

from .client import Client
from .errors import (
    ERRORS,
    AskonceError,
    BadRequestError,
    ConflictError,
    IdempotencyMismatchError,
    InternalError,
    InvalidError,
    MethodNotAllowedError,
    NotFoundError,
    TooLargeError,
    TooManyRequestsError,
    UnauthorizedError,
    UnavailableError,
    UnreachableError,
    UnsupportedMediaTypeError,
)
from .models import (
    Attempt,
    Event,
    FieldError,
    Forgotten,
    Health,
    HistoryEntry,
    JobDetail,
    JobList,
    JobView,
    Memory,
    MemoryRef,
    Plan,
    Question,
    QuestionField,
    ReportResponse,
    Task,
    Usage,
)

__version__ = "0.1.0"

__all__ = [
    "Client",
    "ERRORS",
    "AskonceError",
    "BadRequestError",
    "ConflictError",
    "IdempotencyMismatchError",
    "InternalError",
    "InvalidError",
    "MethodNotAllowedError",
    "NotFoundError",
    "TooLargeError",
    "TooManyRequestsError",
    "UnauthorizedError",
    "UnavailableError",
    "UnreachableError",
    "UnsupportedMediaTypeError",
    "Attempt",
    "Event",
    "FieldError",
    "Forgotten",
    "Health",
    "HistoryEntry",
    "JobDetail",
    "JobList",
    "JobView",
    "Memory",
    "MemoryRef",
    "Plan",
    "Question",
    "QuestionField",
    "ReportResponse",
    "Task",
    "Usage",
]
