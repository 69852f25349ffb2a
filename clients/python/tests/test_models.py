"""The dataclasses and exceptions against the served OpenAPI document."""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import sys
import unittest
import urllib.request

import askonce
from askonce import models
from askonce._wire import parse_time
from tests.harness import Server

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
import generate_models  # noqa: E402

doc: dict


def setUpModule():
    global doc
    srv = Server()
    try:
        with urllib.request.urlopen(srv.base + "/openapi.json", timeout=10) as r:
            doc = json.load(r)
    finally:
        srv.stop()


def json_names(cls) -> set:
    return {f.metadata["json"] for f in dataclasses.fields(cls)}


class ModelsTest(unittest.TestCase):
    def test_every_job_property_is_a_dataclass_field_and_vice_versa(self):
        schemas = doc["components"]["schemas"]
        for name, cls in [("JobView", askonce.JobView), ("JobDetail", askonce.JobDetail)]:
            with self.subTest(name):
                self.assertEqual(json_names(cls), set(schemas[name]["properties"]))
                required = {f.metadata["json"] for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}
                self.assertEqual(required, set(schemas[name]["required"]))

    def test_models_py_is_generated_from_the_served_document(self):
        with open(generate_models.OUT, encoding="utf-8") as f:
            committed = f.read()
        self.assertEqual(committed, generate_models.generate(doc),
                         "askonce/models.py is stale: run python3 generate_models.py against the new server")

    def test_every_error_code_has_its_exception(self):
        codes = doc["components"]["schemas"]["ErrorResponse"]["properties"]["code"]["enum"]
        self.assertEqual(set(askonce.ERRORS), set(codes))
        for code, cls in askonce.ERRORS.items():
            e = askonce.errors.error_from_response(400, {"success": False, "error": "m", "code": code})
            self.assertIs(type(e), cls)

    def test_a_property_from_a_newer_server_is_ignored(self):
        u = models.Usage.from_dict({"promptTokens": 1, "completionTokens": 2, "costUsd": 0, "later": True})
        self.assertEqual(u, models.Usage(prompt_tokens=1, completion_tokens=2, cost_usd=0.0))
        self.assertEqual(u.to_dict(), {"promptTokens": 1, "completionTokens": 2, "costUsd": 0.0})

    def test_times_with_nanoseconds_parse(self):
        self.assertEqual(parse_time("2026-11-25T15:19:56.230708123Z"),
                         datetime.datetime(2026, 11, 25, 15, 19, 56, 230708, tzinfo=datetime.timezone.utc))
        self.assertEqual(parse_time("2026-11-25T15:19:56+02:00").utcoffset(), datetime.timedelta(hours=2))

    def test_an_error_body_that_is_not_askonces_raises_the_base_class(self):
        e = askonce.errors.error_from_response(502, "<html>Bad gateway</html>")
        self.assertIs(type(e), askonce.AskonceError)
        self.assertEqual(e.status, 502)
