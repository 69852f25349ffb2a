"""A PEP 517 build backend in the standard library only, so that
`pip install ./clients/python` works with no package index: the build needs
nothing that pip would have to download (setuptools without the wheel
package cannot build a wheel). It builds a pure-Python wheel of the askonce
package and an sdist of this folder, with the metadata of pyproject.toml.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "askonce"


def _project() -> dict:
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    out = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(rf'^{re.escape(key)}\s*=\s*"([^"]*)"', section, re.M)
        if not m:
            raise ValueError(f"pyproject.toml: [project] has no {key}")
        out[key] = m.group(1)
    return out


def _metadata(p: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['description']}",
        "License: Apache-2.0",
        f"Requires-Python: {p['requires-python']}",
        "Description-Content-Type: text/markdown",
    ]
    readme = os.path.join(HERE, "README.md")
    body = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    return "\n".join(lines) + "\n\n" + body


def _files() -> list:
    out = []
    for root, dirs, names in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith((".py", ".typed")):
                path = os.path.join(root, n)
                out.append((os.path.relpath(path, HERE).replace(os.sep, "/"), path))
    return out


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    name = f"{p['name']}-{p['version']}"
    dist_info = f"{p['name']}-{p['version']}.dist-info"
    entries = [(arc, open(path, "rb").read()) for arc, path in _files()]
    entries.append((f"{dist_info}/METADATA", _metadata(p).encode()))
    entries.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: askonce_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join(f"{arc},{_digest(data)},{len(data)}\n" for arc, data in entries) + f"{dist_info}/RECORD,,\n"
    filename = f"{name}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            z.writestr(arc, data)
        z.writestr(f"{dist_info}/RECORD", record)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = f"{p['name']}-{p['version']}"
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as t:
        for rel in ["pyproject.toml", "README.md", "_build/askonce_build.py"] + [arc for arc, _ in _files()]:
            if os.path.exists(os.path.join(HERE, rel)):
                t.add(os.path.join(HERE, rel), arcname=f"{base}/{rel}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(p).encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return filename
