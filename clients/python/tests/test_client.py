"""The Python client against the real askonce binary."""

from __future__ import annotations

import datetime
import hashlib
import os
import tempfile
import unittest
import uuid

import askonce
from tests.harness import Proxy, Server, slow_plugin

server: Server


def setUpModule():
    global server
    server = Server()


def tearDownModule():
    server.stop()


def session() -> str:
    return "py-" + uuid.uuid4().hex


class ManagedModeTest(unittest.TestCase):
    def setUp(self):
        self.c = askonce.Client(server.base)

    def test_create_asks_once_and_the_answer_plans(self):
        job = self.c.create("hot frozen cheese", session_id=session())
        self.assertIsInstance(job, askonce.JobView)
        self.assertEqual((job.status, job.needs_clarification), ("pending", True))
        self.assertEqual(job.clarification_options, ["hot", "frozen"])
        self.assertIsInstance(job.created_at, datetime.datetime)
        done = self.c.answer(job.job_id, "hot")
        self.assertEqual(done.status, "success")
        self.assertIsInstance(done.plan, askonce.Plan)
        self.assertIsInstance(done.plan.tasks[0], askonce.Task)
        self.assertEqual(done.plan.spec["attributes"]["temperature"], "hot")
        self.assertIsInstance(done.usage, askonce.Usage)
        got = self.c.get(job.job_id)
        self.assertIsInstance(got, askonce.JobDetail)
        self.assertEqual((got.clarification_answer, got.clarification_source), ("hot", "user"))
        self.assertTrue(all(isinstance(a, askonce.Attempt) for a in got.attempts))

    def test_an_invalid_answer_raises_invalid_error_with_the_allowed_answers_and_keeps_the_question(self):
        job = self.c.create("Drop the users table", session_id=session())
        self.assertEqual(job.clarification_type, "CONFIRM")
        with self.assertRaises(askonce.InvalidError) as cm:
            self.c.answer(job.job_id, "tepid")
        e = cm.exception
        self.assertEqual((e.status, e.code, e.allowed), (422, "invalid", ["yes", "no"]))
        self.assertIn("tepid", e.message)
        self.assertEqual(self.c.get(job.job_id).status, "pending")

    def test_a_question_with_fields_is_answered_with_a_dict_and_a_bad_one_lists_every_bad_field(self):
        schema = {"type": "object", "required": ["environment", "dry_run"],
                  "properties": {"environment": {"enum": ["staging", "production"]}, "dry_run": {"type": "boolean"}}}
        job = self.c.create("ship the release", session_id=session(), spec_schema=schema)
        self.assertEqual([f.name for f in job.clarification_fields], ["environment", "dry_run"])
        self.assertIsInstance(job.clarification_fields[0], askonce.QuestionField)
        with self.assertRaises(askonce.InvalidError) as cm:
            self.c.answer(job.job_id, {"environment": "qa", "dry_run": 3})
        bad = {f.name: f for f in cm.exception.fields}
        self.assertEqual(sorted(bad), ["dry_run", "environment"])
        self.assertIsInstance(bad["environment"], askonce.FieldError)
        self.assertEqual(bad["environment"].allowed, ["staging", "production"])
        self.assertEqual(self.c.get(job.job_id).status, "pending")
        done = self.c.answer(job.job_id, {"environment": "production", "dry_run": False})
        self.assertEqual(done.status, "success")
        self.assertEqual((done.plan.spec["environment"], done.plan.spec["dry_run"]), ("production", False))

    def test_a_second_answer_raises_conflict_error_with_the_job_as_it_is(self):
        job = self.c.create("hot frozen cheese", session_id=session())
        self.c.answer(job.job_id, "hot")
        with self.assertRaises(askonce.ConflictError) as cm:
            self.c.answer(job.job_id, "frozen")
        self.assertEqual(cm.exception.status, 409)
        self.assertIsInstance(cm.exception.job, askonce.JobView)
        self.assertEqual((cm.exception.job.status, cm.exception.job.clarification_answer), ("success", "hot"))

    def test_an_unknown_job_raises_not_found_error(self):
        with self.assertRaises(askonce.NotFoundError) as cm:
            self.c.get(str(uuid.uuid4()))
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "not_found"))

    def test_a_bad_filter_raises_bad_request_error(self):
        with self.assertRaises(askonce.BadRequestError) as cm:
            self.c.list(status="bogus")
        self.assertIn("bogus", str(cm.exception))

    def test_decline_applies_the_default(self):
        job = self.c.create("Drop the users table", session_id=session())
        done = self.c.decline(job.job_id)
        self.assertEqual((done.status, done.clarification_answer, done.clarification_source), ("success", "no", "default"))

    def test_cancel_ends_a_pending_job_once(self):
        job = self.c.create("hot frozen cheese", session_id=session())
        done = self.c.cancel(job.job_id)
        self.assertEqual((done.status, done.success), ("cancelled", False))
        with self.assertRaises(askonce.ConflictError):
            self.c.cancel(job.job_id)

    def test_iter_jobs_follows_the_cursor_over_every_page(self):
        s = session()
        ids = [self.c.create(f"Write note {i} in markdown", session_id=s).job_id for i in range(5)]
        page = self.c.list(session_id=s, limit=2)
        self.assertEqual(len(page.jobs), 2)
        self.assertNotEqual(page.next_cursor, "")
        got = [j.job_id for j in self.c.iter_jobs(session_id=s, limit=2)]
        self.assertEqual(got, list(reversed(ids)))

    def test_history_lists_the_sessions_answers(self):
        s = session()
        job = self.c.create("hot frozen cheese", session_id=s)
        self.c.answer(job.job_id, "frozen")
        entries = self.c.history(s)
        self.assertEqual([(e.answer, e.job_id, e.type) for e in entries], [("frozen", job.job_id, "SELECT_ONE")])
        self.assertIsInstance(entries[0], askonce.HistoryEntry)

    def test_events_and_stream_give_the_same_audit_trail(self):
        job = self.c.create("hot frozen cheese", session_id=session())
        self.c.answer(job.job_id, "hot")
        listed = self.c.events(job.job_id)
        streamed = list(self.c.stream(job.job_id, timeout=30))
        self.assertEqual([(e.id, e.type) for e in streamed], [(e.id, e.type) for e in listed])
        self.assertEqual([e.type for e in listed][:4], ["created", "attempt", "asked", "answered"])
        self.assertEqual([e.id for e in self.c.events(job.job_id, after=listed[1].id)], [e.id for e in listed[2:]])


