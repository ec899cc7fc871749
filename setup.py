"""Build hook: ship ``poetone-lm-eval.pth`` at the root of site-packages, in regular wheels and in
editable ones (see src/_poetone_lm_eval_hook.py for why). Everything else is in pyproject.toml.

A regular wheel gets the file through ``build_py`` (whatever is in ``build_lib`` goes to
site-packages). An editable wheel (PEP 660, ``pip install -e``) does not: setuptools puts only a
path to ``src/`` in it and ignores ``build_lib``. So ``editable_wheel`` adds the file to the wheel
it built, with its RECORD line, and pip installs and uninstalls it like any other file.
"""

import base64
import hashlib
import zipfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "poetone-lm-eval.pth"


class build_py_with_pth(build_py):
    def run(self) -> None:
        super().run()
        self.copy_file(str(Path("src") / PTH), str(Path(self.build_lib) / PTH), preserve_mode=0)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]


def add_to_wheel(wheel: Path, name: str, data: bytes) -> None:
    """Add one file at the root of a wheel (site-packages) and list it in the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as old:
        members = [(info, old.read(info)) for info in old.infolist()]
    if any(info.filename == name for info, _ in members):
        return
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    line = f"{name},sha256={digest},{len(data)}\n".encode()
    rewritten = wheel.with_name(wheel.name + ".tmp")
    with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as new:
        for info, content in members:
            if info.filename.endswith(".dist-info/RECORD"):
                content = content.rstrip(b"\n") + b"\n" + line
            new.writestr(info, content)
        new.writestr(name, data)
    rewritten.replace(wheel)


class editable_wheel_with_pth(editable_wheel):
    def run(self) -> None:
        super().run()
        wheels = list(Path(self.dist_dir).glob("*-0.editable-*.whl"))
        if not wheels:
            raise RuntimeError(f"no editable wheel in {self.dist_dir} to add {PTH} to")
        for wheel in wheels:
            add_to_wheel(wheel, PTH, (Path(self.project_dir) / "src" / PTH).read_bytes())


setup(cmdclass={"build_py": build_py_with_pth, "editable_wheel": editable_wheel_with_pth})
