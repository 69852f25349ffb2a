"""pip installs the package from this folder with no package index."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class InstallTest(unittest.TestCase):
    def test_pip_installs_the_folder_offline_and_the_package_imports(self):
        if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
            if os.environ.get("CI"):
                self.fail("pip is missing: the install check needs it")
            self.skipTest("pip is not installed for " + sys.executable)
        with tempfile.TemporaryDirectory() as target:
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet",
                                "--disable-pip-version-check", "--target", target, HERE],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            code = "import askonce, askonce.models; print(askonce.__file__, askonce.__version__)"
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               cwd=target, env={**os.environ, "PYTHONPATH": target})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(os.path.join(target, "askonce")), r.stdout)
            self.assertTrue(os.path.isfile(os.path.join(target, "askonce", "py.typed")))