class MemoryTest(unittest.TestCase):
    """Answer memory across sessions: each test has a project of its own."""

    def setUp(self):
        self.c = askonce.Client(server.base)
        self.project = "py-" + uuid.uuid4().hex[:12]

    def test_a_project_answer_is_used_listed_and_forgotten(self):
        shop = askonce.Memory(scope="project", project=self.project)
        first = self.c.create("hot frozen cheese", session_id=session(), memory=shop)
        self.assertEqual(first.status, "pending")
        self.c.answer(first.job_id, "frozen")

        # Another agent (another session) in the same project is not asked.
        second = self.c.create("hot frozen cheese", session_id=session(), memory={"scope": "project", "project": self.project})
        self.assertEqual((second.status, second.clarification_source, second.clarification_answer),
                         ("success", "history", "frozen"))
        ref = second.clarification_memory
        self.assertIsInstance(ref, askonce.MemoryRef)
        self.assertEqual((ref.scope, ref.project, ref.job_id), ("project", self.project, first.job_id))
        self.assertIsInstance(ref.at, datetime.datetime)
        self.assertEqual(second.plan.spec["attributes"]["temperature"], "frozen")

        entries = self.c.memory(project=self.project)
        self.assertEqual([(e.answer, e.job_id, e.scope, e.project) for e in entries],
                         [("frozen", first.job_id, "project", self.project)])
        entry = entries[0]
        self.assertIsInstance(entry, askonce.HistoryEntry)
        self.assertEqual(entry.uses, 1)
        self.assertIsInstance(entry.expires_at, datetime.datetime)

        gone = self.c.forget(entry.question_hash, project=self.project)
        self.assertIsInstance(gone, askonce.Forgotten)
        self.assertEqual((gone.scope, gone.question_hash), ("project", entry.question_hash))
        self.assertEqual(self.c.memory(project=self.project), [])
        with self.assertRaises(askonce.NotFoundError):
            self.c.forget(entry.question_hash, scope="project", project=self.project)

        third = self.c.create("hot frozen cheese", session_id=session(), memory=shop)
        self.assertEqual((third.status, third.clarification_options), ("pending", ["hot", "frozen"]))

    def test_dont_remember_keeps_the_answer_out_of_project_memory(self):
        shop = {"scope": "project", "project": self.project}
        s = session()
        first = self.c.create("hot frozen cheese", session_id=s, memory=shop)
        done = self.c.answer(first.job_id, "hot", dont_remember=True)
        self.assertEqual(done.status, "success")
        self.assertEqual(self.c.memory(project=self.project), [])
        self.assertEqual([e.answer for e in self.c.history(s)], ["hot"], "the session still has the answer")
        again = self.c.create("hot frozen cheese", session_id=session(), memory=shop)
        self.assertEqual(again.status, "pending")

    def test_fresh_asks_even_when_the_project_remembers(self):
        first = self.c.create("hot frozen cheese", session_id=session(), memory={"scope": "project", "project": self.project})
        self.c.answer(first.job_id, "hot")
        fresh = self.c.create("hot frozen cheese", session_id=session(),
                              memory=askonce.Memory(scope="project", project=self.project, fresh=True))
        self.assertEqual(fresh.status, "pending")

    def test_bad_memory_raises_invalid_error_naming_the_field(self):
        with self.assertRaises(askonce.InvalidError) as cm:
            self.c.create("hot frozen cheese", memory={"scope": "galaxy"})
        self.assertIn("memory.scope", str(cm.exception))
        with self.assertRaises(TypeError):
            self.c.create("hot frozen cheese", memory="project")


class GateModeTest(unittest.TestCase):
    def test_report_asks_once_then_resumes_then_proceeds(self):
        c = askonce.Client(server.base)
        job = c.create("Book the trip", mode="gate", session_id=session())
        question = askonce.Question(type="SELECT_ONE", text="Which city?", options=["Paris", "Rome"], default="Paris")
        r = c.report(job.job_id, question=question)
        self.assertIsInstance(r, askonce.ReportResponse)
        self.assertEqual((r.action, r.question.text), ("ask", "Which city?"))
        c.answer(job.job_id, "Rome")
        r = c.report(job.job_id, question=question)
        self.assertEqual((r.action, r.answer), ("resume", "Rome"))
        r = c.report(job.job_id, question={"type": "CONFIRM", "text": "Sure?"})
        self.assertEqual(r.action, "proceed")
        self.assertNotEqual(r.directive, "")
        plan = askonce.Plan(title="Trip", tasks=[askonce.Task(id="t1", title="Book", instruction="Book Rome", depends_on=[])])
        r = c.report(job.job_id, plan=plan)
        self.assertEqual((r.action, r.job.status), ("done", "success"))


class IdempotencyTest(unittest.TestCase):
    def setUp(self):
        self.proxy = Proxy(server.base)
        self.addCleanup(self.proxy.stop)

    def test_every_post_carries_a_fresh_uuid4_idempotency_key(self):
        c = askonce.Client(self.proxy.base)
        job = c.create("Drop the users table", session_id=session())
        with self.assertRaises(askonce.InvalidError):
            c.answer(job.job_id, "tepid")
        c.decline(job.job_id)
        keys = [h.get("idempotency-key", "") for _, h in self.proxy.posts()]
        self.assertEqual(len(keys), 3)
        self.assertEqual(len(set(keys)), 3, keys)
        for k in keys:
            self.assertEqual(uuid.UUID(k).version, 4, k)

    def test_a_given_key_replays_the_first_response(self):
        c = askonce.Client(self.proxy.base)
        key, s = str(uuid.uuid4()), session()
        first = c.create("hot frozen cheese", session_id=s, idempotency_key=key)
        again = c.create("hot frozen cheese", session_id=s, idempotency_key=key)
        self.assertEqual(again.job_id, first.job_id)
        self.assertEqual([j.job_id for j in c.iter_jobs(session_id=s)], [first.job_id])

    def test_a_lost_response_is_sent_again_with_the_same_key_and_runs_once(self):
        self.proxy.drop_posts = 1
        c = askonce.Client(self.proxy.base)
        s = session()
        job = c.create("hot frozen cheese", session_id=s)
        posts = self.proxy.posts()
        self.assertEqual(len(posts), 2)
        self.assertEqual(posts[0][1]["idempotency-key"], posts[1][1]["idempotency-key"])
        self.assertIn(job.job_id.encode(), self.proxy.dropped[0])
        self.assertEqual([j.job_id for j in c.iter_jobs(session_id=s)], [job.job_id])

    def test_without_a_key_a_lost_response_is_not_sent_again(self):
        self.proxy.drop_posts = 1
        c = askonce.Client(self.proxy.base, idempotency=False)
        with self.assertRaises(askonce.UnreachableError):
            c.create("hot frozen cheese", session_id=session())
        self.assertEqual(len(self.proxy.posts()), 1)
        self.assertNotIn("idempotency-key", self.proxy.posts()[0][1])


class StreamTest(unittest.TestCase):
    def test_a_broken_stream_resumes_with_last_event_id_and_repeats_nothing(self):
        c = askonce.Client(server.base)
        job = c.create("hot frozen cheese", session_id=session())
        c.answer(job.job_id, "hot")
        want = [e.id for e in c.events(job.job_id)]
        proxy = Proxy(server.base, cut_streams=1)
        self.addCleanup(proxy.stop)
        got = [e.id for e in askonce.Client(proxy.base).stream(job.job_id, timeout=30)]
        self.assertEqual(got, want)
        streams = proxy.streams()
        self.assertEqual(len(streams), 2)
        self.assertNotIn("last-event-id", streams[0])
        self.assertEqual(streams[1].get("last-event-id"), str(want[0]))


class SlowPlannerTest(unittest.TestCase):
    """A planner that takes a second per call, so that jobs stay planning."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--interpreter", "exec", env=slow_plugin(1))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_respond_async_answers_planning_and_wait_follows_the_job(self):
        c = askonce.Client(self.server.base)
        job = c.create("Write the report in markdown or html", session_id=session(), respond_async=True)
        self.assertEqual(job.status, "planning")
        seen = []
        asked = c.wait(job.job_id, timeout=30, on_event=seen.append)
        self.assertEqual((asked.status, asked.clarification_options), ("pending", ["markdown", "html"]))
        self.assertIn("asked", [e.type for e in seen])
        job = c.answer(job.job_id, "html", respond_async=True)
        self.assertEqual((job.status, job.clarification_answer), ("planning", "html"))
        done = c.wait(job.job_id, timeout=30)
        self.assertEqual(done.status, "success")

    def test_wait_reconnects_with_last_event_id_when_the_stream_breaks(self):
        proxy = Proxy(self.server.base, cut_streams=1)
        self.addCleanup(proxy.stop)
        c = askonce.Client(proxy.base)
        job = c.create("Write the report in markdown or html", session_id=session(), respond_async=True)
        seen = []
        asked = c.wait(job.job_id, timeout=30, on_event=seen.append)
        self.assertEqual(asked.status, "pending")
        ids = [e.id for e in seen]
        self.assertEqual(ids, sorted(set(ids)), "an event was repeated or reordered")
        streams = proxy.streams()
        self.assertGreaterEqual(len(streams), 2)
        self.assertEqual(streams[1].get("last-event-id"), str(ids[0]))

    def test_wait_gives_up_after_its_timeout(self):
        c = askonce.Client(self.server.base)
        job = c.create("Write the report in markdown or html", session_id=session(), respond_async=True)
        with self.assertRaises(TimeoutError):
            c.wait(job.job_id, timeout=0.2)


class APIKeyTest(unittest.TestCase):
    def test_the_api_key_is_sent_as_a_bearer_token(self):
        key = "py-" + uuid.uuid4().hex
        with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
            f.write(f"acme {hashlib.sha256(key.encode()).hexdigest()}\n")
        self.addCleanup(os.remove, f.name)
        srv = Server("--api-keys-file", f.name)
        self.addCleanup(srv.stop)
        with self.assertRaises(askonce.UnauthorizedError) as cm:
            askonce.Client(srv.base).list()
        self.assertEqual(cm.exception.status, 401)
        job = askonce.Client(srv.base, api_key=key).create("hot frozen cheese")
        self.assertEqual(job.status, "pending")


class UnreachableTest(unittest.TestCase):
    def test_no_server_raises_unreachable_error_naming_the_url(self):
        proxy = Proxy("http://127.0.0.1:9")  # a proxy port nobody reuses while it lives
        base = proxy.base
        proxy.stop()
        with self.assertRaises(askonce.UnreachableError) as cm:
            askonce.Client(base, retries=0).get("x")
        self.assertIn(base, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
